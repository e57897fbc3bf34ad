/* watch: see watch.h. */
#include "watch.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "opt.h"
#include "proc.h"
#include "rawfmt.h"
#include "util.h"

/* One "cpu..." line: its 4 to 10 counters into t. */
static int parse_counters(const char *p, watch_ticks *t)
{
    uint64_t v[10] = {0};
    int n = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    while (*p && *p != '\n' && n < 10) {
        char num[32];
        size_t k = 0;
        while (*p >= '0' && *p <= '9' && k + 1 < sizeof num)
            num[k++] = *p++;
        num[k] = 0;
        int64_t x;
        if (opt_i64(num, 0, INT64_MAX, &x, NULL, 0) != 0)
            return -1;
        v[n++] = (uint64_t)x;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p && *p != '\n' && (*p < '0' || *p > '9'))
            return -1;
    }
    if (n < 4)
        return -1;
    t->idle = v[3] + v[4];
    t->steal = v[7];
    t->total = 0;
    for (int i = 0; i < 8; i++)
        t->total += v[i];
    return 0;
}

int watch_parse(const char *text, watch_snap *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    int line = 0, have_all = 0;
    for (const char *p = text; *p; line++) {
        const char *nl = strchr(p, '\n');
        if (!strncmp(p, "cpu", 3)) {
            const char *q = p + 3;
            int cpu = -1;
            if (*q >= '0' && *q <= '9') {
                cpu = 0;
                while (*q >= '0' && *q <= '9' && cpu < WATCH_MAXCPU)
                    cpu = cpu * 10 + (*q++ - '0');
            }
            watch_ticks t;
            if (cpu >= WATCH_MAXCPU || parse_counters(q, &t) != 0) {
                ut_seterr(err, errlen, "/proc/stat: line %d: not a cpu line of 4 to 10 counters", line + 1);
                return -1;
            }
            if (cpu < 0) {
                s->all = t;
                have_all = 1;
            } else {
                s->cpu[cpu] = t;
                s->has[cpu] = 1;
                if (cpu + 1 > s->ncpu)
                    s->ncpu = cpu + 1;
            }
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    if (!have_all) {
        ut_seterr(err, errlen, "/proc/stat: no aggregate \"cpu\" line");
        return -1;
    }
    return 0;
}

int watch_read(watch_snap *s, char *err, size_t errlen)
{
    /* /proc/stat is small (a few kB even with many cores); one read. */
    char buf[65536];
    FILE *f = fopen("/proc/stat", "r");
    if (!f) {
        ut_seterr(err, errlen, "/proc/stat: cannot open: %s", strerror(errno));
        return -1;
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return watch_parse(buf, s, err, errlen);
}

static watch_ticks sub(watch_ticks a, watch_ticks b)
{
    /* counters only grow; a core taken offline and back may restart them */
    watch_ticks d = {b.total >= a.total ? b.total - a.total : 0, b.idle >= a.idle ? b.idle - a.idle : 0,
                     b.steal >= a.steal ? b.steal - a.steal : 0};
    return d;
}

watch_ticks watch_delta(const watch_snap *a, const watch_snap *b, int cpu)
{
    watch_ticks zero = {0, 0, 0};
    if (cpu < 0)
        return sub(a->all, b->all);
    if (cpu >= WATCH_MAXCPU || !a->has[cpu] || !b->has[cpu])
        return zero;
    return sub(a->cpu[cpu], b->cpu[cpu]);
}

watch_ticks watch_delta_cores(const watch_snap *a, const watch_snap *b, const unsigned char *mask)
{
    watch_ticks sum = {0, 0, 0};
    for (int c = 0; c < WATCH_MAXCPU; c++)
        if (mask[c / 8] & (1u << (c % 8))) {
            watch_ticks d = watch_delta(a, b, c);
            sum.total += d.total;
            sum.idle += d.idle;
            sum.steal += d.steal;
        }
    return sum;
}

int watch_mask_self(unsigned char mask[WATCH_MAXCPU / 8], char *err, size_t errlen)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        ut_seterr(err, errlen, "sched_getaffinity: %s", strerror(errno));
        return -1;
    }
    memset(mask, 0, WATCH_MAXCPU / 8);
    for (int c = 0; c < WATCH_MAXCPU && c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            mask[c / 8] |= (unsigned char)(1u << (c % 8));
    return 0;
}

/* The ticks of each of the run's processes now (a process gone keeps its
 * last reading: its time since counts 0). */
static void lab_ticks(const watch_log *w, uint64_t *now)
{
    for (int i = 0; i < w->npid; i++)
        if (proc_cpu_ticks(w->pid[i], &now[i]) != 0)
            now[i] = w->prev_lab[i];
}

int watch_log_start(watch_log *w, const unsigned char mask[WATCH_MAXCPU / 8], const pid_t *pids, int npid,
                    char *err, size_t errlen)
{
    unsigned char m[WATCH_MAXCPU / 8];
    pid_t p[WATCH_MAXPIDS];
    if (npid > WATCH_MAXPIDS)
        npid = WATCH_MAXPIDS;
    memcpy(m, mask, sizeof m); /* mask and pids may be w's own */
    memcpy(p, pids, (size_t)npid * sizeof *p);
    memset(w, 0, sizeof *w);
    memcpy(w->mask, m, sizeof w->mask);
    memcpy(w->pid, p, (size_t)npid * sizeof *p);
    w->npid = npid;
    lab_ticks(w, w->prev_lab);
    return watch_read(&w->prev, err, errlen);
}

static int push(watch_log *w, int64_t t, char scope, watch_ticks d, uint64_t lab)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 256;
        watch_row *nr = realloc(w->rows, cap * sizeof *nr);
        if (!nr)
            return -1;
        w->rows = nr;
        w->cap = cap;
    }
    w->rows[w->n++] = (watch_row){t, scope, d, lab};
    return 0;
}

