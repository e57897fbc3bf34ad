/* arms: see arms.h. */
#include "arms.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "tsv.h"
#include "util.h"

static const char *const COLS[] = {
    "name",       "wait",       "rate",      "policy",      "try_ms",     "tries",    "pause",
    "pause_ms",   "hedge_ms",   "limit_ms",  "deadline_ms", "reserve_ms", "down",     "standin",
    "fault",      "brk_fails",  "brk_window", "brk_share",  "brk_cool_ms", "brk_probes", "store2",
    "inflight",   "bulkhead",   "rb_pct",    "rb_floor",    "hedge_p",
    "limit_pm",   "hedge2"};
enum { NCOLS = sizeof COLS / sizeof COLS[0], COL_FAULT = 14 };
/* The columns of the arms files written before the last columns were
 * added: without hedge2 (27), and without limit_pm either (26, the
 * published study's registered copy); each read with the columns it
 * predates 0. */
static const int OLDER_NCOLS[] = {NCOLS - 1, NCOLS - 2};

const char *const ARMS_PAUSE_NAMES[6] = {"none", "fixed", "jitter", "exp", "expfull", "expequal"};

static int num(const char *s, long lo, long hi, long *out)
{
    int64_t v;
    if (opt_i64(s, lo, hi, &v, NULL, 0) != 0)
        return -1;
    *out = (long)v;
    return 0;
}

/* ---- The rulebook: every rule of an arm's meaning, stated once. ---- */

#define MS 1000000LL

static int r_tries(const arm *a) { return a->tries >= 1 && a->tries <= ARMS_MAX_LOOKUPS; }
static int r_retry_limit(const arm *a) { return a->tries == 1 || a->try_ns > 0; }
static int is_exp(arm_pause p) { return p == PAUSE_EXP || p == PAUSE_EXPFULL || p == PAUSE_EXPEQUAL; }
static int r_pause_kind(const arm *a)
{
    return a->pause == PAUSE_NONE ? a->npause == 0 : a->tries > 1;
}
static int r_pause_count(const arm *a)
{
    if (is_exp(a->pause))
        return a->npause == 2 && a->pause_ns[0] > 0 && a->pause_ns[0] <= a->pause_ns[1];
    return a->pause == PAUSE_NONE || a->npause >= a->tries - 1;
}
static int has_breaker(const arm *a) { return a->brk_cool_ns > 0; }
static int r_breaker(const arm *a)
{
    if (!has_breaker(a))
        return a->brk_fails == 0 && a->brk_window == 0 && a->brk_share == 0 && a->brk_probes == 0;
    return (a->brk_fails > 0 || a->brk_window > 0) && a->brk_probes >= 1 && a->standin;
}
static int r_breaker_share(const arm *a)
{
    return a->brk_window == 0 ? a->brk_share == 0 : a->brk_share >= 1 && a->brk_share <= 100;
}
static int r_breaker_one_store(const arm *a) { return !has_breaker(a) || arms_stores(a) == 1; }
static int r_bulkhead(const arm *a) { return a->bulkhead == 0 || (a->store2 > 0 && a->inflight > 0); }
static int r_budget(const arm *a)
{
    return a->rb_pct == 0 ? a->rb_floor == 0 : a->tries > 1 && a->hedge_ns == 0;
}
static int r_adaptive(const arm *a) { return a->hedge_p == 0 || a->hedge_ns > 0; }
static int r_adaptive_limit(const arm *a) { return a->limit_pm == 0 || (a->try_ns > 0 && a->hedge_ns == 0); }
static int r_hedge2(const arm *a) { return !a->hedge2 || (a->hedge_ns > 0 && a->store2 == 0); }
static int r_hedge_alone(const arm *a) { return a->hedge_ns == 0 || a->tries == 1; }
static int r_hedge_first(const arm *a)
{
    return a->hedge_ns == 0 || ((a->try_ns == 0 || a->hedge_ns < a->try_ns) &&
                                (a->limit_ns == 0 || a->hedge_ns < a->limit_ns));
}
static int r_deadline(const arm *a) { return a->deadline_ns > 0 || (!a->down && a->reserve_ns == 0); }
static int r_reserve(const arm *a) { return a->deadline_ns == 0 || a->reserve_ns < a->deadline_ns; }
static int r_closed_loop(const arm *a) { return a->rate > 0 || a->wait == WAIT_Z; }

/* A whole number of ms after `prefix` in label, or -1. */
static long label_ms(const char *label, const char *prefix)
{
    size_t n = strlen(prefix);
    long v;
    if (strncmp(label, prefix, n) != 0 || num(label + n, 1, 600000, &v) != 0)
        return -1;
    return v;
}

