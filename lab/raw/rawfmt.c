/* rawfmt: see rawfmt.h and lab/RAWFORMAT.md. */
#include "rawfmt.h"

#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "opt.h"
#include "util.h"

/* ------------------------------------------------------------ the tables */

#define RAWFMT_COL(name, type, absent, codes) {#name, type, absent, codes},
#define RAWFMT_LOGCOL(name, type, absent, codes) {#name, type},

static const rawfmt_col TESTER[] = {RAWFMT_TESTER_COLS(RAWFMT_COL)};
static const rawfmt_col SERVICE[] = {RAWFMT_SERVICE_COLS(RAWFMT_COL)};
static const rawfmt_col STORE[] = {RAWFMT_STORE_COLS(RAWFMT_COL)};
static const rawfmt_col MACHINE[] = {RAWFMT_MACHINE_COLS(RAWFMT_COL)};
static const rawfmt_col EVENTS[] = {RAWFMT_EVENTS_COLS(RAWFMT_COL)};
static const rawfmt_col TESTER4[] = {RAWFMT_TESTER4_COLS(RAWFMT_COL)};
static const rawfmt_col SERVICE4[] = {RAWFMT_SERVICE4_COLS(RAWFMT_COL)};
static const rawfmt_col STORE4[] = {RAWFMT_STORE4_COLS(RAWFMT_COL)};
static const raw_col TESTER_LOG[] = {RAWFMT_TESTER_COLS(RAWFMT_LOGCOL)};
static const raw_col SERVICE_LOG[] = {RAWFMT_SERVICE_COLS(RAWFMT_LOGCOL)};
static const raw_col STORE_LOG[] = {RAWFMT_STORE_COLS(RAWFMT_LOGCOL)};
static const raw_col MACHINE_LOG[] = {RAWFMT_MACHINE_COLS(RAWFMT_LOGCOL)};
static const raw_col EVENTS_LOG[] = {RAWFMT_EVENTS_COLS(RAWFMT_LOGCOL)};

_Static_assert(RAWFMT_SERVICE_NCOLS <= RAW_MAXCOLS && RAWFMT_TESTER_NCOLS <= RAW_MAXCOLS &&
                   RAWFMT_STORE_NCOLS <= RAW_MAXCOLS,
               "rawlog holds at most RAW_MAXCOLS columns");

static const rawfmt_table TABLES[RAWFMT_NKINDS] = {
    {RAWFMT_TESTER, "tester", "3", TESTER, TESTER_LOG, RAWFMT_TESTER_NCOLS},
    {RAWFMT_SERVICE, "service", "3", SERVICE, SERVICE_LOG, RAWFMT_SERVICE_NCOLS},
    {RAWFMT_STORE, "store", "3", STORE, STORE_LOG, RAWFMT_STORE_NCOLS},
    {RAWFMT_MACHINE, "machine", "4", MACHINE, MACHINE_LOG, RAWFMT_MACHINE_NCOLS},
    {RAWFMT_EVENTS, "events", "4", EVENTS, EVENTS_LOG, RAWFMT_EVENTS_NCOLS},
    {RAWFMT_TESTER4, "tester", "4", TESTER4, NULL, RAWFMT_TESTER4_NCOLS},
    {RAWFMT_SERVICE4, "service", "4", SERVICE4, NULL, RAWFMT_SERVICE4_NCOLS},
    {RAWFMT_STORE4, "store", "4", STORE4, NULL, RAWFMT_STORE4_NCOLS},
};

const rawfmt_table *rawfmt_table_of(rawfmt_kind kind)
{
    return kind >= 0 && kind < RAWFMT_NKINDS ? &TABLES[kind] : NULL;
}

int rawfmt_col_index(const rawfmt_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->cols[c].name, name))
            return c;
    return -1;
}

int rawfmt_log_open(rawlog **out, const char *path, rawfmt_kind kind, char *err, size_t errlen)
{
    const rawfmt_table *t = rawfmt_table_of(kind);
    if (!t || !t->log_cols) {
        *out = NULL;
        ut_seterr(err, errlen, "%s: no raw log kind %d", path, (int)kind);
        return -1;
    }
    return rawlog_open(out, path, t->version, t->name, t->log_cols, t->ncols, err, errlen);
}

/* ------------------------------------------------------------ the reader */

/* Longer than any row the lab writes (16 columns of at most 20 characters). */
#define LINE_MAX_BYTES 4096

