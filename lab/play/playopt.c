/* playopt: see playopt.h for the contract. */
#include "playopt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opt.h"
#include "storetab.h"
#include "policy.h"
#include "util.h"
#include "waits.h"

#define MS 1000000LL
#define MAX_REQUESTS 20000000.0
#define MAX_SEEDS 100000

/* One message naming the option; OPT_BAD. */
static int bad(const char *opt, const char *val, const char *why)
{
    if (val)
        ut_err("%s \"%s\": %s", opt, val, why);
    else
        ut_err("%s: %s", opt, why);
    return OPT_BAD;
}

/* The options as given.  Settings not given stay -1 (or NULL). */
typedef struct {
    const char *arm, *arms, *seeds, *table;
    double seconds;
    int csv, timeline, trace, summary;
    const char *predict, *sizing, *profile, *rounds, *oseeds, *comparisons;
    double oseconds;
    const char *wait, *pause, *pause_ms, *fault;
    int rate, retries, down, standin, slots, conns, hedge2;
    double limit_ms, hedge_ms, total_ms, deadline_ms, reserve_ms;
} opts;

/* The first NRUN options of the table are not settings: the settings given
 * are named in the first line of the output, in the order given. */
#define NRUN 16

/* ms with decimals to whole ns (the range was checked by opt_parse). */
static int64_t ms_ns(double ms) { return (int64_t)llround(ms * 1e6); }

/* "10,20": up to ARMS_MAXPAUSE times in ms into a->pause_ns; 0 or -1. */
static int parse_pauses(const char *v, arm *a)
{
    char buf[256], why[128];
    if (strlen(v) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", v);
    a->npause = 0;
    for (char *s = buf;;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = 0;
        double ms;
        if (a->npause == ARMS_MAXPAUSE || opt_f64(s, 0, 600000, &ms, why, sizeof why) != 0)
            return -1;
        a->pause_ns[a->npause++] = ms_ns(ms);
        if (!comma)
            return 0;
        s = comma + 1;
    }
}

/* One seed or the end of a range at *p: digits only, 0 to 2^32-1. */
static int seed_at(const char **p, uint64_t *v)
{
    char num[24], why[128];
    size_t k = 0;
    while (**p >= '0' && **p <= '9' && k < sizeof num - 1)
        num[k++] = *(*p)++;
    num[k] = 0;
    int64_t x;
    if (k == 0 || (**p >= '0' && **p <= '9') || opt_i64(num, 0, UINT32_MAX, &x, why, sizeof why) != 0)
        return -1;
    *v = (uint64_t)x;
    return 0;
}

int playopt_seeds(const char *s, uint32_t **out, size_t *n)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    const char *p = s;
    for (;;) {
        uint64_t a, b;
        if (seed_at(&p, &a) != 0)
            return -1;
        b = a;
        if (*p == '-') {
            p++;
            if (seed_at(&p, &b) != 0 || b < a)
                return -1;
        }
        for (uint64_t k = a; k <= b; k++) {
            if (*n >= MAX_SEEDS)
                return -1;
            if (*n == cap) {
                size_t nc = cap ? 2 * cap : 16;
                uint32_t *no = realloc(*out, nc * sizeof *no);
                if (!no)
                    return -1;
                *out = no;
                cap = nc;
            }
            (*out)[(*n)++] = (uint32_t)k;
        }
        if (*p == 0)
            return 0;
        if (*p != ',')
            return -1;
        p++;
    }
}

/* The options; the settings given, as " --name value" in the order given,
 * into extra.  OPT_OK, OPT_HELP or OPT_BAD. */
