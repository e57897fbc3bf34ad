/* quiet: see quiet.h. */
#include "quiet.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "rawfmt.h"
#include "tsv.h"
#include "util.h"

static const struct {
    const char *name;
    size_t off;
    double lo, hi;
} RULES[] = {
    {"steal_run_max", offsetof(quiet_limits, steal_run_max), 0, 1},
    {"steal_second_max", offsetof(quiet_limits, steal_second_max), 0, 1},
    {"late_p99_max_ms", offsetof(quiet_limits, late_p99_max_ms), 0, 60000},
    {"late_max_max_ms", offsetof(quiet_limits, late_max_max_ms), 0, 60000},
    {"other_idle_min", offsetof(quiet_limits, other_idle_min), 0, 1},
    {"foreign_second_max", offsetof(quiet_limits, foreign_second_max), 0, 1},
};
enum { NRULES = sizeof RULES / sizeof RULES[0] };

typedef struct {
    quiet_limits *q;
    int seen[NRULES];
} qload;

static int rule_line(void *ctx, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    (void)nf;
    qload *L = ctx;
    int k = 0;
    while (k < NRULES && strcmp(RULES[k].name, f[0]) != 0)
        k++;
    if (k == NRULES || L->seen[k])
        return tsv_field_err(err, errlen, at, "rule", f[0], "is %s",
                             k == NRULES ? "not a rule of a quiet run" : "listed twice");
    double v;
    char why[128];
    if (opt_f64(f[1], RULES[k].lo, RULES[k].hi, &v, why, sizeof why) != 0)
        return tsv_field_err(err, errlen, at, "limit", f[1], "of %s: %s", f[0], why);
    *(double *)((char *)L->q + RULES[k].off) = v;
    L->seen[k] = 1;
    return 0;
}

int quiet_load(const char *path, quiet_limits *q, char *err, size_t errlen)
{
    qload L = {q, {0}};
    tsv_spec s = {path, "rule\tlimit", 2, 0};
    if (tsv_read(&s, rule_line, &L, err, errlen) != 0)
        return -1;
    for (int k = 0; k < NRULES; k++)
        if (!L.seen[k]) {
            ut_seterr(err, errlen, "%s: rule %s is missing", path, RULES[k].name);
            return -1;
        }
    return 0;
}

static void reason(quiet_result *r, int rule, const char *fmt, double v, double limit)
{
    if (r->nreasons < QUIET_NREASONS) {
        r->rule[r->nreasons] = RULES[rule].name;
        snprintf(r->reasons[r->nreasons++], sizeof r->reasons[0], fmt, v, limit);
    }
}

void quiet_judge(const quiet_limits *q, const quiet_ticks *all, const quiet_ticks *meas, size_t nsec,
                 int64_t *late_ns, size_t nlate, quiet_result *out)
{
    memset(out, 0, sizeof *out);
    uint64_t tot = 0, steal = 0;
    /* the other cores' ticks: differences of two samplings, which may come
     * out a tick negative in a second (and in sum, when those cores are
     * busy): signed, or a negative idle would wrap to a huge one */
    int64_t otot = 0, oidle = 0;
    out->steal_second_max = out->foreign_second_max = nsec ? 0 : NAN;
    for (size_t i = 0; i < nsec; i++) {
        /* the measured cores' time neither idle, stolen nor the lab's own
         * (ticks are sampled, so the lab's may exceed the rest by a few) */
        const quiet_ticks *m = &meas[i];
        uint64_t used = m->total >= m->idle + m->steal ? m->total - m->idle - m->steal : 0;
        double f = m->total && used > m->lab ? (double)(used - m->lab) / (double)m->total : 0;
        if (f > out->foreign_second_max)
            out->foreign_second_max = f;
        tot += all[i].total;
        steal += all[i].steal;
        otot += (int64_t)all[i].total - (int64_t)meas[i].total;
        oidle += (int64_t)all[i].idle - (int64_t)meas[i].idle;
        double s = all[i].total ? (double)all[i].steal / (double)all[i].total : 0;
        if (s > out->steal_second_max)
            out->steal_second_max = s;
    }
    out->steal_run = tot ? (double)steal / (double)tot : NAN;
    out->other_idle = otot ? (double)oidle / (double)otot : NAN;
    if (out->other_idle < 0) /* clipped to [0, 1] (quiet.h, other_idle) */
        out->other_idle = 0;
    else if (out->other_idle > 1)
        out->other_idle = 1;
    out->late_p99_ms = out->late_max_ms = NAN;
    if (nlate) {
        ut_sort_i64(late_ns, nlate);
        out->late_p99_ms = ut_pct_sorted(late_ns, nlate, 0.99) / 1e6;
        out->late_max_ms = (double)late_ns[nlate - 1] / 1e6;
    }
    /* A rule with nothing to look at (NAN) is kept: there is no sign of a
     * disturbance, only no evidence (the figures say which).  The order is
     * the order of RULES. */
    if (out->steal_run > q->steal_run_max)
        reason(out, 0, "steal %.2f%% of the machine over the run, above %.2f%%", 100 * out->steal_run,
               100 * q->steal_run_max);
    if (out->steal_second_max > q->steal_second_max)
        reason(out, 1, "steal %.1f%% of the machine in one second, above %.1f%%", 100 * out->steal_second_max,
               100 * q->steal_second_max);
    if (out->late_p99_ms > q->late_p99_max_ms)
        reason(out, 2, "tester lateness p99 %.3f ms, above %.3f ms", out->late_p99_ms, q->late_p99_max_ms);
    if (out->late_max_ms > q->late_max_max_ms)
        reason(out, 3, "tester lateness max %.3f ms, above %.3f ms", out->late_max_ms, q->late_max_max_ms);
    if (out->other_idle < q->other_idle_min)
        reason(out, 4, "the other cores %.1f%% idle, below %.1f%%", 100 * out->other_idle,
               100 * q->other_idle_min);
    if (out->foreign_second_max > q->foreign_second_max)
        reason(out, 5, "others took %.0f%% of the measured cores in one second, above %.0f%%",
               100 * out->foreign_second_max, 100 * q->foreign_second_max);
    out->quiet = out->nreasons == 0;
}

