/* predict: see predict.h for the contract. */
#include "predict.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmptab.h"
#include "playdef.h"
#include "playmap.h"
#include "playout.h"
#include "playsim.h"
#include "util.h"

#define PROF_ROUNDS_SEEN 101 /* the rounds of a verdict told apart in the paragraph: 2 .. 100 */
/* Seeds simulated together, arm after arm: each seed's dice and arrivals
 * are drawn once for every arm, and the one simulation's arrays stay in
 * the cache from seed to seed (8: 2.2 times as fast as arm after arm). */
#ifndef BLOCK
#define BLOCK 8
#endif

/* The figures of a seed that a verdict may name: RESULTS.md's names. */
enum {
    F_P99,
    F_P50,
    F_STANDIN,
    F_LPR,
    F_ERROR,
    F_SLOT_REQ,
    F_SLOT_LOOKUP,
    F_LINE,
    F_DURING_LPR,
    F_FIRST_LIVE,
    F_RECOVERED,
    F_BEFORE100,
    F_REC100MAX,
    F_LIVE,
    F_DURING_SI,
    F_DEF, /* then the defences' figures, PDEF_... */
    NFIG = F_DEF + PDEF_NFIGS
};
static const char *const FIG_NAMES[F_DEF] = {
    "p99_ms",           "p50_ms",         "standin_share",           "lookups_per_request",
    "error_share",      "slot_ms_per_request", "slot_ms_per_lookup", "longest_line",
    "during_lookups_per_request", "first_live_after_ms", "recovered_s", "before_lookups_100ms",
    "recovery_lookups_100ms_max", "live_share", "during_standin_share"};

static int fig_index(const char *name)
{
    for (int i = 0; i < F_DEF; i++)
        if (!strcmp(name, FIG_NAMES[i]))
            return i;
    for (int i = 0; i < PDEF_NFIGS; i++)
        if (!strcmp(name, PDEF_NAMES[i]))
            return F_DEF + i;
    return -1;
}

static double ratio(double x, double n) { return n > 0 ? x / n : NAN; }

/* A seed's figures (NAN: null). */
static void fig_values(const play_result *R, double v[NFIG])
{
    double m[PF_N];
    pout_seed_figures(R, m);
    v[F_P99] = R->p99_ms;
    v[F_P50] = R->p50_ms;
    v[F_STANDIN] = m[PF_STANDIN];
    v[F_LPR] = m[PF_LPR];
    v[F_ERROR] = m[PF_ERROR];
    v[F_SLOT_REQ] = m[PF_SLOT];
    v[F_SLOT_LOOKUP] = ratio((double)R->slot_ns / 1e6, (double)R->lookups);
    v[F_LINE] = (double)R->line_max;
    v[F_DURING_LPR] = m[PF_DURING_LPR];
    v[F_FIRST_LIVE] = m[PF_FIRST_LIVE];
    v[F_RECOVERED] = m[PF_RECOVERED];
    v[F_BEFORE100] = m[PF_BEFORE100];
    v[F_REC100MAX] = m[PF_REC100MAX];
    v[F_LIVE] = 1 - m[PF_STANDIN] - m[PF_ERROR]; /* every simulated request is answered: live, stand-in or error */
    /* the window's stand-ins over its requests (null without a window or a request in it) */
    v[F_DURING_SI] = R->win.on ? ratio((double)R->win.standins[PWIN_DURING], (double)R->win.requests[PWIN_DURING]) : NAN;
    for (int i = 0; i < PDEF_NFIGS; i++)
        v[F_DEF + i] = m[PF_DEF + i];
}

/* ---------------------------------------------------------- comparisons */

typedef struct {
    char a[CMPTAB_NAME], b[CMPTAB_NAME], figure[CMPTAB_NAME], *note; /* malloc'd */
    int ka, kb; /* the arms' places in the prediction; -1: not in it */
    int fig;    /* fig_index; -1: a figure play does not compute */
    /* the sizing over the odds' seeds */
    size_t pos, neg, n;
    double q, med_a, med_b;
    int rounds_90;
    size_t rounds;       /* the rounds both arms have in the plan */
    double power;        /* q^rounds */
    int decides;         /* power >= PREDICT_DECIDES */
} cmp_line;

static int arm_place(const playopt *o, const char *name)
{
    for (size_t k = 0; k < o->narms; k++)
        if (!strcmp(o->arms[k].name, name))
            return (int)k;
    return -1;
}

/* pipeline/comparisons.tsv through its one reader (lab/core/cmptab.h: "#"
 * lines are comments), each comparison placed in the prediction.  0, or 2
 * after a message naming the file and line. */