/* The policy label against the columns it stands for:
 *   [brk|brkw]<core>, core one of none, tT, fbT, dl, dldown, hedge, ahedge,
 *   hedge2 (the hedge to the copy: hedge2 1), pool, bulk, rN<pause>[bud][dl], fbqQ (one try, its limit the Q-th
 *   per-mille percentile, limit_pm Q; try_ms its start), or empty after
 *   brk/brkw (one try with a limit and a stand-in).  brk: a breaker opening on failures in a row,
 *   brkw: on a failure share; pause "", b, bj, x, xf, xe (none, fixed,
 *   jitter, exp, expfull, expequal); bud: a retry budget; dl: the deadline
 *   passed down.  Every defence column is off unless the label names it. */
static int r_label(const arm *a)
{
    const char *p = a->policy;
    int brk = 0;
    if (!strncmp(p, "brkw", 4)) {
        brk = 2;
        p += 4;
    } else if (!strncmp(p, "brk", 3)) {
        brk = 1;
        p += 3;
    }
    if (brk ? !(has_breaker(a) && (brk == 1 ? a->brk_window == 0 : a->brk_fails == 0)) : has_breaker(a))
        return 0;
    int pool = !strcmp(p, "pool") || !strcmp(p, "bulk");
    if (pool != (a->store2 > 0) || (pool && a->bulkhead != (p[0] == 'b')) || (!pool && a->inflight))
        return 0;
    if ((!strcmp(p, "ahedge")) != (a->hedge_p > 0) || (!strncmp(p, "fbq", 3)) != (a->limit_pm > 0) ||
        (!strcmp(p, "hedge2")) != (a->hedge2 == 1))
        return 0;
    int one = a->tries == 1 && a->hedge_ns == 0, plain = one && a->deadline_ns == 0 && a->limit_ns == 0;
    int no_budget = a->rb_pct == 0;
    long t;
    if (!no_budget && p[0] != 'r')
        return 0;
    if (!strcmp(p, "") && brk)
        return plain && a->try_ns > 0 && a->standin;
    if (!strcmp(p, "none"))
        return plain && a->try_ns == 0 && !a->standin;
    if (!strcmp(p, "dl") || !strcmp(p, "dldown"))
        return one && a->deadline_ns > 0 && a->down == (p[2] != 0) && a->standin;
    if (!strcmp(p, "hedge") || !strcmp(p, "ahedge") || !strcmp(p, "hedge2"))
        return a->hedge_ns > 0 && a->deadline_ns == 0 && a->standin;
    if (pool)
        return plain && a->try_ns > 0 && a->standin;
    if (!strncmp(p, "fbq", 3))
        return (t = label_ms(p, "fbq")) > 0 && plain && a->limit_pm == t && a->try_ns > 0 && a->standin;
    if ((t = label_ms(p, "fb")) > 0)
        return plain && a->try_ns == t * MS && a->standin;
    if ((t = label_ms(p, "t")) > 0)
        return plain && a->try_ns == t * MS && !a->standin;
    if (p[0] == 'r' && p[1] >= '1' && p[1] <= '9') {
        static const char *const tails[] = {"", "b", "bj", "x", "xf", "xe"}; /* by arm_pause */
        char tail[16];
        snprintf(tail, sizeof tail, "%s", p + 2);
        size_t n = strlen(tail);
        int dl = n >= 2 && !strcmp(tail + n - 2, "dl");
        if (dl)
            tail[n -= 2] = 0;
        int bud = n >= 3 && !strcmp(tail + n - 3, "bud");
        if (bud)
            tail[n -= 3] = 0;
        int want = -1;
        for (int i = 0; i < 6; i++)
            if (!strcmp(tail, tails[i]))
                want = i;
        return want >= 0 && (int)a->pause == want && a->tries == p[1] - '0' + 1 && a->hedge_ns == 0 &&
               a->standin && bud == !no_budget &&
               (dl ? a->deadline_ns > 0 && a->down : a->deadline_ns == 0);
    }
    return 0;
}

/* Rates an arm name may code: <wait><code>-<policy>. */
static const struct {
    char code;
    int rate;
} RATE_CODES[] = {{'3', 300}, {'4', 450}};

/* The digits after a name's first letter (its rate or rate code). */
static size_t name_digits(const char *n)
{
    size_t d = 0;
    while (n[0] && n[1 + d] >= '0' && n[1 + d] <= '9')
        d++;
    return d;
}