static int parse_opts(int argc, char **argv, opts *o, char *extra, size_t len)
{
    *o = (opts){.arms = "lab/arms.tsv", .table = "build/prep/test.tsv", .seconds = 30, .rounds = "1-5",
                .oseeds = "1-1000", .oseconds = 30, .comparisons = "pipeline/comparisons.tsv",
                .rate = -1, .retries = -1, .down = -1, .standin = -1, .hedge2 = -1, .slots = 16, .conns = 2,
                .limit_ms = -1, .hedge_ms = -1, .total_ms = -1, .deadline_ms = -1, .reserve_ms = -1};
    const opt_spec spec[] = {
        {"--arm", OPT_STR, &o->arm, 0, 0, "NAME[,NAME...]", "arms of --arms, changed by the settings given"},
        {"--arms", OPT_STR, &o->arms, 0, 0, "FILE", "the arms (lab/arms.tsv)"},
        {"--seconds", OPT_DBL, &o->seconds, 0, 86400, "S", "arrivals for S seconds, above 0 (30)"},
        {"--seeds", OPT_STR, &o->seeds, 0, 0, "LIST", "seeds 0 to 4294967295: 1-5, 1,3,8-10 (1-5)"},
        {"--csv", OPT_FLAG, &o->csv, 0, 0, NULL, "comma-separated, with the counts"},
        {"--timeline", OPT_FLAG, &o->timeline, 0, 0, NULL, "per second: arrivals, lookups, missed, line"},
        {"--trace", OPT_FLAG, &o->trace, 0, 0, NULL, "per request: arrival, answer, store, each lookup's start and end code"},
        {"--summary", OPT_FLAG, &o->summary, 0, 0, NULL, "no row per seed: per arm its medians, and the arms side by side"},
        {"--table", OPT_STR, &o->table, 0, 0, "FILE", "the store's table, for missing's rows and a second store's (build/prep/test.tsv)"},
        {"--predict", OPT_STR, &o->predict, 0, 0, "FILE", "predict a study into FILE (JSON, pipeline/measure/predict.h): runs, odds, sizing"},
        {"--sizing", OPT_STR, &o->sizing, 0, 0, "FILE", "the rounds each verdict needs and the odds, into FILE (Markdown)"},
        {"--profile", OPT_STR, &o->profile, 0, 0, "NAME", "--predict: the study's profile, recorded (none)"},
        {"--rounds", OPT_STR, &o->rounds, 0, 0, "LIST", "--predict: the rounds of the runs, as --seeds (1-5)"},
        {"--odds-seeds", OPT_STR, &o->oseeds, 0, 0, "LIST", "--predict, --sizing: seeds of the odds and the sizing (1-1000)"},
        {"--odds-seconds", OPT_DBL, &o->oseconds, 0, 86400, "S", "--predict, --sizing: their seconds, above 0 (30)"},
        {"--comparisons", OPT_STR, &o->comparisons, 0, 0, "FILE", "--predict, --sizing: the verdicts to size (pipeline/comparisons.tsv)"},
        {"--wait", OPT_STR, &o->wait, 0, 0, "Z|F|L|H", "wait: the store's dice (H)"},
        {"--rate", OPT_INT, &o->rate, 1, 1000000, "R", "rate: requests a second, open loop (300)"},
        {"--limit-ms", OPT_DBL, &o->limit_ms, 0, 600000, "T", "try_ms: limit on one try; 0: none (0)"},
        {"--retries", OPT_INT, &o->retries, 0, POL_MAX_LOOKUPS - 1, "0-4", "tries - 1: tries after the first (0)"},
        {"--pause", OPT_STR, &o->pause, 0, 0, "KIND", "pause: before a retry: none, fixed, jitter, exp, expfull, expequal (none)"},
        {"--pause-ms", OPT_STR, &o->pause_ms, 0, 0, "10,20", "pause_ms: pause before retry k, up to 4; exp*: base,cap (10,20; exp* 10,40)"},
        {"--hedge-ms", OPT_DBL, &o->hedge_ms, 0, 600000, "H", "hedge_ms: a second lookup after H ms; 0: none (0)"},
        {"--hedge2", OPT_BOOL, &o->hedge2, 0, 1, "0|1", "hedge2: 1, the hedge's lookup to a second store, a copy of the table (0)"},
        {"--total-ms", OPT_DBL, &o->total_ms, 0, 600000, "T", "limit_ms: limit on the whole lookup phase; 0: none (0)"},
        {"--deadline-ms", OPT_DBL, &o->deadline_ms, 0, 600000, "D", "deadline_ms: the request's deadline; 0: none (0)"},
        {"--reserve-ms", OPT_DBL, &o->reserve_ms, 0, 600000, "R", "reserve_ms: kept back from the deadline (2 with one)"},
        {"--down", OPT_BOOL, &o->down, 0, 1, "0|1", "down: 1, the budget travels to the store (0)"},
        {"--standin", OPT_BOOL, &o->standin, 0, 1, "0|1", "standin: 1, a stand-in on expiry; 0, a 504 (1)"},
        {"--slots", OPT_INT, &o->slots, 1, 65536, "N", "each store's slots (16)"},
        {"--fault", OPT_STR, &o->fault, 0, 0, "SPEC", "fault: the store's scenario, lab/core/faults.h: down, down@0.2-0.5 (none)"},
        {"--store-conns", OPT_INT, &o->conns, 1, 64, "N", "the service's connections to the store (2)"},
        {0}};
    int rc = opt_parse(argc, argv, spec,
                       "play: a deterministic simulation of the lab's store and policies (the\n"
                       "comment at the top of lab/play/play.c, and lab/README.md).  The settings, from\n"
                       "--wait on, change the arms (their arms.tsv column named first) or the\n"
                       "defaults in brackets; times in ms may have decimals (whole ns).\n"
                       "Per seed: p99_ms, standin_share, lookups_per_request, longest_line, flooded\n"
                       "(over half the requests missed 3 seconds in a row), flood_from_s,\n"
                       "error_share, slot_ms_per_request; with a fault its counts, and with a\n"
                       "window its figures (lab/play/playwin.h): before/during/after counts,\n"
                       "during_lookups_per_request, first_live_after_ms, recovered_s,\n"
                       "before_lookups_100ms and recovery_lookups_100ms_max (the stores' lookups\n"
                       "per 100 ms before the window, and the most in a tenth of the second after\n"
                       "it).  With a breaker: brk_opened, brk_half_opened, brk_closed, brk_open_ms,\n"
                       "brk_half_ms, brk_closed_ms, breaker_refused (lookups refused, O); with a\n"
                       "retry budget budget_refused (Y); with an in-flight limit inflight_refused\n"
                       "(B); with retries retries_passed (not refused by a gate); with a second\n"
                       "store storeN_requests, storeN_live_share, storeN_p99_ms (N = 1, 2; 2 the\n"
                       "healthy store) and the same for the requests arriving in the window\n"
                       "(storeN_during_...).  With --csv every column, empty where null, and the\n"
                       "arm's name last.  Several arms (--arm A,B) end with the arms side by side.",
                       NULL);
    if (rc != OPT_OK)
        return rc;
    size_t elen = 0;
    extra[0] = 0;
    for (int i = 1; i < argc; i++) { /* opt_parse has checked every one */
        const char *eq = strchr(argv[i], '=');
        size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
        int k = 0;
        while (strlen(spec[k].name) != klen || strncmp(spec[k].name, argv[i], klen) != 0)
            k++;
        if (spec[k].type == OPT_FLAG)
            continue;
        const char *v = eq ? eq + 1 : argv[++i];
        if (k >= NRUN && elen < len)
            elen += (size_t)snprintf(extra + elen, len - elen, " %.*s %s", (int)klen, spec[k].name, v);
    }
    if (!(o->seconds > 0))
        return bad("--seconds", NULL, "must be above 0");
    if (!(o->oseconds > 0))
        return bad("--odds-seconds", NULL, "must be above 0");
    if (o->predict && o->sizing)
        return bad("--predict", NULL, "and --sizing: one at a time");
    if ((o->predict || o->sizing) && (extra[0] || o->seeds || o->csv || o->timeline || o->trace || o->summary))
        return bad(o->predict ? "--predict" : "--sizing", NULL,
                   "predicts the arms as they are, over --rounds and --odds-seeds: no setting, --seeds, --csv, "
                   "--timeline, --trace or --summary");
    if (!o->seeds)
        o->seeds = "1-5";
    return OPT_OK;
}

