/* playrun: the play tests' toolkit (tests/lab/test_play.c and
 * tests/lab/test_playdef.c): build/bin/play run from the repository root, its
 * CSV rows read by column name, its --trace read request by request, the
 * lab tester's schedule recomputed, and the rows of the store's table.
 * Header-only (static inline), for the tests alone. */
#ifndef TESTS_PLAYRUN_H
#define TESTS_PLAYRUN_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "arrivals.h"
#include "opt.h"
#include "policy.h"
#include "util.h"

#define MS 1000000LL
#define PLAY "build/bin/play"
#define OUTMAX (1 << 24)

static inline void need_play(void)
{
    struct stat st;
    cr_assert_eq(stat(PLAY, &st), 0, PLAY " is missing: build it first (make " PLAY ")");
}

/* Run a shell command; its output (up to OUTMAX) in a malloc'd buffer. */
static inline int run(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "popen %s", cmd);
    char *buf = malloc(OUTMAX);
    cr_assert_not_null(buf);
    size_t len = fread(buf, 1, OUTMAX - 1, p);
    buf[len] = 0;
    int st = pclose(p);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* One row of `play --csv`: the columns every run has, and every column by
 * name (fig). */
#define MAXF 128
typedef struct {
    unsigned seed;
    double p99_ms, standin_share, lpr, error_share, slot_ms;
    long line, flood_from, requests, standins, errors, lookups, slot_ns;
    int flooded;
    int nf;
    char key[MAXF][40], val[MAXF][32];
} row;

static inline int row_eq(const row *x, const row *y)
{
    return x->seed == y->seed && x->p99_ms == y->p99_ms && x->standin_share == y->standin_share &&
           x->lpr == y->lpr && x->error_share == y->error_share && x->slot_ms == y->slot_ms &&
           x->line == y->line && x->flood_from == y->flood_from && x->requests == y->requests &&
           x->standins == y->standins && x->errors == y->errors && x->lookups == y->lookups &&
           x->slot_ns == y->slot_ns && x->flooded == y->flooded;
}

/* Column `name` of x as a number; NAN when empty (a null). */
static inline double fig(const row *x, const char *name)
{
    for (int i = 0; i < x->nf; i++)
        if (!strcmp(x->key[i], name)) {
            if (!x->val[i][0])
                return NAN;
            double v;
            char why[128];
            cr_assert_eq(opt_f64(x->val[i], -1e300, 1e300, &v, why, sizeof why), 0, "%s = '%s': %s", name,
                         x->val[i], why);
            return v;
        }
    cr_assert_fail("no column %s", name);
    return NAN;
}

/* A count column of x. */
static inline long cnt(const row *x, const char *name)
{
    double v = fig(x, name);
    cr_assert(!isnan(v) && v == floor(v), "%s is not a count", name);
    return (long)v;
}

/* Split `line` at commas in place: up to max fields into f; how many. */
static inline int split(char *line, char **f, int max)
{
    int k = 0;
    for (char *p = line; k < max;) {
        f[k++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = 0;
        p = c + 1;
    }
    return k;
}

/* `play ARGS --csv`: its rows (at most max); returns how many. */
static inline int play_csv(const char *args, row *r, int max)
{
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd, PLAY " %s --csv 2>/dev/null", args);
    cr_assert_eq(run(cmd, &out), 0, "%s failed", cmd);
    int n = 0, nh = 0;
    char *head[MAXF];
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        if (!strncmp(line, "seed,", 5)) {
            nh = split(line, head, MAXF);
            continue;
        }
        cr_assert_gt(nh, 13, "%s: no header line", cmd);
        cr_assert_lt(n, max, "%s: too many rows", cmd);
        row *x = &r[n++];
        char *f[MAXF];
        cr_assert_eq(split(line, f, MAXF), nh, "%s: a row without %d fields", cmd, nh);
        x->nf = nh;
        for (int i = 0; i < nh; i++) {
            snprintf(x->key[i], sizeof x->key[i], "%s", head[i]);
            snprintf(x->val[i], sizeof x->val[i], "%s", f[i]);
        }
        x->seed = (unsigned)cnt(x, "seed");
        x->p99_ms = fig(x, "p99_ms");
        x->standin_share = fig(x, "standin_share");
        x->lpr = fig(x, "lookups_per_request");
        x->line = cnt(x, "longest_line");
        x->flooded = !strcmp(f[5], "yes");
        cr_assert(x->flooded || !strcmp(f[5], "no"), "flooded is '%s'", f[5]);
        x->flood_from = f[6][0] ? cnt(x, "flood_from_s") : -1; /* empty when not flooded */
        x->error_share = fig(x, "error_share");
        x->slot_ms = fig(x, "slot_ms_per_request");
        x->requests = cnt(x, "requests");
        x->standins = cnt(x, "standins");
        x->errors = cnt(x, "errors");
        x->lookups = cnt(x, "lookups");
        x->slot_ns = cnt(x, "slot_ns");
    }
    free(out);
    return n;
}