int arms_stores(const arm *a) { return a->store2 > 0 || a->hedge2 ? 2 : 1; }

int arms_rate_written(const char *name)
{
    size_t d = name_digits(name);
    return d >= 2 && d <= 7 && name[1] != '0' && name[1 + d] == '-';
}

/* A name of the form <wait><rate>-<policy>[-<fault>] (H3-fb25,
 * H3-fb25-down, H550-r2) agrees with its columns (the rate: a code, 3 or
 * 4, or the requests a second written out, 2 to 7 digits without a leading
 * 0; the fault's scenario, without its window; none is left out);
 * Z-capacity names the closed loop; other names (the demo's
 * "two-retries") are free. */
static int r_name(const arm *a)
{
    const char *n = a->name;
    if (!strcmp(n, "Z-capacity"))
        return a->wait == WAIT_Z && a->rate == 0 && a->fault.kind == FAULT_NONE;
    size_t digits = name_digits(n);
    if (!n[0] || !strchr("ZFLH", n[0]) || !digits || n[1 + digits] != '-')
        return 1;
    int rate = -1;
    if (digits == 1) {
        for (size_t i = 0; i < sizeof RATE_CODES / sizeof RATE_CODES[0]; i++)
            if (RATE_CODES[i].code == n[1])
                rate = RATE_CODES[i].rate;
    } else if (digits <= 7 && n[1] != '0') {
        rate = atoi(n + 1);
    }
    char want[64];
    if (a->fault.kind == FAULT_NONE)
        snprintf(want, sizeof want, "%s", a->policy);
    else
        snprintf(want, sizeof want, "%s-%s", a->policy, fault_name(a->fault.kind));
    return (char)a->wait == n[0] && a->rate == rate && !strcmp(n + 2 + digits, want);
}

/* naming 0: what the policy code needs to run the arm at all (play checks
 * an arm built from settings against these); naming 1: how an arms file
 * names what it holds. */
static const struct {
    const char *id;
    int (*ok)(const arm *a);
    int naming;
    const char *text;
} ARMS_RULES[] = {
    {"tries", r_tries, 0, "tries is 1 to 5, the most lookups the policy holds for one request"},
    {"retry-limit", r_retry_limit, 0, "a retry (tries above 1) needs a limit per try (try_ms above 0)"},
    {"pause-kind", r_pause_kind, 0, "pause none takes pause_ms -; pause fixed or jitter needs a retry"},
    {"pause-count", r_pause_count, 0,
     "pause_ms lists one pause per retry (at least tries - 1); for exp, expfull, expequal two: base,cap with "
     "0 < base <= cap"},
    {"adaptive-limit", r_adaptive_limit, 0,
     "limit_pm needs try_ms, its starting value, and no hedge (the hedge comes before a limit that moves)"},
    {"hedge-alone", r_hedge_alone, 0, "a hedge (hedge_ms above 0) is one try: tries 1"},
    {"hedge-first", r_hedge_first, 0, "the hedge comes before the limit: hedge_ms below try_ms and limit_ms where set"},
    {"deadline", r_deadline, 0, "down 1 or reserve_ms need a deadline_ms"},
    {"reserve", r_reserve, 0, "reserve_ms is below deadline_ms"},
    {"closed-loop", r_closed_loop, 0, "rate max (the closed loop) is for wait Z only"},
    {"breaker", r_breaker, 0,
     "a breaker (brk_cool_ms above 0) opens on brk_fails or brk_window, lets brk_probes (1 or more) through, "
     "and has a stand-in; without one its other columns are 0"},
    {"breaker-share", r_breaker_share, 0, "brk_share (1 to 100) goes with brk_window, and only with it"},
    {"breaker-one-store", r_breaker_one_store, 0, "a breaker stands in front of one store: store2 and hedge2 are 0"},
    {"bulkhead", r_bulkhead, 0, "bulkhead 1 needs a second store (store2) and a limit (inflight)"},
    {"budget", r_budget, 0, "a retry budget (rb_pct above 0) needs retries (tries above 1), no hedge; rb_floor "
                            "only with rb_pct"},
    {"adaptive-hedge", r_adaptive, 0, "hedge_p needs hedge_ms, its starting value"},
    {"hedge2", r_hedge2, 0,
     "hedge2 1 (the hedge's lookup to a second store holding the whole table) needs a hedge (hedge_ms above 0) "
     "and store2 0"},
    {"label", r_label, 1,
     "the policy label matches the columns: [brk|brkw] then none, tT (try_ms T, 504), fbT (try_ms T, "
     "stand-in), fbqQ (limit_pm Q, a stand-in), dl, dldown (deadline, down 0/1), hedge, ahedge (hedge_p), hedge2 (hedge2 1), pool, bulk (store2, bulkhead 0/1), "
     "rN<pause>[bud][dl] (N retries: tries N+1; pause \"\", b, bj, x, xf, xe: none, fixed, jitter, exp, "
     "expfull, expequal; bud: rb_pct; dl: deadline passed down), or nothing after brk (one try, stand-in); "
     "brk: brk_fails, brkw: brk_window"},
    {"name", r_name, 1,
     "a name <wait><rate>-<policy>[-<fault>] matches its wait, rate (3: 300/s, 4: 450/s, or the rate written "
     "out: H550-r2 is 550/s), policy and fault scenario (left out when none)"},
};