/* A policy to simulate: the arm `base` (NULL: the defaults), the settings
 * given over it, checked.  0, or OPT_BAD after one message. */
static int make_arm(const opts *o, const arm *base, arm *a)
{
    memset(a, 0, sizeof *a);
    a->wait = WAIT_H;
    a->rate = 300;
    a->tries = 1;
    a->standin = 1;
    if (base) {
        *a = *base;
        if (a->rate == 0)
            return bad("--arm", a->name, "is closed loop (rate max); play simulates open-loop arrivals only");
    }
    if (o->wait && waits_kind(o->wait, &a->wait) != 0)
        return bad("--wait", o->wait, "is not one of Z F L H");
    if (o->rate >= 0)
        a->rate = o->rate;
    if (o->limit_ms >= 0)
        a->try_ns = ms_ns(o->limit_ms);
    if (o->retries >= 0)
        a->tries = o->retries + 1;
    if (o->pause) {
        int k = 0;
        while (k < 6 && strcmp(o->pause, ARMS_PAUSE_NAMES[k]) != 0)
            k++;
        if (k == 6)
            return bad("--pause", o->pause, "is not none, fixed, jitter, exp, expfull or expequal");
        a->pause = (arm_pause)k;
    }
    arm given = *a; /* the pauses given, if any */
    if (o->pause_ms && parse_pauses(o->pause_ms, &given) != 0)
        return bad("--pause-ms", o->pause_ms, "is not a list of up to 4 times in ms, e.g. 10,20");
    if (o->pause_ms) {
        a->npause = given.npause;
        memcpy(a->pause_ns, given.pause_ns, sizeof a->pause_ns);
    }
    if (o->pause && a->pause == PAUSE_NONE && !o->pause_ms)
        a->npause = 0;
    if (o->hedge_ms >= 0)
        a->hedge_ns = ms_ns(o->hedge_ms);
    if (o->hedge2 >= 0)
        a->hedge2 = o->hedge2;
    if (o->total_ms >= 0)
        a->limit_ns = ms_ns(o->total_ms);
    if (o->deadline_ms >= 0)
        a->deadline_ns = ms_ns(o->deadline_ms);
    if (o->reserve_ms >= 0)
        a->reserve_ns = ms_ns(o->reserve_ms);
    else if (o->deadline_ms >= 0 && !a->reserve_ns && a->deadline_ns)
        a->reserve_ns = 2 * MS; /* as in the lab's dl arms */
    if (!a->deadline_ns && o->reserve_ms < 0)
        a->reserve_ns = 0;
    if (o->down >= 0)
        a->down = o->down;
    if (o->standin >= 0)
        a->standin = o->standin;
    char why[512];
    if (o->fault && fault_parse(o->fault, &a->fault, why, sizeof why) != 0)
        return bad("--fault", o->fault, why);
    if (a->pause != PAUSE_NONE && a->npause == 0 && !o->pause_ms) { /* the lab's pauses */
        a->npause = 2;
        a->pause_ns[0] = 10 * MS;
        a->pause_ns[1] = (a->pause >= PAUSE_EXP ? 40 : 20) * MS;
    }

    /* is it a policy the lab's code can run?  (the arm rulebook, lab/core/arms.c) */
    if (a->pause == PAUSE_NONE && o->pause_ms && given.npause)
        return bad("--pause-ms", NULL, "needs a --pause other than none");
    if (arms_check_policy(a, why, sizeof why) != 0) {
        ut_err("the settings break the arm %s", why);
        return OPT_BAD;
    }
    return 0;
}

