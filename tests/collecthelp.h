/* collecthelp: what the collect suite's test files share (header-only):
 * hand-made raw files written through lab/rawfmt's writer, run.json, running
 * build/bin/collect against the suite's private PostgreSQL (ct_url; the run
 * folders under ct_root, both set by tests/test_collect.c's suite init) and
 * reading results.json back. */
#ifndef TESTS_COLLECTHELP_H
#define TESTS_COLLECTHELP_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "rawfmt.h"
#include "util.h"

extern char ct_url[512], ct_root[64];

static inline int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

#define S 1000000000LL
#define MS 1000000LL
#define US 1000LL
#define T0 (5 * S)

/* rows: nrows rows of the kind's columns, in lab/rawfmt.h's order. */
static inline void write_log(const char *path, rawfmt_kind kind, const int64_t *rows, size_t nvals)
{
    rawlog *r;
    char err[UT_ERRLEN];
    int ncols = rawfmt_table_of(kind)->ncols;
    cr_assert_eq(nvals % (size_t)ncols, 0, "%s: rows of %d values", path, ncols);
    cr_assert_eq(rawfmt_log_open(&r, path, kind, err, sizeof err), 0, "%s", err);
    for (size_t i = 0; i < nvals / (size_t)ncols; i++)
        rawlog_row(r, rows + i * (size_t)ncols);
    cr_assert_eq(rawlog_close(r, err, sizeof err), 0, "%s", err);
}

#define N RAW_NONE
#define NOL N, N, N /* a lookup not tried: aK_start_t, aK_end_t, aK_out absent */
/* arm_spec's columns collect reads: an arm without a defence, one try or three */
#define SPEC_T1 "{\"tries\":1,\"brk_cool_ms\":0,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":0,\"store2\":0}"
#define SPEC_T3 "{\"tries\":3,\"brk_cool_ms\":0,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":0,\"store2\":0}"
#define NOFAULT "{\"name\":\"none\",\"spec\":\"none\",\"window\":null}"

/* run.json of a hand-made run: what collect reads of it. */
static inline void write_run_json(const char *dir, const char *arm, int round, int seconds, const char *fault,
                                  int stores, const char *spec)
{
    char p[300];
    snprintf(p, sizeof p, "%s/run.json", dir);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fprintf(f,
            "{\"arm\":\"%s\",\"round\":%d,\"seconds\":%d,\"t0_ns\":%lld,\"fault\":%s,\"stores\":%d,"
            "\"arm_spec\":%s}",
            arm, round, seconds, (long long)T0, fault, stores, spec);
    fclose(f);
}

static inline int collect(char *out, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "build/bin/collect --root %s --pgurl '%s' 2>&1", ct_root, ct_url);
    FILE *p = popen(cmd, "r");
    size_t len = fread(out, 1, n - 1, p);
    out[len] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline json_t *results(void)
{
    char p[256];
    snprintf(p, sizeof p, "%s/results/results.json", ct_root);
    json_error_t je;
    json_t *r = json_load_file(p, 0, &je);
    cr_assert_not_null(r, "%s: %s", p, je.text);
    return r;
}

static inline double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    cr_assert(json_is_number(v), "%s is not a number", k);
    return json_number_value(v);
}

/* The object `field` of a run has exactly one count per code of `codes`,
 * the i-th equal to want[i]. */
static inline void check_codes(json_t *run, const char *field, const char *codes, const int *want)
{
    json_t *o = json_object_get(run, field);
    cr_assert_eq(json_object_size(o), strlen(codes), "%s: one count per code of %s", field, codes);
    for (size_t i = 0; codes[i]; i++) {
        char k[2] = {codes[i], 0};
        cr_assert_eq(num(o, k), want[i], "%s.%s: %g, by hand %d", field, k, num(o, k), want[i]);
    }
}

/* One number PostgreSQL prints for `sql` (psql -tA). */
static inline long long psql_num(const char *sql)
{
    char cmd[2048], out[64] = "";
    snprintf(cmd, sizeof cmd, "psql -tA '%s' -c \"%s\" 2>/dev/null", ct_url, sql);
    FILE *q = popen(cmd, "r");
    cr_assert_not_null(q);
    cr_assert_not_null(fgets(out, sizeof out, q), "%s", sql);
    pclose(q);
    return atoll(out);
}

#endif
