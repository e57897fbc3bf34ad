/* shop: the shop's invoice lines, in the CSV layout of the public
 * "Online Retail II" data set, and the one loader every later stage reads
 * such a file with (the real file or the one the seeded generator,
 * shopgen.h, writes: through the same code).
 *
 * Contract
 * - Layout: header line exactly
 *     Invoice,StockCode,Description,Quantity,InvoiceDate,Price,Customer ID,Country
 *   then one invoice line per row (RFC 4180 quoting, LF or CRLF line ends).
 *   data/README.md ("The generated shop") gives the accepted forms of every
 *   field and the generator's model with all its parameters.
 * - shop_load reads the whole file, keeps the rows that carry a Customer ID
 *   (in file order) and counts the others.  A malformed row fails the whole
 *   load with "<path>:<line>: <field> "<value>" <what is wrong>"; the line is
 *   the physical line on which the row starts (the header is line 1).
 * - Memory: shop_load fills *out; on success the caller owns out->lines and
 *   releases it with shop_free (which also zeroes *out, and may be called on
 *   a zeroed or already freed shop_data).  On failure nothing stays
 *   allocated and *out is zeroed.
 * - Errors: 0 on success, -1 with one message in err.
 */
#ifndef PIPELINE_SHOP_H
#define PIPELINE_SHOP_H

#include <stddef.h>
#include <stdint.h>

#define SHOP_HEADER "Invoice,StockCode,Description,Quantity,InvoiceDate,Price,Customer ID,Country"
#define SHOP_FIRST_INVOICE 489434

typedef struct {
    int32_t customer;  /* Customer ID (integer; "13085.0" in some CSV exports means 13085) */
    int32_t day;       /* InvoiceDate: days since 1970-01-01 */
    int32_t sec;       /* seconds into that day */
    int32_t invoice;   /* invoice number without its letter prefix */
    char    kind;      /* 'N' ordinary invoice, 'C' cancellation/return (invoice starts with C), 'A' adjustment (starts with A) */
    double  amount;    /* Quantity * Price (negative on returns) */
} shop_line;

typedef struct {
    shop_line *lines; size_t n;     /* lines that carry a customer id, in file order */
    size_t rows;                    /* data rows read */
    size_t guests;                  /* rows with an empty Customer ID (skipped, counted) */
    size_t cancels;                 /* rows of 'C' invoices (guest rows included) */
} shop_data;

/* Reads a shop file (generated or real) into *out. */
int  shop_load(const char *path, shop_data *out, char *err, size_t errlen);

/* Releases what shop_load allocated and zeroes *d. */
void shop_free(shop_data *d);

#endif
