/* Tests of pipeline/model/shop and shopgen: the generator (determinism, size, the rebuy share
 * it is tuned for) and the loader (exact values of a hand-written file, and
 * one message per kind of malformed row, naming file and line).
 * Every test works in its own mkdtemp folder under /tmp, removed afterwards. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shop.h"
#include "shopgen.h"
#include "util.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_shop.XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
}

static void teardown(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

TestSuite(shop, .init = setup, .fini = teardown);

/* dir/name, written with exactly these bytes */
static const char *put(const char *name, const char *text)
{
    static char path[256];
    char err[UT_ERRLEN] = "";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
    return path;
}

static const char *gen(uint64_t seed, const char *name)
{
    static char path[256];
    char err[UT_ERRLEN] = "";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(shop_generate(seed, path, err, sizeof err), 0, "%s", err);
    return path;
}

/* ---------------------------------------------------------------- */
/* generator                                                         */
/* ---------------------------------------------------------------- */

Test(shop, same_seed_same_bytes_other_seed_other_bytes)
{
    char err[UT_ERRLEN] = "", a[65], b[65], c[65];
    uint64_t na, nb, nc;
    cr_assert_eq(ut_sha256_file(gen(7, "a.csv"), a, &na, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ut_sha256_file(gen(7, "b.csv"), b, &nb, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ut_sha256_file(gen(8, "c.csv"), c, &nc, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(a, b);
    cr_assert_eq(na, nb);
    cr_assert_str_neq(a, c);
    cr_assert_gt(na, 50u * 1000 * 1000, "file of %llu bytes", (unsigned long long)na);
    /* nothing but the three files: no temporary left behind */
    DIR *d = opendir(dir);
    int files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        files += e->d_name[0] != '.';
    closedir(d);
    cr_assert_eq(files, 3);
}

Test(shop, generated_file_has_the_real_files_size_and_order)
{
    char err[UT_ERRLEN] = "";
    shop_data d;
    cr_assert_eq(shop_load(gen(1, "shop.csv"), &d, err, sizeof err), 0, "%s", err);
    cr_assert(d.rows >= 900000 && d.rows <= 1200000, "rows %zu", d.rows);
    cr_assert_eq(d.n + d.guests, d.rows);
    double guest_share = (double)d.guests / (double)d.rows;
    cr_assert(guest_share > 0.17 && guest_share < 0.23, "guest share %.3f", guest_share);
    cr_assert(d.cancels > 500, "cancel rows %zu", d.cancels);

    const int32_t first = ut_days_from_civil(2009, 12, 1), last = ut_days_from_civil(2011, 12, 9);
    static unsigned char seen[1 << 20];
    memset(seen, 0, sizeof seen);
    size_t customers = 0, returns = 0;
    for (size_t i = 0; i < d.n; i++) {
        const shop_line *l = &d.lines[i];
        cr_assert(l->customer > 0 && l->customer < (1 << 20), "customer %d", l->customer);
        customers += !seen[l->customer];
        seen[l->customer] = 1;
        cr_assert(l->day >= first && l->day <= last, "line %zu: day %d", i, l->day);
        cr_assert(l->sec >= 7 * 3600 && l->sec < 20 * 3600 && l->sec % 60 == 0);
        cr_assert(l->kind == 'N' || l->kind == 'C', "kind %c", l->kind);
        if (l->kind == 'C') {
            returns++;
            cr_assert_lt(l->amount, 0.0);
        } else {
            cr_assert_gt(l->amount, 0.0);
        }
        if (i > 0) { /* sorted by time; invoice numbers grow with time */
            const shop_line *p = &d.lines[i - 1];
            cr_assert(p->day < l->day || (p->day == l->day && p->sec <= l->sec), "line %zu", i);
            cr_assert_leq(p->invoice, l->invoice, "line %zu", i);
        }
    }
    cr_assert(customers >= 5500 && customers <= 6300, "customers %zu", customers);
    cr_assert(returns > 0 && returns <= d.cancels);
    cr_assert_geq(d.lines[0].invoice, SHOP_FIRST_INVOICE);
    cr_assert_lt(d.lines[d.n - 1].invoice, SHOP_FIRST_INVOICE + 100000);
    shop_free(&d);
    cr_assert_null(d.lines);
    cr_assert_eq(d.n, 0);
}

Test(shop, rebuy_share_at_2011_06_01_is_learnable_but_uncertain)
{
    char err[UT_ERRLEN] = "";
    shop_data d;
    cr_assert_eq(shop_load(gen(1, "shop.csv"), &d, err, sizeof err), 0, "%s", err);
    const int32_t cut = ut_days_from_civil(2011, 6, 1);
    static unsigned char before[1 << 20], after[1 << 20];
    memset(before, 0, sizeof before);
    memset(after, 0, sizeof after);
    for (size_t i = 0; i < d.n; i++) {
        const shop_line *l = &d.lines[i];
        if (l->kind != 'N')
            continue;
        if (l->day < cut)
            before[l->customer] = 1;
        else if (l->day < cut + 30)
            after[l->customer] = 1;
    }
    size_t base = 0, again = 0;
    for (size_t c = 0; c < sizeof before; c++) {
        base += before[c];
        again += before[c] && after[c];
    }
    double share = (double)again / (double)base;
    cr_log_info("rebuy share at 2011-06-01: %zu / %zu = %.3f", again, base, share);
    cr_assert(base > 4000, "customers before the cutoff: %zu", base);
    cr_assert(share >= 0.15 && share <= 0.40, "share %zu / %zu = %.3f", again, base, share);
    shop_free(&d);
}

/* ---------------------------------------------------------------- */
/* loader: exact values                                              */
/* ---------------------------------------------------------------- */

#define HDR SHOP_HEADER "\r\n"

Test(shop, hand_written_file_loads_with_exact_values)
{
    const char *text =
        HDR
        "489434,85048,\"15CM CHRISTMAS GLASS BALL, 20 LIGHTS\",12,2009-12-01 07:45:00,6.95,13085.0,United Kingdom\r\n"
        "489435,22350,\"CAT \"\"BOWL\"\"\",-3,12/1/2009 9:06,2.1,13085,United Kingdom\r\n"
        "489436,21523,DOORMAT,10,2009-12-01 09:06:00,5.95,,United Kingdom\r\n"
        "C489449,22087,PAPER BUNTING WHITE LACE,-12,2010-02-28 16:04:59,2.95,16321,Australia\r\n"
        "C489450,22087,PAPER BUNTING WHITE LACE,-1,2010-02-28 16:05:00,2.95,,Australia\r\n"
        "A563185,B,Adjust bad debt,1,8/12/2011 14:50,-11062.06,17001.0,United Kingdom\r\n";
    char err[UT_ERRLEN] = "";
    shop_data d;
    cr_assert_eq(shop_load(put("hand.csv", text), &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.rows, 6);
    cr_assert_eq(d.guests, 2);
    cr_assert_eq(d.cancels, 2); /* both C rows, the guest one too */
    cr_assert_eq(d.n, 4);

    const shop_line *l = d.lines;
    /* 2009-12-01 is day 14579 since 1970-01-01; 07:45 is 27900 s */
    cr_assert_eq(l[0].customer, 13085);
    cr_assert_eq(l[0].day, 14579);
    cr_assert_eq(l[0].sec, 27900);
    cr_assert_eq(l[0].invoice, 489434);
    cr_assert_eq(l[0].kind, 'N');
    cr_assert_float_eq(l[0].amount, 83.4, 1e-9);

    cr_assert_eq(l[1].customer, 13085);
    cr_assert_eq(l[1].day, 14579);
    cr_assert_eq(l[1].sec, 9 * 3600 + 6 * 60);
    cr_assert_eq(l[1].invoice, 489435);
    cr_assert_eq(l[1].kind, 'N');
    cr_assert_float_eq(l[1].amount, -6.3, 1e-9);

    /* 2010-02-28 is day 14668 */
    cr_assert_eq(l[2].customer, 16321);
    cr_assert_eq(l[2].day, 14668);
    cr_assert_eq(l[2].sec, 16 * 3600 + 4 * 60 + 59);
    cr_assert_eq(l[2].invoice, 489449);
    cr_assert_eq(l[2].kind, 'C');
    cr_assert_float_eq(l[2].amount, -35.4, 1e-9);

    /* 2011-08-12 is day 15198 */
    cr_assert_eq(l[3].customer, 17001);
    cr_assert_eq(l[3].day, 15198);
    cr_assert_eq(l[3].sec, 14 * 3600 + 50 * 60);
    cr_assert_eq(l[3].invoice, 563185);
    cr_assert_eq(l[3].kind, 'A');
    cr_assert_float_eq(l[3].amount, -11062.06, 1e-9);
    shop_free(&d);
    shop_free(&d); /* a second free is harmless */
}

Test(shop, lf_ends_bom_blank_lines_and_a_newline_inside_quotes)
{
    const char *text =
        "\xEF\xBB\xBF" SHOP_HEADER "\n"
        "489434,85048,\"TWO\nLINES\",2,2009-12-01 07:45:00,1.5,12346,France\n"
        "\n"
        "489435,85048,X,1,2009-12-02 08:00:00,0.001,12347.,France";  /* no final newline */
    char err[UT_ERRLEN] = "";
    shop_data d;
    cr_assert_eq(shop_load(put("lf.csv", text), &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.rows, 2);
    cr_assert_eq(d.n, 2);
    cr_assert_float_eq(d.lines[0].amount, 3.0, 1e-12);
    cr_assert_eq(d.lines[1].customer, 12347);
    cr_assert_eq(d.lines[1].day, 14580);
    cr_assert_float_eq(d.lines[1].amount, 0.001, 1e-15);
    shop_free(&d);
}

Test(shop, header_only_file_is_empty_not_an_error)
{
    char err[UT_ERRLEN] = "";
    shop_data d;
    cr_assert_eq(shop_load(put("empty.csv", HDR), &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.rows, 0);
    cr_assert_eq(d.n, 0);
    shop_free(&d);
}

/* ---------------------------------------------------------------- */
/* loader: malformed rows                                            */
/* ---------------------------------------------------------------- */

#define GOOD "489434,85048,GLASS BALL,12,2009-12-01 07:45:00,6.95,13085.0,United Kingdom\r\n"

/* Loading `text` fails; the message holds "<path>:<line>:" and `want`. */
static void rejects(const char *name, const char *text, int line, const char *want)
{
    char err[UT_ERRLEN] = "";
    shop_data d;
    memset(&d, 0x5a, sizeof d);
    const char *path = put(name, text);
    char where[300];
    snprintf(where, sizeof where, "%s:%d: ", path, line);
    cr_assert_eq(shop_load(path, &d, err, sizeof err), -1, "%s loaded", name);
    cr_assert_not_null(strstr(err, where), "message \"%s\" lacks \"%s\"", err, where);
    cr_assert_not_null(strstr(err, want), "message \"%s\" lacks \"%s\"", err, want);
    cr_assert_null(d.lines);
    cr_assert_eq(d.n, 0);
    cr_assert_eq(d.rows, 0);
}

Test(shop, rejects_bad_date)
{
    rejects("date.csv",
            HDR GOOD "489435,85048,X,1,2010-13-01 07:45:00,1.0,13085,France\r\n" GOOD, 3,
            "InvoiceDate \"2010-13-01 07:45:00\" is not a date");
    rejects("feb30.csv", HDR GOOD GOOD "489435,85048,X,1,2010-02-30 07:45:00,1.0,13085,France\r\n",
            4, "InvoiceDate \"2010-02-30 07:45:00\"");
    rejects("hour.csv", HDR "489435,85048,X,1,12/1/2009 24:06,1.0,13085,France\r\n", 2,
            "InvoiceDate \"12/1/2009 24:06\"");
}

Test(shop, rejects_missing_customer_column)
{
    rejects("fields.csv",
            HDR GOOD "489435,85048,X,1,2009-12-01 07:45:00,1.0,United Kingdom\r\n" GOOD, 3,
            "row has 7 fields, expected 8");
    rejects("extra.csv", HDR GOOD GOOD "489435,85048,X,1,2009-12-01 07:45:00,1.0,1,UK,9\r\n", 4,
            "row has 9 fields, expected 8");
}

Test(shop, rejects_non_number_quantity)
{
    rejects("qty.csv", HDR GOOD "489435,85048,X,12a,2009-12-01 07:45:00,1.0,13085,France\r\n", 3,
            "Quantity \"12a\" is not an integer");
    rejects("qty2.csv", HDR GOOD "489435,85048,X,1.5,2009-12-01 07:45:00,1.0,13085,France\r\n", 3,
            "Quantity \"1.5\"");
}

Test(shop, rejects_non_number_price)
{
    rejects("price.csv", HDR GOOD "489435,85048,X,1,2009-12-01 07:45:00,6.9.5,13085,France\r\n", 3,
            "Price \"6.9.5\" is not a number");
    rejects("price2.csv", HDR GOOD "489435,85048,X,1,2009-12-01 07:45:00,,13085,France\r\n", 3,
            "Price \"\" is not a number");
}

Test(shop, rejects_non_number_customer_and_bad_invoice)
{
    rejects("cust.csv", HDR GOOD "489435,85048,X,1,2009-12-01 07:45:00,1.0,13085.5,France\r\n", 3,
            "Customer ID \"13085.5\" is not an integer");
    rejects("inv.csv", HDR GOOD "48943,85048,X,1,2009-12-01 07:45:00,1.0,13085,France\r\n", 3,
            "Invoice \"48943\" is not an invoice number");
    rejects("inv2.csv", HDR GOOD "D489435,85048,X,1,2009-12-01 07:45:00,1.0,13085,France\r\n", 3,
            "Invoice \"D489435\"");
}

Test(shop, rejects_wrong_header)
{
    rejects("header.csv",
            "Invoice,StockCode,Description,Quantity,InvoiceDate,Price,CustomerID,Country\r\n" GOOD,
            1, "header \"Invoice,StockCode,Description,Quantity,InvoiceDate,Price,CustomerID,Country\"");
    rejects("nothing.csv", "", 1, "header \"\"");
}

Test(shop, rejects_unterminated_quote_at_the_line_it_opens)
{
    rejects("quote.csv",
            HDR GOOD "489435,85048,\"OPEN QUOTE,1,2009-12-01 07:45:00,1.0,13085,France\r\n" GOOD GOOD,
            3, "Description: quoted field is not terminated");
    rejects("after.csv", HDR GOOD "489435,85048,\"A\"B,1,2009-12-01 07:45:00,1.0,13085,France\r\n",
            3, "Description: text after the closing quote");
}

Test(shop, line_numbers_count_newlines_inside_quotes)
{
    rejects("nl.csv",
            HDR GOOD "489435,85048,\"TWO\r\nLINES\",1,2009-12-01 07:45:00,1.0,13085,France\r\n"
                "489436,85048,X,1,2009-12-01 07:45:00,1.0,13085,France\r\n"
                "489437,85048,X,x,2009-12-01 07:45:00,1.0,13085,France\r\n",
            6, "Quantity \"x\"");
}

Test(shop, missing_file_is_an_error_naming_it)
{
    char err[UT_ERRLEN] = "", path[256];
    shop_data d;
    snprintf(path, sizeof path, "%s/absent.csv", dir);
    cr_assert_eq(shop_load(path, &d, err, sizeof err), -1);
    cr_assert_not_null(strstr(err, path), "%s", err);
    cr_assert_null(d.lines);
}

Test(shop, generate_into_a_missing_folder_fails_and_leaves_nothing)
{
    char err[UT_ERRLEN] = "", path[256];
    snprintf(path, sizeof path, "%s/no/such/folder/shop.csv", dir);
    cr_assert_eq(shop_generate(1, path, err, sizeof err), -1);
    cr_assert_not_null(strstr(err, "shop.csv"), "%s", err);
}