/* A label in the arms' style for settings: none, tT, fbT, dl, dldown, r2,
 * r2b, r2bj, r2x, r2xf, r2xe, hedge, hedge2; then -<fault> when the store fails
 * (H3-r2-down). */
static void label(const arm *a, char *buf, size_t len)
{
    char ms[24], pol[40];
    snprintf(ms, sizeof ms, "%.6g", (double)a->try_ns / 1e6);
    if (a->hedge_ns)
        snprintf(pol, sizeof pol, "%s", a->hedge2 ? "hedge2" : "hedge");
    else if (a->tries > 1) {
        static const char *const tails[] = {"", "b", "bj", "x", "xf", "xe"}; /* by arm_pause */
        snprintf(pol, sizeof pol, "r%d%s", a->tries - 1, tails[a->pause]);
    }
    else if (a->deadline_ns)
        snprintf(pol, sizeof pol, "%s", a->down ? "dldown" : "dl");
    else if (a->try_ns)
        snprintf(pol, sizeof pol, "%s%s", a->standin ? "fb" : "t", ms);
    else
        snprintf(pol, sizeof pol, "none");
    if (a->fault.kind == FAULT_NONE)
        snprintf(buf, len, "%s", pol);
    else
        snprintf(buf, len, "%s-%s", pol, fault_name(a->fault.kind));
}