static int load_comparisons(const playopt *o, cmp_line **out, size_t *nout)
{
    char err[UT_ERRLEN];
    cmptab t;
    *out = NULL;
    *nout = 0;
    if (cmptab_load(o->comparisons, &t, err, sizeof err) != 0) {
        ut_err("--comparisons: %s", err);
        return 2;
    }
    if (t.n && !(*out = calloc(t.n, sizeof **out))) {
        ut_err("out of memory");
        cmptab_free(&t);
        return 1;
    }
    for (size_t i = 0; i < t.n; i++) {
        cmp_line *c = &(*out)[i];
        snprintf(c->a, sizeof c->a, "%s", t.v[i].a);
        snprintf(c->b, sizeof c->b, "%s", t.v[i].b);
        snprintf(c->figure, sizeof c->figure, "%s", t.v[i].figure);
        c->note = t.v[i].note; /* taken over from the table */
        t.v[i].note = NULL;
        c->ka = arm_place(o, c->a);
        c->kb = arm_place(o, c->b);
        c->fig = fig_index(c->figure);
    }
    *nout = t.n;
    cmptab_free(&t);
    return 0;
}

static int sized(const cmp_line *c) { return c->ka >= 0 && c->kb >= 0 && c->fig >= 0; }

/* ------------------------------------------------------------- the work */

typedef struct {
    const playopt *o;
    const predict_plan *p;
    cmp_line *cmp;
    size_t ncmp;
    psim *sim;               /* the simulation, of one arm after another */
    psim_seed *seedc[BLOCK]; /* the block's seeds' dice and arrivals */
    play_result *runs; /* arm k's rounds from runat[k] on */
    size_t *runat;
    /* the twin, per run as runs: replicas that flooded (-1: no twin), the stand-in shares' q05 q50 q95 */
    int *twin_flooded;
    double (*twin_q)[3];
    int *need;         /* per arm: its place among the odds' arms, or -1 */
    size_t nneed;
    double *val;       /* [need][seed][NFIG] */
    uint8_t *flood;    /* [need][seed] */
    pmap *map;         /* the map (--predict), or NULL */
    arm_table map_arms; /* its templates' file */
} work;

static int odds_claim(const playarm *pa, const char **claim, const char **event)
{
    if (pa->a.fault.kind == FAULT_NONE && pa->a.rate > 0 && (pa->a.rate != 300 || arms_rate_written(pa->name))) {
        *claim = "flood";
        *event = "flooded";
        return 1;
    }
    if (!strcmp(pa->name, PREDICT_SLOW_ARM)) {
        *claim = "slow";
        *event = "p99_over_1s";
        return 1;
    }
    return 0;
}

/* Arm k's settings; p50_ms only where a verdict names it (it costs). */
static psim_cfg cfg_of(const work *W, size_t k)
{
    const playopt *o = W->o;
    int p50 = 0;
    for (size_t i = 0; i < W->ncmp; i++)
        p50 |= sized(&W->cmp[i]) && W->cmp[i].fig == F_P50 && (W->cmp[i].ka == (int)k || W->cmp[i].kb == (int)k);
    return (psim_cfg){.a = &o->arms[k].a, .rows = o->arms[k].rows, .slots = o->slots, .conns = o->conns, .p50 = p50};
}

/* The simulation, and which arms the odds' seeds need. 0 or 1. */
static int setup(work *W)
{
    const playopt *o = W->o;
    psim_cfg first = cfg_of(W, 0);
    W->sim = psim_new(&first);
    W->need = malloc(o->narms * sizeof *W->need);
    for (int b = 0; b < BLOCK; b++)
        if (!(W->seedc[b] = psim_seed_new()))
            return 1;
    if (!W->sim || !W->need)
        return 1;
    for (size_t k = 0; k < o->narms; k++) {
        const char *c, *e;
        W->need[k] = odds_claim(&o->arms[k], &c, &e) ? 0 : -1;
    }
    for (size_t i = 0; i < W->ncmp; i++)
        if (sized(&W->cmp[i]))
            W->need[W->cmp[i].ka] = W->need[W->cmp[i].kb] = 0;
    for (size_t k = 0; k < o->narms; k++)
        if (W->need[k] >= 0)
            W->need[k] = (int)W->nneed++;
    W->val = malloc((W->nneed * o->noseeds * NFIG + 1) * sizeof *W->val);
    W->flood = malloc(W->nneed * o->noseeds + 1);
    return !W->val || !W->flood;
}

static void cleanup(work *W)
{
    psim_free(W->sim);
    for (int b = 0; b < BLOCK; b++)
        psim_seed_free(W->seedc[b]);
    free(W->runs);
    free(W->runat);
    free(W->twin_flooded);
    free(W->twin_q);
    free(W->need);
    free(W->val);
    free(W->flood);
    if (W->map) {
        pmap_free(W->map);
        free(W->map);
        arms_free(&W->map_arms);
    }
    for (size_t i = 0; i < W->ncmp; i++)
        free(W->cmp[i].note);
    free(W->cmp);
}