struct rawfmt_reader {
    gzFile gz;
    char path[4096];
    const rawfmt_table *t;
    long line;                /* lines read so far */
    int64_t acc[RAW_MAXCOLS]; /* running sums of the time columns */
    int have[RAW_MAXCOLS];    /* a time column has had a value */
    char buf[LINE_MAX_BYTES];
};

/* zlib's message without the path it puts in front. */
static const char *zmsg(rawfmt_reader *r, int *zerr)
{
    const char *msg = gzerror(r->gz, zerr);
    size_t n = strlen(r->path);
    if (*zerr == Z_ERRNO)
        return strerror(errno);
    return !strncmp(msg, r->path, n) && !strncmp(msg + n, ": ", 2) ? msg + n + 2 : msg;
}

/* The next line, its '\n' removed: 1 a line, 0 a clean end, -1 an error. */
static int read_line(rawfmt_reader *r, char *err, size_t errlen)
{
    long at = r->line + 1;
    int zerr = Z_OK;
    if (!gzgets(r->gz, r->buf, sizeof r->buf)) {
        const char *msg = zmsg(r, &zerr);
        if (zerr != Z_OK) {
            ut_seterr(err, errlen, "%s:%ld: truncated or corrupt gzip stream (%s)", r->path, at, msg);
            return -1;
        }
        return 0;
    }
    size_t len = strlen(r->buf);
    if (len == 0 || r->buf[len - 1] != '\n') {
        const char *msg = zmsg(r, &zerr);
        if (zerr != Z_OK)
            ut_seterr(err, errlen, "%s:%ld: truncated or corrupt gzip stream (%s)", r->path, at, msg);
        else if (len + 1 >= sizeof r->buf)
            ut_seterr(err, errlen, "%s:%ld: line longer than %d bytes", r->path, at, LINE_MAX_BYTES - 1);
        else
            ut_seterr(err, errlen, "%s:%ld: the last line has no end (file cut short?)", r->path, at);
        return -1;
    }
    r->buf[len - 1] = '\0';
    r->line = at;
    return 1;
}

/* Line 1: "# lab-raw <version> <kind>"; picks the table when kind is
 * RAWFMT_ANY (a version 3 tester, service or store file is a process's log,
 * a version 4 one is published). */
static int check_first(rawfmt_reader *r, rawfmt_kind kind, char *err, size_t errlen)
{
    static const char magic[] = "# lab-raw ";
    const char *ver = strncmp(r->buf, magic, sizeof magic - 1) ? NULL : r->buf + sizeof magic - 1;
    for (int k = 0; ver && k < RAWFMT_NKINDS; k++) {
        size_t vl = strlen(TABLES[k].version);
        if ((kind == RAWFMT_ANY || kind == (rawfmt_kind)k) && !strncmp(ver, TABLES[k].version, vl) &&
            ver[vl] == ' ' && !strcmp(ver + vl + 1, TABLES[k].name))
            r->t = &TABLES[k];
    }
    if (r->t)
        return 0;
    if (kind == RAWFMT_ANY)
        ut_seterr(err, errlen,
                  "%s:1: first line \"%.60s\" is not \"# lab-raw 4 tester|service|store|machine|events\" (or a "
                  "process's log, \"# lab-raw 3 tester|service|store\")",
                  r->path, r->buf);
    else
        ut_seterr(err, errlen, "%s:1: first line \"%.60s\" is not \"# lab-raw %s %s\"", r->path, r->buf,
                  TABLES[kind].version, TABLES[kind].name);
    return -1;
}

/* Line 2: exactly the table's column names. */
static int check_header(rawfmt_reader *r, char *err, size_t errlen)
{
    const rawfmt_table *t = r->t;
    char *p = r->buf;
    for (int c = 0; c < t->ncols; c++) {
        size_t n = strcspn(p, "\t");
        if (strlen(t->cols[c].name) != n || strncmp(p, t->cols[c].name, n) != 0) {
            ut_seterr(err, errlen, "%s:2: column %d is \"%.*s\", expected \"%s\" (the columns of %s.tsv.gz)",
                      r->path, c + 1, (int)(n > 40 ? 40 : n), p, t->cols[c].name, t->name);
            return -1;
        }
        p += n;
        if (c + 1 < t->ncols) {
            if (*p != '\t') {
                ut_seterr(err, errlen, "%s:2: %d column names, expected %d (the columns of %s.tsv.gz)",
                          r->path, c + 1, t->ncols, t->name);
                return -1;
            }
            p++;
        }
    }
    if (*p) {
        ut_seterr(err, errlen, "%s:2: more than the %d column names of %s.tsv.gz", r->path, t->ncols,
                  t->name);
        return -1;
    }
    return 0;
}