/* The rows of the store's table, by its one reader (lab/core/storetab.h,
 * as lab/run/run.c counts them for the tester's --rows).  0, or OPT_BAD. */
static int table_rows(const char *path, uint32_t *rows)
{
    char err[UT_ERRLEN];
    if (access(path, R_OK) != 0)
        return bad("--table", path, "cannot be read (make prepare writes it); the fault missing and a second store need its rows");
    if (storetab_rows(path, rows, err, sizeof err) != 0)
        return bad("--table", path, err);
    return 0;
}


static void fmt_ms(char *buf, size_t len, int64_t ns)
{
    if (ns == 0)
        snprintf(buf, len, "off");
    else
        snprintf(buf, len, "%g ms", (double)ns / 1e6);
}

/* The defences an arm has, as ", breaker ...", or "". */
static void defences(const arm *a, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = 0;
#define ADD(...) (k += k < len ? (size_t)snprintf(buf + k, len - k, __VA_ARGS__) : 0)
    if (a->brk_cool_ns) {
        ADD(", breaker opening after ");
        if (a->brk_fails)
            ADD("%d failures in a row%s", a->brk_fails, a->brk_window ? " or " : "");
        if (a->brk_window)
            ADD("%d%% failures of the last %d", a->brk_share, a->brk_window);
        ADD(", open %g ms, %d probes", (double)a->brk_cool_ns / 1e6, a->brk_probes);
    }
    if (a->store2)
        ADD(", a second store for %d%% of the rows", a->store2);
    if (a->hedge2)
        ADD(", the hedge to a second store, a copy of the table");
    if (a->inflight)
        ADD(", %d lookups in flight %s", a->inflight, a->bulkhead ? "per store (bulkhead)" : "in all (no bulkhead)");
    if (a->rb_pct)
        ADD(", retry budget %d%% of the requests + %d a second", a->rb_pct, a->rb_floor);
    if (a->hedge_p)
        ADD(", adaptive hedge at p%d of the last %d", a->hedge_p, POL_HEDGE_WINDOW);
    if (a->limit_pm)
        ADD(", adaptive limit at p%g of the last %d answered (late ones too)", a->limit_pm / 10.0, POL_LIMIT_WINDOW);
#undef ADD
}