/* Every arm x each of its rounds, of its own seconds (predict only).  0 or 1. */
static int simulate_runs(work *W)
{
    const playopt *o = W->o;
    const predict_plan *p = W->p;
    size_t total = 0, maxr = 0;
    if (!(W->runat = malloc((o->narms + 1) * sizeof *W->runat)))
        return 1;
    for (size_t k = 0; k < o->narms; k++) {
        W->runat[k] = total;
        total += p->arm[k].nrounds;
        maxr = p->arm[k].nrounds > maxr ? p->arm[k].nrounds : maxr;
    }
    W->runs = malloc((total + 1) * sizeof *W->runs);
    if (!W->runs)
        return 1;
    /* a block of BLOCK places in the arms' round lists, every arm within it
     * (the same round is the same place in each list of a design) */
    for (size_t r0 = 0; r0 < maxr; r0 += BLOCK)
        for (size_t k = 0; k < o->narms; k++) {
            const predict_arm *pa = &p->arm[k];
            if (r0 >= pa->nrounds)
                continue;
            psim_cfg cfg = cfg_of(W, k);
            if (psim_set_arm(W->sim, &cfg) != 0)
                return 1;
            for (size_t r = r0; r < pa->nrounds && r < r0 + BLOCK; r++)
                if (psim_run(W->sim, pa->seconds, pa->rounds[r], W->seedc[r - r0], &W->runs[W->runat[k] + r]) != 0)
                    return 1;
        }
    return 0;
}

static int cmp_double(const void *x, const void *y);

/* The twin: every run of an arm whose rate the noise model has, again in
 * PREDICT_REPLICAS replicas with the machine's own time (predict.h).  0 or 1. */
static int simulate_twin(work *W)
{
    const playopt *o = W->o;
    const predict_plan *p = W->p;
    size_t total = 0;
    for (size_t k = 0; k < o->narms; k++)
        total += p->arm[k].nrounds;
    W->twin_flooded = malloc((total + 1) * sizeof *W->twin_flooded);
    W->twin_q = malloc((total + 1) * sizeof *W->twin_q);
    double *share = malloc(PREDICT_REPLICAS * sizeof *share);
    int rc = !W->twin_flooded || !W->twin_q || !share;
    for (size_t i = 0; !rc && i < total; i++)
        W->twin_flooded[i] = -1;
    for (size_t k = 0; !rc && k < o->narms; k++) {
        const noise_group *g = noise_for_rate(p->noise, o->arms[k].a.rate);
        psim_cfg cfg = cfg_of(W, k);
        if (!g || psim_set_arm(W->sim, &cfg) != 0) {
            rc = g != NULL;
            continue;
        }
        for (size_t r = 0; !rc && r < p->arm[k].nrounds; r++) {
            int fl = 0;
            for (uint32_t rep = 1; !rc && rep <= PREDICT_REPLICAS; rep++) {
                psim_noise n;
                play_result R;
                noise_replica(g, rep, &n);
                rc = psim_set_noise(W->sim, &n) != 0 ||
                     psim_run(W->sim, p->arm[k].seconds, p->arm[k].rounds[r], W->seedc[0], &R) != 0;
                fl += R.flood.flooded;
                share[rep - 1] = R.n ? (double)R.standins / (double)R.n : 0;
            }
            if (rc)
                break;
            qsort(share, PREDICT_REPLICAS, sizeof *share, cmp_double);
            size_t at = W->runat[k] + r;
            W->twin_flooded[at] = fl;
            static const double Q[3] = {0.05, 0.5, 0.95};
            for (int i = 0; i < 3; i++) {
                double h = (PREDICT_REPLICAS - 1) * Q[i];
                size_t f = (size_t)h;
                W->twin_q[at][i] = share[f] + (h - (double)f) * (share[f + 1 < PREDICT_REPLICAS ? f + 1 : f] - share[f]);
            }
        }
        if (psim_set_noise(W->sim, NULL) != 0)
            rc = 1;
    }
    free(share);
    return rc;
}