int quiet_judge_run(const char *dir, int closed, const quiet_limits *q, quiet_result *out, char *err,
                    size_t errlen)
{
    char path[4200];
    rawfmt_file m = {0};
    size_t nlate = 0;
    quiet_ticks *all = NULL, *meas = NULL;
    int64_t *late = NULL;
    int rc = -1;
    snprintf(path, sizeof path, "%s/machine.tsv.gz", dir);
    if (rawfmt_read(path, RAWFMT_MACHINE, &m, err, errlen) != 0)
        goto done;
    size_t nsec = m.n / 2;
    all = malloc((nsec ? nsec : 1) * sizeof *all);
    meas = malloc((nsec ? nsec : 1) * sizeof *meas);
    if (!all || !meas)
        goto oom;
    for (size_t i = 0; i < m.n; i++) {
        /* rows come in pairs: A, then M (lab/RAWFORMAT.md) */
        char want = i % 2 ? 'M' : 'A';
        if (m.col[RAWFMT_MACHINE_scope][i] != want || (i % 2 && m.col[RAWFMT_MACHINE_t][i] != m.col[RAWFMT_MACHINE_t][i - 1])) {
            ut_seterr(err, errlen, "%s:%zu: scope %c expected (rows come in pairs A, M of one reading)", path,
                      i + 3, want);
            goto done;
        }
        quiet_ticks *d = i % 2 ? &meas[i / 2] : &all[i / 2];
        d->total = (uint64_t)m.col[RAWFMT_MACHINE_total][i];
        d->idle = (uint64_t)m.col[RAWFMT_MACHINE_idle][i];
        d->steal = (uint64_t)m.col[RAWFMT_MACHINE_steal][i];
        d->lab = (uint64_t)m.col[RAWFMT_MACHINE_lab][i];
    }
    if (m.n % 2) {
        ut_seterr(err, errlen, "%s: %zu rows: the last reading has no M row", path, m.n);
        goto done;
    }
    /* the tester's rows one by one: only the lateness is kept; send_us is
     * send_t - sched_t in an open loop, and the schedule is exact (lab/RAWFORMAT.md) */
    snprintf(path, sizeof path, "%s/tester.tsv.gz", dir);
    rawfmt_reader *tr;
    if (rawfmt_open(&tr, path, RAWFMT_TESTER4, err, errlen) != 0)
        goto done;
    int64_t v[RAWFMT_TESTER4_NCOLS];
    size_t cap = 0;
    int got;
    while ((got = rawfmt_next(tr, v, err, errlen)) == 1) {
        if (nlate == cap) {
            int64_t *nl = realloc(late, (cap = cap ? cap * 2 : 65536) * sizeof *nl);
            if (!nl) {
                rawfmt_close(tr);
                goto oom;
            }
            late = nl;
        }
        if (v[RAWFMT_TESTER4_send_us] != RAW_NONE) /* a request never sent has no lateness */
            late[nlate++] = closed ? 0 : v[RAWFMT_TESTER4_send_us] * 1000;
    }
    rawfmt_close(tr);
    if (got != 0)
        goto done;
    quiet_judge(q, all, meas, nsec, late, nlate, out);
    rc = 0;
    goto done;
oom:
    ut_seterr(err, errlen, "%s: out of memory", dir);
done:
    free(all);
    free(meas);
    free(late);
    rawfmt_file_free(&m);
    return rc;
}