void playopt_describe(const playopt *o, size_t ak, int flood_run, char *buf, size_t len)
{
    const arm *a = &o->arms[ak].a;
    char t[32], h[32], l[32], d[32], r[32], p[96] = "none", f[64], fw[96] = "", def[400];
    fault_format(&a->fault, f, sizeof f);
    fault_window w = fault_window_of(&a->fault, o->seconds);
    if (w.from_ns >= 0 && w.to_ns == INT64_MAX)
        snprintf(fw, sizeof fw, " [%g ms, end)", (double)w.from_ns / 1e6);
    else if (w.from_ns >= 0)
        snprintf(fw, sizeof fw, " [%g ms, %g ms)", (double)w.from_ns / 1e6, (double)w.to_ns / 1e6);
    fmt_ms(t, sizeof t, a->try_ns);
    fmt_ms(h, sizeof h, a->hedge_ns);
    fmt_ms(l, sizeof l, a->limit_ns);
    fmt_ms(d, sizeof d, a->deadline_ns);
    fmt_ms(r, sizeof r, a->reserve_ns);
    if (a->pause == PAUSE_FIXED || a->pause == PAUSE_JITTER) {
        int k = snprintf(p, sizeof p, "%s ", a->pause == PAUSE_FIXED ? "fixed" : "jitter up to");
        for (int i = 0; i < a->npause && k < (int)sizeof p; i++)
            k += snprintf(p + k, sizeof p - (size_t)k, "%s%g", i ? "," : "", (double)a->pause_ns[i] / 1e6);
        if (k < (int)sizeof p)
            snprintf(p + k, sizeof p - (size_t)k, " ms");
    } else if (a->pause != PAUSE_NONE)
        snprintf(p, sizeof p, "%s %g ms doubling, capped at %g ms", ARMS_PAUSE_NAMES[a->pause],
                 (double)a->pause_ns[0] / 1e6, (double)a->pause_ns[1] / 1e6);
    defences(a, def, sizeof def);
    snprintf(buf, len,
             "play: %s%s: wait %c, rate %d/s, limit per try %s, retries %d, pause %s, hedge %s, "
             "total limit %s, deadline %s (reserve %s), down %d, stand-in %d%s; %d slots, fault %s%s, "
             "%d store connections; %g s, seeds %s; "
             "flooded: over half the requests got a stand-in or a 504 in %d seconds in a row",
             o->arms[ak].name, o->with, (char)a->wait, a->rate, t, a->tries - 1, p, h, l, d, r, a->down,
             a->standin, def, o->slots, f, fw, o->conns, o->seconds, o->seeds_s, flood_run);
}

/* The arms named in `list` (comma-separated) from o->arms, or the defaults
 * when list is NULL, each with the settings over it, into p->arms.  0, or
 * OPT_BAD after one message. */
static int make_arms(const opts *o, playopt *p)
{
    p->arms = calloc(PLAYOPT_MAX_ARMS, sizeof *p->arms);
    if (!p->arms) {
        ut_err("out of memory");
        return OPT_BAD;
    }
    int predict = o->predict || o->sizing;
    if (!o->arm && !predict) {
        p->narms = 1;
        return make_arm(o, NULL, &p->arms[0].a) != 0 ? OPT_BAD : 0;
    }
    arm_table T = {0};
    char err[UT_ERRLEN];
    if (arms_load(o->arms, &T, err, sizeof err) != 0) {
        ut_err("--arms: %s", err);
        return OPT_BAD;
    }
    int rc = 0;
    for (size_t i = 0; !o->arm && i < T.n && rc == 0; i++) { /* a prediction: every open-loop arm */
        if (T.v[i].rate == 0)
            continue;
        if (p->narms == PLAYOPT_MAX_ARMS)
            rc = bad("--arms", o->arms, "has more than 256 arms");
        else if (make_arm(o, &T.v[i], &p->arms[p->narms].a) != 0)
            rc = OPT_BAD;
        else
            snprintf(p->arms[p->narms++].name, sizeof p->arms[0].name, "%s", T.v[i].name);
    }
    for (const char *s = o->arm; s && rc == 0;) {
        size_t n = strcspn(s, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), s);
        const arm *f = n && n < sizeof name ? arms_find(&T, name) : NULL;
        if (!f) {
            ut_err("--arm \"%s\": no such arm in %s", name, o->arms);
            rc = OPT_BAD;
        } else if (p->narms == PLAYOPT_MAX_ARMS)
            rc = bad("--arm", NULL, "names more than 256 arms");
        else if (make_arm(o, f, &p->arms[p->narms].a) != 0)
            rc = OPT_BAD;
        else
            snprintf(p->arms[p->narms++].name, sizeof p->arms[0].name, "%s", name);
        if (!s[n])
            break;
        s += n + 1;
    }
    arms_free(&T);
    return rc;
}