/* One request of `play --trace`: arrival and answer (-1: none) in ns, kind
 * (L S E -), store (1 or 2), and per lookup its start (-1: not tried) and
 * end code. */
#define NL POL_MAX_LOOKUPS
typedef struct {
    long req;
    int64_t arrive, answer, start[NL];
    char kind, out[NL];
    int store;
} trace_row;

static inline int64_t num_ns(const char *s)
{
    int64_t v;
    char why[128];
    if (!s[0])
        return -1;
    cr_assert_eq(opt_i64(s, 0, INT64_MAX, &v, why, sizeof why), 0, "'%s': %s", s, why);
    return v;
}

/* `play ARGS --csv --trace` for one seed: its requests (at most max). */
static inline int play_trace(const char *args, trace_row *t, int max)
{
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd, PLAY " %s --csv --trace 2>/dev/null", args);
    cr_assert_eq(run(cmd, &out), 0, "%s failed", cmd);
    int n = 0, in = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, "by request: req,arrive_ns,answer_ns,kind,")) {
            cr_assert_eq(in, 0, "%s: one seed expected", cmd);
            in = 1;
            continue;
        }
        if (!in || strncmp(line, "# ", 2) != 0)
            continue;
        char *f[6 + 2 * NL];
        cr_assert_eq(split(line + 2, f, 6 + 2 * NL), 5 + 2 * NL, "%s: trace line '%s'", cmd, line);
        cr_assert_lt(n, max, "%s: too many requests", cmd);
        trace_row *x = &t[n++];
        x->req = (long)num_ns(f[0]);
        x->arrive = num_ns(f[1]);
        x->answer = num_ns(f[2]);
        x->kind = f[3][0];
        x->store = (int)num_ns(f[4]);
        cr_assert(x->store == 1 || x->store == 2, "%s: store '%s'", cmd, f[4]);
        for (int k = 0; k < NL; k++) {
            x->start[k] = num_ns(f[5 + 2 * k]);
            x->out[k] = f[6 + 2 * k][0];
        }
    }
    cr_assert_eq(in, 1, "%s: no trace", cmd);
    free(out);
    return n;
}

/* The tester's schedule for lab round `seed` (lab/core/arrivals.h). */
static inline size_t schedule(uint32_t seed, int rate, double seconds, int64_t **out)
{
    size_t n = 0;
    cr_assert_eq(arrivals_schedule(arrivals_seed(seed), rate, seconds, out, &n), 0);
    return n;
}

/* The rows of the store's table (the tester asks row j % rows). */
static inline uint32_t table_rows(void)
{
    FILE *f = fopen("build/prep/test.tsv", "r");
    cr_assert_not_null(f, "build/prep/test.tsv is missing: make prepare");
    uint32_t lines = 0;
    for (int ch; (ch = getc(f)) != EOF;)
        lines += ch == '\n';
    fclose(f);
    return lines - 1;
}

#endif
