/* shop: the one loader of the shop's file (the real "Online Retail II" file
 * or the one shopgen.c generates, through the same code): every row parsed
 * whole, errors naming file, line and field.  The contract is shop.h's. */
#include "shop.h"

#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The loader                                                          */
/* ------------------------------------------------------------------ */

enum { F_INVOICE, F_STOCK, F_DESC, F_QTY, F_DATE, F_PRICE, F_CUST, F_COUNTRY, NFIELDS };
static const char *const FIELD_NAME[NFIELDS] = {
    "Invoice", "StockCode", "Description", "Quantity", "InvoiceDate", "Price",
    "Customer ID", "Country",
};

typedef struct {
    const char *s;
    size_t n;
} fld;

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Unsigned decimal of 1..maxd digits at *p (before end); advances *p. */
static int take_uint(const char **p, const char *end, int maxd, long *v)
{
    const char *s = *p;
    long x = 0;
    int n = 0;
    while (s < end && is_digit(*s) && n < maxd) {
        x = x * 10 + (*s++ - '0');
        n++;
    }
    if (n == 0 || (s < end && is_digit(*s)))
        return -1;
    *p = s;
    *v = x;
    return 0;
}

static int take_char(const char **p, const char *end, char c)
{
    if (*p < end && **p == c) {
        (*p)++;
        return 0;
    }
    return -1;
}