int playopt_parse(int argc, char **argv, playopt *p)
{
    memset(p, 0, sizeof *p);
    opts o;
    char extra[512];
    int rc = parse_opts(argc, argv, &o, extra, sizeof extra);
    if (rc != OPT_OK)
        return rc;
    if (make_arms(&o, p) != 0) {
        playopt_free(p);
        return OPT_BAD;
    }
    if (p->narms == 0) {
        playopt_free(p);
        return bad("--arms", o.arms, "has no open-loop arm to predict");
    }
    uint32_t rows = 0;
    for (size_t k = 0; k < p->narms; k++) {
        playarm *pa = &p->arms[k];
        double longest = o.predict || o.sizing ? fmax(o.seconds, o.oseconds) : o.seconds;
        if ((double)pa->a.rate * longest > MAX_REQUESTS) {
            playopt_free(p);
            return bad("--rate", NULL, "times --seconds is above 20 million requests a seed");
        }
        pa->rows = 1;
        if (pa->a.fault.kind == FAULT_MISSING || pa->a.store2 > 0) {
            if (!rows && table_rows(o.table, &rows) != 0) {
                playopt_free(p);
                return OPT_BAD;
            }
            pa->rows = rows;
        }
        if (!o.arm && !o.predict && !o.sizing) {
            char lab[64];
            label(&pa->a, lab, sizeof lab);
            snprintf(pa->name, sizeof pa->name, "%c%d-%.40s", (char)pa->a.wait, pa->a.rate, lab);
        }
    }
    if (playopt_seeds(o.seeds, &p->seeds, &p->nseeds) != 0) {
        playopt_free(p);
        bad("--seeds", o.seeds, "is not a list of seeds 0 to 4294967295 such as 1-5 or 1,3,8-10");
        return OPT_BAD;
    }
    if (playopt_seeds(o.rounds, &p->rounds, &p->nrounds) != 0) {
        playopt_free(p);
        bad("--rounds", o.rounds, "is not a list of rounds 0 to 4294967295 such as 1-5 or 1,3");
        return OPT_BAD;
    }
    if (playopt_seeds(o.oseeds, &p->oseeds, &p->noseeds) != 0) {
        playopt_free(p);
        bad("--odds-seeds", o.oseeds, "is not a list of seeds 0 to 4294967295 such as 1-1000");
        return OPT_BAD;
    }
    p->predict = o.predict;
    p->sizing = o.sizing;
    p->profile = o.profile;
    p->comparisons = o.comparisons;
    p->rounds_s = o.rounds;
    p->oseeds_s = o.oseeds;
    p->oseconds = o.oseconds;
    p->table = o.table;
    p->arms_path = o.arms;
    p->slots = o.slots;
    p->seconds = o.seconds;
    p->csv = o.csv;
    p->timeline = o.timeline;
    p->trace = o.trace;
    p->summary = o.summary;
    p->conns = o.conns;
    p->seeds_s = o.seeds;
    if (o.arm && extra[0])
        snprintf(p->with, sizeof p->with, " with%s", extra);
    return OPT_OK;
}

void playopt_free(playopt *p)
{
    free(p->seeds);
    free(p->arms);
    free(p->rounds);
    free(p->oseeds);
    p->seeds = p->rounds = p->oseeds = NULL;
    p->arms = NULL;
    p->nseeds = p->narms = 0;
}