static int check(const arm *a, int naming, char *why, size_t whylen)
{
    for (size_t i = 0; i < sizeof ARMS_RULES / sizeof ARMS_RULES[0]; i++)
        if ((naming || !ARMS_RULES[i].naming) && !ARMS_RULES[i].ok(a)) {
            ut_seterr(why, whylen, "rule %s: %s", ARMS_RULES[i].id, ARMS_RULES[i].text);
            return -1;
        }
    return 0;
}

int arms_check(const arm *a, char *why, size_t whylen) { return check(a, 1, why, whylen); }
int arms_check_policy(const arm *a, char *why, size_t whylen) { return check(a, 0, why, whylen); }

static int parse_line(char **f, arm *a, const char *path, size_t lineno, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    long v;
#define FIELD_ERR(i, why)                                                                          \
    do {                                                                                           \
        ut_seterr(err, errlen, "%s:%zu: field %s \"%s\" %s", path, lineno, COLS[i], f[i], why);     \
        return -1;                                                                                 \
    } while (0)
    if (!f[0][0] || strlen(f[0]) >= sizeof a->name)
        FIELD_ERR(0, "is empty or too long");
    snprintf(a->name, sizeof a->name, "%s", f[0]);
    if (waits_kind(f[1], &a->wait) != 0)
        FIELD_ERR(1, "is not one of Z F L H");
    if (strcmp(f[2], "max") == 0)
        a->rate = 0;
    else if (num(f[2], 1, 1000000, &v) == 0)
        a->rate = (int)v;
    else
        FIELD_ERR(2, "is not a rate (1 to 1000000, or max)");
    if (!f[3][0] || strlen(f[3]) >= sizeof a->policy)
        FIELD_ERR(3, "is empty or too long");
    snprintf(a->policy, sizeof a->policy, "%s", f[3]);
    const int ms_cols[] = {4, 8, 9, 10, 11};
    int64_t *ms_dst[] = {&a->try_ns, &a->hedge_ns, &a->limit_ns, &a->deadline_ns, &a->reserve_ns};
    for (int k = 0; k < 5; k++) {
        if (num(f[ms_cols[k]], 0, 600000, &v) != 0)
            FIELD_ERR(ms_cols[k], "is not a whole number of ms (0 to 600000)");
        *ms_dst[k] = v * 1000000LL;
    }
    if (num(f[5], 1, 99, &v) != 0)
        FIELD_ERR(5, "is not a number of tries (1 to 99)");
    a->tries = (int)v;
    a->pause = (arm_pause)-1;
    for (int k = 0; k < 6; k++)
        if (!strcmp(f[6], ARMS_PAUSE_NAMES[k]))
            a->pause = (arm_pause)k;
    if ((int)a->pause < 0)
        FIELD_ERR(6, "is not none, fixed, jitter, exp, expfull or expequal");
    if (a->pause == PAUSE_NONE) {
        if (strcmp(f[7], "-") != 0)
            FIELD_ERR(7, "must be - when pause is none");
    } else {
        char *s = f[7];
        while (*s) {
            char *comma = strchr(s, ',');
            if (comma)
                *comma = 0;
            if (a->npause == ARMS_MAXPAUSE || num(s, 0, 600000, &v) != 0)
                FIELD_ERR(7, "is not a list of up to 4 whole ms");
            a->pause_ns[a->npause++] = v * 1000000LL;
            if (!comma)
                break;
            s = comma + 1;
        }
    }
    if (num(f[12], 0, 1, &v) != 0)
        FIELD_ERR(12, "is not 0 or 1");
    a->down = (int)v;
    if (num(f[13], 0, 1, &v) != 0)
        FIELD_ERR(13, "is not 0 or 1");
    a->standin = (int)v;
    static const struct {
        int col;
        long hi;
    } INTS[] = {{15, 1000}, {16, 1000}, {17, 100}, {18, 600000}, {19, 1000},
                {20, 99},   {21, 100000}, {22, 1},  {23, 100},   {24, 100000}, {25, 99}, {26, 999}, {27, 1}};
    int *int_dst[] = {&a->brk_fails, &a->brk_window, &a->brk_share, NULL, &a->brk_probes, &a->store2,
                      &a->inflight, &a->bulkhead, &a->rb_pct, &a->rb_floor, &a->hedge_p, &a->limit_pm, &a->hedge2};
    for (size_t k = 0; k < sizeof INTS / sizeof INTS[0]; k++) {
        char range[48];
        snprintf(range, sizeof range, "is not a whole number from 0 to %ld", INTS[k].hi);
        if (num(f[INTS[k].col], 0, INTS[k].hi, &v) != 0)
            FIELD_ERR(INTS[k].col, range);
        if (int_dst[k])
            *int_dst[k] = (int)v;
        else
            a->brk_cool_ns = v * 1000000LL;
    }
    char fwhy[256];
    if (fault_parse(f[COL_FAULT], &a->fault, fwhy, sizeof fwhy) != 0) {
        ut_seterr(err, errlen, "%s:%zu: arm %s: field fault: %s", path, lineno, a->name, fwhy);
        return -1;
    }
#undef FIELD_ERR
    char why[512];
    if (arms_check(a, why, sizeof why) != 0) {
        ut_seterr(err, errlen, "%s:%zu: arm %s breaks %s", path, lineno, a->name, why);
        return -1;
    }
    return 0;
}