static int days_in_month(long y, long m)
{
    static const int D[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        return 29;
    return D[m - 1];
}

/* Exactly `nd` digits at *p; advances *p. */
static int take_fixed(const char **p, const char *end, int nd, long *v)
{
    const char *s = *p;
    if (take_uint(p, end, nd, v) != 0 || *p - s != nd)
        return -1;
    return 0;
}

/* "YYYY-MM-DD HH:MM[:SS]" or "M/D/YYYY H:MM[:SS]" (1 or 2 digits for M, D, H). */
static int parse_date(fld f, int32_t *day, int32_t *sec)
{
    const char *p = f.s, *end = f.s + f.n;
    long y, m, d, hh, mm, ss = 0;
    if (f.n >= 5 && p[4] == '-') {
        if (take_fixed(&p, end, 4, &y) || take_char(&p, end, '-') ||
            take_fixed(&p, end, 2, &m) || take_char(&p, end, '-') ||
            take_fixed(&p, end, 2, &d))
            return -1;
    } else {
        if (take_uint(&p, end, 2, &m) || take_char(&p, end, '/') ||
            take_uint(&p, end, 2, &d) || take_char(&p, end, '/') ||
            take_fixed(&p, end, 4, &y))
            return -1;
    }
    if (take_char(&p, end, ' ') || take_uint(&p, end, 2, &hh) || take_char(&p, end, ':') ||
        take_fixed(&p, end, 2, &mm))
        return -1;
    if (p < end && (take_char(&p, end, ':') || take_fixed(&p, end, 2, &ss)))
        return -1;
    if (p != end || y < 1000 || m < 1 || m > 12 || d < 1 || d > days_in_month(y, m) ||
        hh > 23 || mm > 59 || ss > 59)
        return -1;
    *day = ut_days_from_civil((int)y, (int)m, (int)d);
    *sec = (int32_t)(hh * 3600 + mm * 60 + ss);
    return 0;
}

static int parse_int32(fld f, int32_t *out)
{
    const char *p = f.s, *end = f.s + f.n;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    long v;
    if (take_uint(&p, end, 10, &v) || p != end || v > INT32_MAX)
        return -1;
    *out = (int32_t)(neg ? -v : v);
    return 0;
}

static const double POW10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* [+-]digits[.digits][e[+-]digits], at least one digit in the mantissa. */
static int parse_decimal(fld f, double *out)
{
    const char *p = f.s, *end = f.s + f.n;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    uint64_t mant = 0;
    int sig = 0, frac = 0, digits = 0; /* sig: significant digits, leading zeros skipped */
    for (; p < end && is_digit(*p); p++, digits++)
        if (mant || *p != '0') {
            if (sig++ < 19)
                mant = mant * 10 + (uint64_t)(*p - '0');
        }
    if (p < end && *p == '.')
        for (p++; p < end && is_digit(*p); p++, digits++, frac++)
            if (mant || *p != '0') {
                if (sig++ < 19)
                    mant = mant * 10 + (uint64_t)(*p - '0');
            }
    if (digits == 0)
        return -1;
    int has_exp = p < end && (*p == 'e' || *p == 'E');
    if (has_exp) {
        p++;
        if (p < end && (*p == '-' || *p == '+'))
            p++;
        const char *e0 = p;
        while (p < end && is_digit(*p))
            p++;
        if (p == e0)
            return -1;
    }
    if (p != end)
        return -1;
    if (!has_exp && sig <= 15 && frac <= 22) { /* exact: both numbers representable */
        double v = (double)mant / POW10[frac];
        *out = neg ? -v : v;
        return 0;
    }
    char tmp[64];
    if (f.n >= sizeof tmp)
        return -1;
    memcpy(tmp, f.s, f.n);
    tmp[f.n] = 0;
    *out = strtod(tmp, NULL);
    return isfinite(*out) ? 0 : -1;
}

/* Customer ID: digits, optionally followed by '.' and zeros ("13085.0"). */
static int parse_customer(fld f, int32_t *out)
{
    const char *p = f.s, *end = f.s + f.n;
    long v;
    if (take_uint(&p, end, 10, &v) || v > INT32_MAX)
        return -1;
    if (p < end && *p == '.')
        for (p++; p < end && *p == '0'; p++)
            ;
    if (p != end)
        return -1;
    *out = (int32_t)v;
    return 0;
}

/* [C|A] then exactly 6 digits. */
static int parse_invoice(fld f, char *kind, int32_t *num)
{
    const char *p = f.s, *end = f.s + f.n;
    *kind = 'N';
    if (p < end && (*p == 'C' || *p == 'A'))
        *kind = *p++;
    long v;
    if (end - p != 6 || take_uint(&p, end, 6, &v) || p != end)
        return -1;
    *num = (int32_t)v;
    return 0;
}

static void bad_field(char *err, size_t errlen, const char *path, size_t line, int fi,
                      fld f, const char *what)
{
    int n = f.n > 60 ? 60 : (int)f.n;
    ut_seterr(err, errlen, "%s:%zu: %s \"%.*s%s\" %s", path, line, FIELD_NAME[fi], n, f.s,
              f.n > 60 ? "..." : "", what);
}

/* The header line (a UTF-8 byte order mark before it is allowed); *p moves
 * past it. */
static int check_header(const char *path, char **p, char *end, char *err, size_t errlen)
{
    if (end - *p >= 3 && memcmp(*p, "\xEF\xBB\xBF", 3) == 0)
        *p += 3;
    char *eol = memchr(*p, '\n', (size_t)(end - *p));
    char *hend = eol ? eol : end;
    if (hend > *p && hend[-1] == '\r')
        hend--;
    if ((size_t)(hend - *p) != strlen(SHOP_HEADER) || memcmp(*p, SHOP_HEADER, (size_t)(hend - *p))) {
        int n = hend - *p > 100 ? 100 : (int)(hend - *p);
        ut_seterr(err, errlen, "%s:1: header \"%.*s\" is not \"%s\"", path, n, *p, SHOP_HEADER);
        return -1;
    }
    *p = eol ? eol + 1 : end;
    return 0;
}

static int at_eol(const char *p, const char *end)
{
    return *p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n');
}

/* One RFC 4180 row from *p: its fields into f (quoted ones unescaped in
 * place), their count into *nf.  *p moves past the row; *line counts the
 * newlines passed (also those inside quotes).  rline names the row. */
static int split_row(const char *path, size_t rline, char **p, char *end, size_t *line, fld f[NFIELDS], int *nf,
                     char *err, size_t errlen)
{
    *nf = 0;
    for (;;) { /* one field per pass */
        char *s, *e;
        const char *which = *nf < NFIELDS ? FIELD_NAME[*nf] : "extra field";
        if (**p == '"') { /* quoted: unescape "" in place */
            char *w = s = *p + 1, *r = *p + 1;
            for (;;) {
                if (r >= end) {
                    ut_seterr(err, errlen, "%s:%zu: %s: quoted field is not terminated", path, rline, which);
                    return -1;
                }
                if (*r == '"') {
                    if (r + 1 < end && r[1] == '"') {
                        *w++ = '"';
                        r += 2;
                        continue;
                    }
                    r++;
                    break;
                }
                if (*r == '\n')
                    (*line)++;
                *w++ = *r++;
            }
            e = w;
            *p = r;
            if (*p < end && **p != ',' && !at_eol(*p, end)) {
                ut_seterr(err, errlen, "%s:%zu: %s: text after the closing quote", path, rline, which);
                return -1;
            }
        } else {
            s = *p;
            while (*p < end && **p != ',' && !at_eol(*p, end))
                (*p)++;
            e = *p;
        }
        if (*nf < NFIELDS)
            f[*nf] = (fld){s, (size_t)(e - s)};
        (*nf)++;
        if (*p < end && **p == ',') {
            (*p)++;
            if (*p < end)
                continue;
            if (*nf < NFIELDS) /* a trailing comma at end of file: one empty field */
                f[*nf] = (fld){*p, 0};
            (*nf)++;
            return 0;
        }
        if (*p < end) { /* line end */
            *p += **p == '\r' ? 2 : 1;
            (*line)++;
        }
        return 0;
    }
}

/* The fields of one row into L; *guest when the Customer ID is empty. */
static int parse_row(const char *path, size_t rline, fld f[NFIELDS], shop_line *L, int *guest, char *err,
                     size_t errlen)
{
    int32_t qty;
    double price;
    if (parse_invoice(f[F_INVOICE], &L->kind, &L->invoice) != 0) {
        bad_field(err, errlen, path, rline, F_INVOICE, f[F_INVOICE],
                  "is not an invoice number (6 digits, optionally after C or A)");
        return -1;
    }
    if (parse_int32(f[F_QTY], &qty) != 0) {
        bad_field(err, errlen, path, rline, F_QTY, f[F_QTY], "is not an integer");
        return -1;
    }
    if (parse_date(f[F_DATE], &L->day, &L->sec) != 0) {
        bad_field(err, errlen, path, rline, F_DATE, f[F_DATE], "is not a date (YYYY-MM-DD HH:MM:SS or M/D/YYYY H:MM)");
        return -1;
    }
    if (parse_decimal(f[F_PRICE], &price) != 0) {
        bad_field(err, errlen, path, rline, F_PRICE, f[F_PRICE], "is not a number");
        return -1;
    }
    *guest = f[F_CUST].n == 0;
    if (*guest)
        return 0;
    if (parse_customer(f[F_CUST], &L->customer) != 0) {
        bad_field(err, errlen, path, rline, F_CUST, f[F_CUST], "is not an integer");
        return -1;
    }
    L->amount = qty * price;
    return 0;
}

int shop_load(const char *path, shop_data *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *buf = NULL;
    size_t len = 0;
    shop_line *lines = NULL;
    int rc = -1;
    if (ut_read_file(path, &buf, &len, err, errlen) != 0)
        return -1;
    char *p = buf, *end = buf + len;
    if (check_header(path, &p, end, err, errlen) != 0)
        goto out;
    size_t line = 2;

    /* room for every line of the file: an upper bound on the rows */
    size_t cap = 1;
    for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
        cap++;
    lines = malloc(cap * sizeof *lines);
    if (!lines) {
        ut_seterr(err, errlen, "%s: out of memory", path);
        goto out;
    }
    size_t n = 0;
    while (p < end) {
        size_t rline = line;
        if (at_eol(p, end)) { /* blank line */
            p += *p == '\r' ? 2 : 1;
            line++;
            continue;
        }
        fld f[NFIELDS];
        int nf, guest;
        if (split_row(path, rline, &p, end, &line, f, &nf, err, errlen) != 0)
            goto out;
        if (nf != NFIELDS) {
            ut_seterr(err, errlen, "%s:%zu: row has %d fields, expected %d (%s)", path, rline, nf, NFIELDS,
                      SHOP_HEADER);
            goto out;
        }
        shop_line L;
        if (parse_row(path, rline, f, &L, &guest, err, errlen) != 0)
            goto out;
        out->rows++;
        if (L.kind == 'C')
            out->cancels++;
        if (guest)
            out->guests++;
        else
            lines[n++] = L;
    }
    if (n == 0) {
        out->lines = NULL;
    } else {
        shop_line *shrunk = realloc(lines, n * sizeof *lines);
        out->lines = shrunk ? shrunk : lines;
        lines = NULL;
    }
    out->n = n;
    rc = 0;
out:
    if (rc != 0)
        memset(out, 0, sizeof *out);
    free(lines);
    free(buf);
    return rc;
}

void shop_free(shop_data *d)
{
    if (!d)
        return;
    free(d->lines);
    memset(d, 0, sizeof *d);
}