int watch_log_sample(watch_log *w, int64_t now, char *err, size_t errlen)
{
    watch_snap s;
    uint64_t lab[WATCH_MAXPIDS] = {0}, sum = 0;
    if (watch_read(&s, err, errlen) != 0)
        return -1;
    lab_ticks(w, lab);
    for (int i = 0; i < w->npid; i++) {
        sum += lab[i] >= w->prev_lab[i] ? lab[i] - w->prev_lab[i] : 0;
        w->prev_lab[i] = lab[i];
    }
    if (push(w, now, 'A', watch_delta(&w->prev, &s, -1), sum) != 0 ||
        push(w, now, 'M', watch_delta_cores(&w->prev, &s, w->mask), sum) != 0) {
        ut_seterr(err, errlen, "watch: out of memory");
        return -1;
    }
    w->prev = s;
    return 0;
}

int watch_log_write(const watch_log *w, const char *path, char *err, size_t errlen)
{
    rawlog *lg;
    if (rawfmt_log_open(&lg, path, RAWFMT_MACHINE, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < w->n; i++) {
        const watch_row *r = &w->rows[i];
        int64_t v[RAWFMT_MACHINE_NCOLS];
        v[RAWFMT_MACHINE_t] = r->t;
        v[RAWFMT_MACHINE_scope] = r->scope;
        v[RAWFMT_MACHINE_total] = (int64_t)r->d.total;
        v[RAWFMT_MACHINE_idle] = (int64_t)r->d.idle;
        v[RAWFMT_MACHINE_steal] = (int64_t)r->d.steal;
        v[RAWFMT_MACHINE_lab] = (int64_t)r->lab;
        if (rawlog_row(lg, v) != 0) {
            ut_seterr(err, errlen, "%s: cannot buffer rows", path);
            rawlog_abort(lg);
            return -1;
        }
    }
    return rawlog_close(lg, err, errlen);
}

void watch_log_free(watch_log *w)
{
    free(w->rows);
    w->rows = NULL;
    w->n = w->cap = 0;
}

int watch_parse_pids(const char *s, pid_t *pids, int max, int *n, char *why, size_t whylen)
{
    *n = 0;
    for (const char *p = s; *p;) {
        char one[32];
        size_t len = strcspn(p, ",");
        int v;
        if (*n == max) {
            ut_seterr(why, whylen, "more than %d pids", max);
            return -1;
        }
        snprintf(one, sizeof one, "%.*s", (int)(len < 31 ? len : 31), p);
        if (opt_int(one, 1, INT32_MAX, &v, why, whylen) != 0)
            return -1;
        pids[(*n)++] = (pid_t)v;
        p += len + (p[len] == ',');
    }
    return 0;
}