typedef struct {
    arm_table *t;
    size_t cap;
    int ncols; /* NCOLS, or one of OLDER_NCOLS for an older file */
} aload;

static int arm_line(void *ctx, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    (void)nf;
    aload *L = ctx;
    arm_table *t = L->t;
    if (t->n == L->cap) {
        size_t cap = L->cap ? L->cap * 2 : 32;
        arm *nv = realloc(t->v, cap * sizeof *nv);
        if (!nv) {
            ut_seterr(err, errlen, "%s: out of memory", at->path);
            return -1;
        }
        t->v = nv;
        L->cap = cap;
    }
    char *zero = "0", *g[NCOLS];
    for (int i = 0; i < NCOLS; i++)
        g[i] = i < L->ncols ? f[i] : zero; /* a column the file predates: 0 */
    if (parse_line(g, &t->v[t->n], at->path, at->line, err, errlen) != 0)
        return -1;
    if (arms_find(t, t->v[t->n].name)) {
        ut_seterr(err, errlen, "%s:%zu: arm %s is listed twice", at->path, at->line, t->v[t->n].name);
        return -1;
    }
    t->n++;
    return 0;
}

static void header_of(int ncols, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < ncols; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", COLS[i], i + 1 < ncols ? "\t" : "");
}

int arms_load(const char *path, arm_table *t, char *err, size_t errlen)
{
    t->v = NULL;
    t->n = 0;
    char header[512];
    header_of(NCOLS, header, sizeof header);
    aload L = {t, 0, NCOLS};
    tsv_spec s = {path, header, NCOLS, 0};
    int rc = tsv_read(&s, arm_line, &L, err, errlen);
    for (size_t k = 0; k < sizeof OLDER_NCOLS / sizeof OLDER_NCOLS[0] && rc != 0 && t->n == 0 &&
                       strstr(err, "the header must be");
         k++) { /* an older file?  (the error names the current header) */
        char err2[UT_ERRLEN], older[512];
        arms_free(t);
        header_of(OLDER_NCOLS[k], older, sizeof older);
        L = (aload){t, 0, OLDER_NCOLS[k]};
        tsv_spec s2 = {path, older, OLDER_NCOLS[k], 0};
        if (tsv_read(&s2, arm_line, &L, err2, sizeof err2) == 0) {
            rc = 0;
        } else if (!strstr(err2, "the header must be")) { /* it was one: its own fault is the one to name */
            ut_seterr(err, errlen, "%s", err2);
            break;
        }
    }
    if (rc != 0) {
        arms_free(t);
        return -1;
    }
    if (t->n == 0) {
        ut_seterr(err, errlen, "%s: no arms", path);
        arms_free(t);
        return -1;
    }
    return 0;
}

const arm *arms_find(const arm_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i].name, name) == 0)
            return &t->v[i];
    return NULL;
}

void arms_free(arm_table *t)
{
    free(t->v);
    t->v = NULL;
    t->n = 0;
}