/* The arms the odds and the sizing need, over every odds seed.  0 or 1. */
static int simulate_odds(work *W)
{
    const playopt *o = W->o;
    for (size_t s0 = 0; s0 < o->noseeds; s0 += BLOCK)
        for (size_t k = 0; k < o->narms; k++) {
            psim_cfg cfg = cfg_of(W, k);
            if (W->need[k] < 0 || psim_set_arm(W->sim, &cfg) != 0) {
                if (W->need[k] < 0)
                    continue;
                return 1;
            }
            for (size_t s = s0; s < o->noseeds && s < s0 + BLOCK; s++) {
                play_result R;
                if (psim_run(W->sim, W->p->arm[k].oseconds, o->oseeds[s], W->seedc[s - s0], &R) != 0)
                    return 1;
                size_t at = (size_t)W->need[k] * o->noseeds + s;
                fig_values(&R, &W->val[at * NFIG]);
                W->flood[at] = (uint8_t)R.flood.flooded;
            }
        }
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of figure f of arm place p over the seeds (nulls left out), scratch v. */
static double median_of(const work *W, int p, int f, double *v)
{
    size_t n = 0;
    for (size_t s = 0; s < W->o->noseeds; s++) {
        double x = W->val[((size_t)p * W->o->noseeds + s) * NFIG + (size_t)f];
        if (!isnan(x))
            v[n++] = x;
    }
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Rounds in both ascending lists. */
static size_t common_rounds(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
    size_t i = 0, j = 0, n = 0;
    while (i < na && j < nb)
        if (a[i] == b[j]) {
            n++;
            i++;
            j++;
        } else if (a[i] < b[j])
            i++;
        else
            j++;
    return n;
}

/* The rounds of an arm in the plan (a predicted arm's or another of the
 * design's); 0 when the plan does not have it. */
static const uint32_t *plan_rounds(const work *W, const char *name, size_t *n)
{
    int k = arm_place(W->o, name);
    if (k >= 0) {
        *n = W->p->arm[k].nrounds;
        return W->p->arm[k].rounds;
    }
    for (size_t i = 0; i < W->p->nother; i++)
        if (!strcmp(W->p->other[i].name, name)) {
            *n = W->p->other[i].nrounds;
            return W->p->other[i].rounds;
        }
    *n = 0;
    return NULL;
}

/* The rounds both arms of a comparison have in the plan. */
static size_t rounds_of(const work *W, const cmp_line *c)
{
    size_t na, nb;
    const uint32_t *ra = plan_rounds(W, c->a, &na), *rb = plan_rounds(W, c->b, &nb);
    return ra && rb ? common_rounds(ra, na, rb, nb) : 0;
}

/* Each verdict's q, rounds, power, decides and rounds_90 (RESULTS.md's sizing). */
static int size_verdicts(work *W)
{
    const playopt *o = W->o;
    double *v = malloc((o->noseeds + 1) * sizeof *v);
    if (!v)
        return 1;
    for (size_t i = 0; i < W->ncmp; i++) {
        cmp_line *c = &W->cmp[i];
        if (!sized(c))
            continue;
        int pa = W->need[c->ka], pb = W->need[c->kb];
        c->pos = c->neg = 0;
        c->n = o->noseeds;
        for (size_t s = 0; s < o->noseeds; s++) {
            double d = W->val[((size_t)pa * o->noseeds + s) * NFIG + (size_t)c->fig] -
                       W->val[((size_t)pb * o->noseeds + s) * NFIG + (size_t)c->fig];
            c->pos += d > 0; /* a null (NAN) is neither: it counts against */
            c->neg += d < 0;
        }
        c->q = c->n ? (double)(c->pos > c->neg ? c->pos : c->neg) / (double)c->n : 0;
        c->rounds_90 = 0;
        for (int r = 2; r <= PREDICT_MAX_ROUNDS_90 && pow(c->q, r) >= 0.9; r++)
            c->rounds_90 = r;
        c->rounds = rounds_of(W, c);
        c->power = pow(c->q, (double)c->rounds);
        c->decides = c->power >= PREDICT_DECIDES;
        c->med_a = median_of(W, pa, c->fig, v);
        c->med_b = median_of(W, pb, c->fig, v);
    }
    free(v);
    return 0;
}

/* The seeds of arm k on which its odds' event happened. */
static size_t odds_k(const work *W, size_t k, const char *event)
{
    size_t hits = 0, p = (size_t)W->need[k];
    for (size_t s = 0; s < W->o->noseeds; s++)
        hits += !strcmp(event, "flooded") ? W->flood[p * W->o->noseeds + s]
                                           : W->val[(p * W->o->noseeds + s) * NFIG + F_P99] > 1000.0;
    return hits;
}

/* ------------------------------------------------------------- the JSON */

static json_t *num(double x)
{
    if (isnan(x))
        return json_null();
    if (x == floor(x) && fabs(x) < 1e15)
        return json_integer((json_int_t)x);
    return json_real(x);
}

static json_t *list_of(const uint32_t *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

static json_t *twin_json(const work *W, size_t at)
{
    if (!W->twin_flooded || W->twin_flooded[at] < 0)
        return json_null();
    json_t *e = json_object(), *q = json_array();
    json_object_set_new(e, "replicas", json_integer(PREDICT_REPLICAS));
    json_object_set_new(e, "flooded", json_integer(W->twin_flooded[at]));
    json_object_set_new(e, "p_flood", json_real((double)W->twin_flooded[at] / PREDICT_REPLICAS));
    for (int i = 0; i < 3; i++)
        json_array_append_new(q, json_real(W->twin_q[at][i]));
    json_object_set_new(e, "standin_share_q", q);
    return e;
}

static json_t *run_json(const play_result *R, double seconds)
{
    json_t *e = json_object();
    double n = (double)R->n;
    json_object_set_new(e, "seconds", num(seconds));
    json_object_set_new(e, "p99_ms", isnan(R->p99_ms) ? json_null() : json_real(R->p99_ms));
    json_object_set_new(e, "standin_share", n ? json_real((double)R->standins / n) : json_null());
    json_object_set_new(e, "lookups_per_request", n ? json_real((double)R->lookups / n) : json_null());
    json_object_set_new(e, "flooded", json_boolean(R->flood.flooded));
    json_object_set_new(e, "flood_from_s", R->flood.flooded ? json_integer(R->flood.from_s) : json_null());
    return e;
}

/* RESULTS.md's p_seen: the chance, by the seed-averaged odds, of the event
 * at least once in the planned rounds. */
static double p_seen(size_t k, size_t n, size_t rounds)
{
    return n ? 1.0 - pow(1.0 - (double)k / (double)n, (double)rounds) : NAN;
}

/* ------------------------------------------------------------- the map */

/* The map (lab/play/playmap.h) over the odds' seeds, its templates from
 * --arms.  0, or 1 with the reason printed. */
static int simulate_map(work *W)
{
    char err[UT_ERRLEN];
    if (arms_load(W->o->arms_path, &W->map_arms, err, sizeof err) != 0) {
        ut_err("%s", err);
        return 1;
    }
    if (!(W->map = calloc(1, sizeof *W->map))) {
        ut_err("out of memory");
        return 1;
    }
    *W->map = (pmap){.seeds = W->o->oseeds, .nseeds = W->o->noseeds, .seconds = PMAP_SECONDS,
                     .slots = W->o->slots, .conns = W->o->conns, .threads = PREDICT_MAP_THREADS};
    if (pmap_setup(W->map, &W->map_arms, NULL, err, sizeof err) != 0) {
        ut_err("%s: %s", W->o->arms_path, err);
        return 1;
    }
    if (pmap_run(W->map) != 0) {
        ut_err("out of memory");
        return 1;
    }
    return 0;
}

/* Arm a is template t at a rate of the map's loads: every column but the
 * name and the rate equal. */
static int is_policy_at(const arm *a, const arm *t, const pmap *m)
{
    int on = 0;
    for (size_t l = 0; l < m->nloads; l++)
        on |= a->rate == m->loads[l];
    arm x = *a;
    x.rate = t->rate;
    memcpy(x.name, t->name, sizeof x.name);
    return on && !memcmp(&x, t, sizeof x);
}

/* The prediction's `map` (pipeline/RESULTS.md): the map, and per policy the
 * arms of the prediction with a flood claim that are it at a load. */
static json_t *map_json(const work *W)
{
    const playopt *o = W->o;
    json_t *m = pmap_json(W->map, o->oseeds_s), *pols = json_object_get(m, "policies");
    for (size_t p = 0; p < W->map->npol; p++) {
        json_t *arms = json_array();
        for (size_t k = 0; k < o->narms; k++) {
            const char *c, *e;
            if (odds_claim(&o->arms[k], &c, &e) && !strcmp(c, "flood") &&
                is_policy_at(&o->arms[k].a, W->map->tmpl[p], W->map)) {
                json_t *x = json_object();
                json_object_set_new(x, "arm", json_string(o->arms[k].name));
                json_object_set_new(x, "load", json_integer(o->arms[k].a.rate));
                json_array_append_new(arms, x);
            }
        }
        json_object_set_new(json_array_get(pols, p), "arms", arms);
    }
    return m;
}

static json_t *prediction_json(const work *W)
{
    const playopt *o = W->o;
    const predict_plan *p = W->p;
    json_t *root = json_object(), *runs = json_object(), *odds = json_array(), *sizing = json_array();
    json_object_set_new(root, "format", json_string(PREDICT_FORMAT));
    json_object_set_new(root, "profile", o->profile ? json_string(o->profile) : json_null());
    json_object_set_new(root, "rounds", list_of(p->rounds, p->nrounds));
    if (p->noise) {
        json_t *n = json_object();
        json_object_set_new(n, "path", json_string(p->noise_path));
        json_object_set_new(n, "sha256", json_string(p->noise_sha256));
        json_object_set_new(n, "replicas", json_integer(PREDICT_REPLICAS));
        json_object_set_new(root, "noise", n);
    } else {
        json_object_set_new(root, "noise", json_null());
    }
    for (size_t k = 0; k < o->narms; k++)
        for (size_t r = 0; r < p->arm[k].nrounds; r++) {
            char name[96];
            snprintf(name, sizeof name, "%s-r%" PRIu32, o->arms[k].name, p->arm[k].rounds[r]);
            json_t *e = run_json(&W->runs[W->runat[k] + r], p->arm[k].seconds);
            json_object_set_new(e, "twin", twin_json(W, W->runat[k] + r));
            json_object_set_new(runs, name, e);
        }
    for (size_t k = 0; k < o->narms; k++) {
        const char *claim, *event;
        if (!odds_claim(&o->arms[k], &claim, &event))
            continue;
        size_t hits = odds_k(W, k, event);
        json_t *e = json_object();
        json_object_set_new(e, "claim", json_string(claim));
        json_object_set_new(e, "arm", json_string(o->arms[k].name));
        json_object_set_new(e, "event", json_string(event));
        json_object_set_new(e, "seconds", num(p->arm[k].oseconds));
        json_object_set_new(e, "seeds", json_string(o->oseeds_s));
        json_object_set_new(e, "sim_k", json_integer((json_int_t)hits));
        json_object_set_new(e, "sim_n", json_integer((json_int_t)o->noseeds));
        json_object_set_new(e, "planned_rounds", json_integer((json_int_t)p->arm[k].nrounds));
        json_object_set_new(e, "p_seen", num(p_seen(hits, o->noseeds, p->arm[k].nrounds)));
        json_array_append_new(odds, e);
    }
    for (size_t i = 0; i < W->ncmp; i++) {
        const cmp_line *c = &W->cmp[i];
        if (!sized(c))
            continue;
        json_t *e = json_object();
        json_object_set_new(e, "a", json_string(c->a));
        json_object_set_new(e, "b", json_string(c->b));
        json_object_set_new(e, "figure", json_string(c->figure));
        json_object_set_new(e, "seeds", json_string(o->oseeds_s));
        json_object_set_new(e, "seconds_a", num(p->arm[c->ka].oseconds));
        json_object_set_new(e, "seconds_b", num(p->arm[c->kb].oseconds));
        json_object_set_new(e, "q", json_real(c->q));
        json_object_set_new(e, "rounds", json_integer((json_int_t)c->rounds));
        json_object_set_new(e, "power", json_real(c->power));
        json_object_set_new(e, "rounds_90", json_integer(c->rounds_90));
        json_object_set_new(e, "decides", json_boolean(c->decides));
        json_array_append_new(sizing, e);
    }
    json_object_set_new(root, "runs", runs);
    json_object_set_new(root, "odds", odds);
    json_object_set_new(root, "sizing", sizing);
    if (W->map)
        json_object_set_new(root, "map", map_json(W));
    return root;
}

static int write_json(const char *path, json_t *root)
{
    ut_afile a;
    char err[UT_ERRLEN];
    if (ut_aopen(&a, path, err, sizeof err) != 0) {
        ut_err("--predict: %s", err);
        return 1;
    }
    int bad = json_dumpf(root, a.f, JSON_INDENT(1)) != 0 || fputc('\n', a.f) == EOF;
    if (ut_aclose(&a, !bad, err, sizeof err) != 0 || bad) {
        ut_err("--predict: %s: %s", path, bad ? "cannot be written" : err);
        return 1;
    }
    return 0;
}

/* --------------------------------------------------------- the Markdown */

static void md_num(FILE *f, double x, const char *fmt)
{
    if (isnan(x))
        fputs("–", f);
    else
        fprintf(f, fmt, x);
}

/* RESULTS.md's false_positive_rate of a verdict over n rounds: 2 * 0.5^n, NAN below 2. */
static double fpr(size_t n) { return n >= 2 ? 2.0 * pow(0.5, (double)n) : NAN; }

/* The smallest N (1 .. 10000) with 1 - (1 - p)^N >= PREDICT_SEEN; 0 when none. */
static int rounds_to_see(double p)
{
    for (int n = 1; n <= 10000; n++)
        if (1.0 - pow(1.0 - p, n) >= PREDICT_SEEN)
            return n;
    return 0;
}

/* The paragraph at the top: the rule, its error rate, the family's
 * expected chance verdicts, and how the flood group's rounds were chosen;
 * every figure computed here from the plan and the simulation. */
static void md_head(const work *W, FILE *f)
{
    const playopt *o = W->o;
    const predict_plan *p = W->p;
    /* the rule's false-positive rate at each number of rounds the verdicts have */
    int seen[PROF_ROUNDS_SEEN] = {0};
    size_t with = 0;
    double expected = 0;
    for (size_t i = 0; i < W->ncmp; i++) {
        size_t n = rounds_of(W, &W->cmp[i]);
        if (n < 2)
            continue;
        with++;
        expected += fpr(n);
        if (n < PROF_ROUNDS_SEEN)
            seen[n] = 1;
    }
    fprintf(f, "A verdict is *clearly different* when the difference a − b has the same sign in every round both "
               "arms have (at least 2; docs/DESIGN.md, section 7), else *too close to call*.  Were no difference "
               "real, each round's sign a coin toss, the rule would still call a verdict of R rounds clearly "
               "different with probability 2 · 0.5^R, its false-positive rate");
    int first = 1;
    for (int n = 2; n < PROF_ROUNDS_SEEN; n++)
        if (seen[n]) {
            fprintf(f, "%s%.2g%% at %d%s", first ? " (" : ", ", 100 * fpr((size_t)n), n, first ? " rounds" : "");
            first = 0;
        }
    fprintf(f, "%s.  Over the family of the %zu verdicts of `%s`, %zu of them with at least 2 rounds in this "
               "design, chance alone would give about %.2f clearly different verdicts (the sum of their "
               "rates).",
            first ? "" : ")", W->ncmp, o->comparisons, with, expected);
    int k = arm_place(o, PREDICT_SIZED_ARM);
    const char *claim, *event;
    if (k < 0 || !odds_claim(&o->arms[k], &claim, &event) || !o->noseeds) {
        fprintf(f, "  %s is not simulated here: no flood sizes the rounds.\n\n", PREDICT_SIZED_ARM);
        return;
    }
    size_t hits = odds_k(W, (size_t)k, event);
    double pr = (double)hits / (double)o->noseeds;
    int n = rounds_to_see(pr);
    fprintf(f, "  The rounds of the rare events: %s floods in %zu of %zu seeds of %g s (p = %.3f, the "
               "seed-averaged chance per round, never which rounds flood); the smallest N with 1 − (1 − p)^N ≥ "
               "%.2f is ",
            PREDICT_SIZED_ARM, hits, o->noseeds, p->arm[k].oseconds, pr, PREDICT_SEEN);
    if (n)
        fprintf(f, "%d", n);
    else
        fprintf(f, "none up to 10000");
    if (!p->sized_group[0])
        fprintf(f, " (no registered design is given here to compare it with).\n\n");
    else if (n == p->sized_reg_rounds)
        fprintf(f, ", which equals the %d rounds `%s` registers for its group `%s` (%zu rounds planned: p_seen "
                   "%.3f).\n\n",
                p->sized_reg_rounds, p->design, p->sized_group, p->arm[k].nrounds,
                p_seen(hits, o->noseeds, p->arm[k].nrounds));
    else
        fprintf(f, ", which differs from the %d rounds `%s` registers for its group `%s` (%zu rounds planned: "
                   "p_seen %.3f): the registered rounds no longer follow from the simulation.\n\n",
                p->sized_reg_rounds, p->design, p->sized_group, p->arm[k].nrounds,
                p_seen(hits, o->noseeds, p->arm[k].nrounds));
}

static void md_sizing(const work *W, FILE *f)
{
    const playopt *o = W->o;
    const predict_plan *p = W->p;
    size_t nsized = 0, nno = 0;
    for (size_t i = 0; i < W->ncmp; i++)
        if (sized(&W->cmp[i])) {
            nsized++;
            nno += !W->cmp[i].decides;
        }
    fprintf(f, "| a | b | figure | sign | seconds a | seconds b | q | rounds | power | decides | rounds_90 | "
               "median a | median b | note |\n"
               "|---|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|\n");
    for (size_t i = 0; i < W->ncmp; i++) {
        const cmp_line *c = &W->cmp[i];
        if (!sized(c))
            continue;
        const char *sign = c->pos > c->neg ? "a > b" : c->neg > c->pos ? "a < b" : "none";
        fprintf(f, "| %s | %s | `%s` | %s | %g | %g | %.3f | %zu | %.3f | %s | %d | ", c->a, c->b, c->figure, sign,
                p->arm[c->ka].oseconds, p->arm[c->kb].oseconds, c->q, c->rounds, c->power,
                c->decides ? "yes" : "**no**", c->rounds_90);
        md_num(f, c->med_a, "%.4g");
        fputs(" | ", f);
        md_num(f, c->med_b, "%.4g");
        fprintf(f, " | %s |\n", c->note);
    }
    fprintf(f, "\n%zu of the %zu verdicts sized here cannot be decided in their rounds with 90%% probability.\n", nno,
            nsized);
    if (nsized < W->ncmp) {
        fprintf(f, "\nNot sized (a figure `play` does not compute, or an arm it cannot simulate):\n\n");
        for (size_t i = 0; i < W->ncmp; i++)
            if (!sized(&W->cmp[i])) {
                size_t n = rounds_of(W, &W->cmp[i]);
                fprintf(f, "- %s against %s, `%s`%s", W->cmp[i].a, W->cmp[i].b, W->cmp[i].figure,
                        W->cmp[i].fig < 0 ? " (a figure play does not compute)" : " (an arm play does not simulate)");
                if (n >= 2)
                    fprintf(f, ": %zu rounds, false-positive rate %.2g%%", n, 100 * fpr(n));
                fputs("\n", f);
            }
    }
    fprintf(f, "\n## The rare events: the simulation's chance per round\n\n"
               "Over seeds %s, each arm at its own run length; the Wilson score interval at z = 1.96 "
               "(pipeline/RESULTS.md, `odds`); p_seen = 1 − (1 − share)^planned rounds, the chance that the "
               "study sees the event at least once.\n\n"
               "| claim | arm | event | seconds | seeds | share | Wilson 95%% | planned rounds | p_seen |\n"
               "|---|---|---|---:|---:|---:|---|---:|---:|\n",
            o->oseeds_s);
    for (size_t k = 0; k < o->narms; k++) {
        const char *claim, *event;
        if (!odds_claim(&o->arms[k], &claim, &event))
            continue;
        size_t hits = odds_k(W, k, event);
        double lo, hi;
        ut_wilson95(hits, o->noseeds, &lo, &hi);
        fprintf(f, "| %s | %s | `%s` | %g | %zu of %zu | %.3f | %.3f to %.3f | %zu | %.3f |\n", claim,
                o->arms[k].name, event, p->arm[k].oseconds, hits, o->noseeds, (double)hits / (double)o->noseeds, lo,
                hi, p->arm[k].nrounds, p_seen(hits, o->noseeds, p->arm[k].nrounds));
    }
}

static int write_md(const work *W)
{
    const playopt *o = W->o;
    const predict_plan *p = W->p;
    ut_afile a;
    char err[UT_ERRLEN];
    if (ut_aopen(&a, o->sizing, err, sizeof err) != 0) {
        ut_err("--sizing: %s", err);
        return 1;
    }
    FILE *f = a.f;
    fprintf(f, "# Rounds sized in advance\n\n"
               "Written by `make sizing` (`build/bin/predict --sizing`, `pipeline/measure/predict.c`) from the "
               "simulation, before the study is measured; do not edit by hand.  ");
    if (p->design)
        fprintf(f, "The design: `%s`, profile %s%s%s%s, each arm at the length and rounds it runs.  ", p->design,
                o->profile, p->deviations ? " with `" : "", p->deviations ? p->deviations : "", p->deviations ? "`" : "");
    fprintf(f, "Every verdict of `%s` whose figure `play` computes, over seeds %s (seed k meets the arrivals and "
               "dice of round k).\n\n",
            o->comparisons, o->oseeds_s);
    md_head(W, f);
    fprintf(f, "`q` is the share of seeds whose difference has the sign most seeds show (`sign`; a tie or a null "
               "counts against), seed k of each arm simulated at that arm's own run length (`seconds a`, `seconds "
               "b`), so the rule detects the simulated difference in R rounds with probability q^R.  `rounds` is "
               "the number of rounds both arms have; `power` = q^rounds; *decides* says whether power ≥ %.1f "
               "(a **no**: these rounds cannot decide it; a *too close to call* there says nothing).  "
               "`rounds_90` is the largest R, at most %d, with q^R ≥ 0.9 (0: not even the 2 rounds the rule "
               "needs).  Only a figure equal by design (every seed a tie, q = 0) is never called different.  The "
               "medians are the simulation's over the seeds.\n\n",
            PREDICT_DECIDES, PREDICT_MAX_ROUNDS_90);
    md_sizing(W, f);
    int bad = ferror(f);
    if (ut_aclose(&a, !bad, err, sizeof err) != 0 || bad) {
        ut_err("--sizing: %s: %s", o->sizing, bad ? "cannot be written" : err);
        return 1;
    }
    return 0;
}

int predict_main(const playopt *o, const predict_plan *p)
{
    int64_t t0 = ut_mono_ns();
    work W = {.o = o, .p = p};
    int rc = load_comparisons(o, &W.cmp, &W.ncmp);
    if (rc == 0 && (setup(&W) != 0 || (o->predict && simulate_runs(&W) != 0) ||
                    (o->predict && p->noise && simulate_twin(&W) != 0) || simulate_odds(&W) != 0 ||
                    size_verdicts(&W) != 0)) {
        ut_err("out of memory");
        rc = 1;
    }
    if (rc == 0 && o->predict && simulate_map(&W) != 0) /* it names what went wrong */
        rc = 1;
    if (rc == 0 && o->predict) {
        json_t *root = prediction_json(&W);
        rc = write_json(o->predict, root);
        json_decref(root);
    } else if (rc == 0)
        rc = write_md(&W);
    if (rc == 0) {
        size_t nsized = 0, nruns = 0;
        for (size_t i = 0; i < W.ncmp; i++)
            nsized += sized(&W.cmp[i]);
        for (size_t k = 0; o->predict && k < o->narms; k++)
            nruns += p->arm[k].nrounds;
        printf("predict: %zu runs (%zu arms, %s%s%s), the odds and the sizing of %zu verdicts over %zu arms x seeds %s "
               "at each arm's length, in %.1f s of wall time: %s\n",
               nruns, o->narms, p->design ? p->design : "rounds and seconds as given", p->design ? ", profile " : "",
               p->design ? o->profile : "", nsized, W.nneed, o->oseeds_s,
               (double)(ut_mono_ns() - t0) / 1e9, o->predict ? o->predict : o->sizing);
    }
    cleanup(&W);
    return rc;
}