int rawfmt_open(rawfmt_reader **out, const char *path, rawfmt_kind kind, char *err, size_t errlen)
{
    *out = NULL;
    if (kind != RAWFMT_ANY && !rawfmt_table_of(kind)) {
        ut_seterr(err, errlen, "%s: no raw file kind %d", path, (int)kind);
        return -1;
    }
    rawfmt_reader *r = calloc(1, sizeof *r);
    if (!r) {
        ut_seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    snprintf(r->path, sizeof r->path, "%s", path);
    errno = 0;
    r->gz = gzopen(path, "rb");
    if (!r->gz) {
        ut_seterr(err, errlen, "%s: cannot open: %s", path, errno ? strerror(errno) : "out of memory");
        free(r);
        return -1;
    }
    gzbuffer(r->gz, 1 << 17);
    int rc = read_line(r, err, errlen);
    if (rc == 0)
        ut_seterr(err, errlen, "%s:1: empty file", path);
    else if (rc > 0 && gzdirect(r->gz)) {
        ut_seterr(err, errlen, "%s: not a gzip stream", path);
        rc = -1;
    }
    if (rc > 0 && check_first(r, kind, err, errlen) == 0) {
        rc = read_line(r, err, errlen);
        if (rc == 0)
            ut_seterr(err, errlen, "%s:2: no line of column names", path);
        if (rc > 0 && check_header(r, err, errlen) == 0) {
            *out = r;
            return 0;
        }
    }
    rawfmt_close(r);
    return -1;
}

/* One field of column c into *v. */
static int parse_field(rawfmt_reader *r, int c, const char *s, int64_t *v, char *err, size_t errlen)
{
    const rawfmt_col *col = &r->t->cols[c];
    char why[96] = "";
    if (!strcmp(s, "-")) {
        if (!col->absent_ok) {
            ut_seterr(err, errlen, "%s:%ld: column %s: \"-\", but %s is never absent", r->path, r->line,
                      col->name, col->name);
            return -1;
        }
        *v = RAW_NONE;
        return 0;
    }
    if (col->type == 'r' && !strcmp(s, "=")) {
        *v = RAWFMT_REF;
        return 0;
    }
    switch (col->type) {
    case 'c':
        if (!s[0] || s[1])
            snprintf(why, sizeof why, "not one character");
        else if (col->codes && !strchr(col->codes, s[0]))
            snprintf(why, sizeof why, "not one of the codes %s", col->codes);
        else
            *v = (unsigned char)s[0];
        break;
    case 'f':
    case 'r': {
        double d;
        if (opt_f64(s, -FLT_MAX, FLT_MAX, &d, why, sizeof why) == 0)
            *v = raw_f((float)d);
        break;
    }
    default: { /* 'i' and 't': decimal integers; a leading '+' is not the writer's */
        int64_t x;
        if (s[0] == '+')
            snprintf(why, sizeof why, "not an integer");
        else if (opt_i64(s, INT64_MIN + 1, INT64_MAX, &x, why, sizeof why) == 0) {
            if (col->type == 't' && r->have[c] && __builtin_add_overflow(r->acc[c], x, &x))
                snprintf(why, sizeof why, "integer overflow (the time's running sum leaves 64 bits)");
            else if (x == RAW_NONE)
                snprintf(why, sizeof why, "integer overflow (beyond 64 bits)");
            else {
                if (col->type == 't') {
                    r->acc[c] = x;
                    r->have[c] = 1;
                }
                *v = x;
            }
        }
        break;
    }
    }
    if (why[0]) {
        ut_seterr(err, errlen, "%s:%ld: column %s: \"%.40s\": %s", r->path, r->line, col->name, s, why);
        return -1;
    }
    return 0;
}

/* A tester row whose send or conn is absent is a request never sent:
 * both absent, no answer, status 0, kind E, no score (RAWFORMAT.md). */
static int check_never_sent(const rawfmt_reader *r, const int64_t *v, char *err, size_t errlen)
{
    int log = r->t->kind == RAWFMT_TESTER;
    if (!log && r->t->kind != RAWFMT_TESTER4)
        return 0;
    int cs = log ? RAWFMT_TESTER_send_t : RAWFMT_TESTER4_send_us, cc = log ? RAWFMT_TESTER_conn : RAWFMT_TESTER4_conn;
    int ca = log ? RAWFMT_TESTER_answer_t : RAWFMT_TESTER4_answer_us;
    int ct = log ? RAWFMT_TESTER_status : RAWFMT_TESTER4_status, ck = log ? RAWFMT_TESTER_kind : RAWFMT_TESTER4_kind;
    int cf = log ? RAWFMT_TESTER_score : RAWFMT_TESTER4_score;
    int no_send = v[cs] == RAW_NONE, no_conn = v[cc] == RAW_NONE;
    if (!log && v[cf] == RAWFMT_REF && v[ck] == 'E') {
        ut_seterr(err, errlen, "%s:%ld: column score: \"=\" on kind E (a request with no score has no reference)",
                  r->path, r->line);
        return -1;
    }
    if (!no_send && !no_conn)
        return 0;
    if (no_send && no_conn && v[ca] == RAW_NONE && v[ct] == 0 && v[ck] == 'E' && v[cf] == RAW_NONE)
        return 0;
    ut_seterr(err, errlen,
              "%s:%ld: column %s: \"-\" only for a request never sent (%s and conn both \"-\", %s and "
              "score \"-\", status 0, kind E)",
              r->path, r->line, no_send ? r->t->cols[cs].name : "conn", r->t->cols[cs].name, r->t->cols[ca].name);
    return -1;
}

int rawfmt_next(rawfmt_reader *r, int64_t *v, char *err, size_t errlen)
{
    int rc = read_line(r, err, errlen);
    if (rc <= 0)
        return rc;
    const int ncols = r->t->ncols;
    char *f[RAW_MAXCOLS];
    int n = 0;
    for (char *p = r->buf;; n++) {
        char *tab = strchr(p, '\t');
        if (n < ncols)
            f[n] = p;
        if (!tab) {
            n++;
            break;
        }
        *tab = '\0';
        p = tab + 1;
    }
    if (n != ncols) {
        ut_seterr(err, errlen, "%s:%ld: %d tab-separated fields, expected %d (the columns of %s.tsv.gz)",
                  r->path, r->line, n, ncols, r->t->name);
        return -1;
    }
    for (int c = 0; c < ncols; c++) {
        if (!f[c][0]) {
            ut_seterr(err, errlen, "%s:%ld: column %s: empty field", r->path, r->line, r->t->cols[c].name);
            return -1;
        }
        if (parse_field(r, c, f[c], &v[c], err, errlen) != 0)
            return -1;
    }
    return check_never_sent(r, v, err, errlen) ? -1 : 1;
}

const rawfmt_table *rawfmt_reader_table(const rawfmt_reader *r) { return r->t; }

long rawfmt_line(const rawfmt_reader *r) { return r->line; }

void rawfmt_close(rawfmt_reader *r)
{
    if (!r)
        return;
    if (r->gz)
        gzclose(r->gz);
    free(r);
}

/* ------------------------------------------------------- a whole file */

void rawfmt_file_free(rawfmt_file *f)
{
    for (int c = 0; c < RAW_MAXCOLS; c++)
        free(f->col[c]);
    memset(f, 0, sizeof *f);
}

int rawfmt_read(const char *path, rawfmt_kind kind, rawfmt_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    rawfmt_reader *r;
    if (rawfmt_open(&r, path, kind, err, errlen) != 0)
        return -1;
    out->t = r->t;
    const int ncols = r->t->ncols;
    size_t cap = 0;
    int64_t v[RAW_MAXCOLS];
    int rc;
    while ((rc = rawfmt_next(r, v, err, errlen)) == 1) {
        if (out->n == cap) {
            cap = cap ? cap * 2 : 4096;
            for (int c = 0; c < ncols; c++) {
                int64_t *a = realloc(out->col[c], cap * sizeof *a);
                if (!a) {
                    ut_seterr(err, errlen, "%s: out of memory", path);
                    rc = -1;
                    goto done;
                }
                out->col[c] = a;
            }
        }
        for (int c = 0; c < ncols; c++)
            out->col[c][out->n] = v[c];
        out->n++;
    }
done:
    rawfmt_close(r);
    if (rc != 0) {
        rawfmt_file_free(out);
        return -1;
    }
    return 0;
}
