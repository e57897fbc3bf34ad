/* playmap: see playmap.h for the contract. */
#include "playmap.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "playsim.h"
#include "util.h"

int pmap_setup(pmap *m, const arm_table *t, const char *policies, char *why, size_t whylen)
{
    char list[512], *save = NULL;
    snprintf(list, sizeof list, "%s", policies ? policies : PMAP_POLICIES);
    m->npol = 0;
    for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        char name[40];
        snprintf(name, sizeof name, "H4-%s", p);
        const arm *a = arms_find(t, name);
        if (!a) {
            snprintf(name, sizeof name, "H3-%s", p);
            a = arms_find(t, name);
        }
        if (!a || a->fault.kind != FAULT_NONE || m->npol == PMAP_MAX_POLICIES) {
            ut_seterr(why, whylen, "policy %s: no arm H4-%s or H3-%s without a fault in the arms", p, p, p);
            return -1;
        }
        m->tmpl[m->npol] = a;
        snprintf(m->policy[m->npol++], sizeof m->policy[0], "%s", p);
    }
    m->nloads = 0;
    for (int l = PMAP_LOAD_LO; l <= PMAP_LOAD_HI; l += PMAP_LOAD_STEP)
        m->loads[m->nloads++] = l;
    return 0;
}

/* ------------------------------------------------------------ the work */

typedef struct {
    pmap *m;
    arm *arms;            /* [p * nloads + l]: the policy at the load */
    atomic_size_t next;   /* the next seed to take */
    atomic_uint_fast64_t lookups;
    atomic_int failed;
    pthread_mutex_t mu; /* over m's per-policy sums */
} job;

static void *worker(void *arg)
{
    job *J = arg;
    pmap *m = J->m;
    psim_cfg cfg = {.a = &J->arms[0], .rows = 1, .slots = m->slots, .conns = m->conns, .flood_stop = 1,
                   .lean = 1};
    psim *S = psim_new(&cfg);
    psim_seed *C = psim_seed_new();
    uint64_t looked = 0, pl[PMAP_MAX_POLICIES] = {0};
    int64_t pt[PMAP_MAX_POLICIES] = {0};
    if (!S || !C)
        atomic_store(&J->failed, 1);
    for (;;) {
        if (atomic_load(&J->failed))
            break;
        size_t s = atomic_fetch_add(&J->next, 1);
        if (s >= m->nseeds)
            break;
        for (size_t l = 0; l < m->nloads; l++)
            for (size_t p = 0; p < m->npol; p++) {
                cfg.a = &J->arms[p * m->nloads + l];
                cfg.freezes = m->loads[l] == PMAP_TRIGGER_LOAD;
                play_result R;
                int64_t t0 = ut_mono_ns();
                if (psim_set_arm(S, &cfg) != 0 || psim_run(S, m->seconds, m->seeds[s], C, &R) != 0) {
                    atomic_store(&J->failed, 1);
                    goto out;
                }
                size_t at = (p * m->nloads + l) * m->nseeds + s;
                m->flooded[at] = (uint8_t)R.flood.flooded;
                m->from_s[at] = R.flood.flooded ? (int32_t)R.flood.from_s : -1;
                m->standin[at] = R.n ? (double)R.standins / (double)R.n : NAN;
                m->trigger[at] = cfg.freezes ? R.frz_trigger : -1;
                looked += R.lookups;
                pt[p] += ut_mono_ns() - t0;
                pl[p] += R.lookups;
            }
    }
out:
    atomic_fetch_add(&J->lookups, looked);
    pthread_mutex_lock(&J->mu);
    for (size_t p = 0; p < m->npol; p++) {
        m->pol_s[p] += (double)pt[p] / 1e9;
        m->pol_lookups[p] += pl[p];
    }
    pthread_mutex_unlock(&J->mu);
    psim_free(S);
    psim_seed_free(C);
    return NULL;
}

int pmap_run(pmap *m)
{
    size_t cells = m->npol * m->nloads, total = cells * m->nseeds + 1;
    m->flooded = malloc(total);
    m->from_s = malloc(total * sizeof *m->from_s);
    m->standin = malloc(total * sizeof *m->standin);
    m->trigger = malloc(total * sizeof *m->trigger);
    job J = {.m = m, .arms = malloc((cells + 1) * sizeof *J.arms), .mu = PTHREAD_MUTEX_INITIALIZER};
    memset(m->pol_s, 0, sizeof m->pol_s);
    memset(m->pol_lookups, 0, sizeof m->pol_lookups);
    if (!m->flooded || !m->from_s || !m->standin || !m->trigger || !J.arms) {
        free(J.arms);
        return -1;
    }
    for (size_t p = 0; p < m->npol; p++)
        for (size_t l = 0; l < m->nloads; l++) {
            arm *a = &J.arms[p * m->nloads + l];
            *a = *m->tmpl[p];
            a->rate = m->loads[l];
            snprintf(a->name, sizeof a->name, "H%d-%s", m->loads[l], m->policy[p]);
        }
    atomic_init(&J.next, 0);
    atomic_init(&J.lookups, 0);
    atomic_init(&J.failed, 0);
    int nt = m->threads < 1 ? 1 : m->threads > 64 ? 64 : m->threads;
    pthread_t th[64];
    int started = 0;
    int64_t t0 = ut_mono_ns();
    for (int i = 1; i < nt; i++) {
        if (pthread_create(&th[i], NULL, worker, &J) != 0)
            break;
        started = i;
    }
    worker(&J); /* this thread is one of them */
    for (int i = 1; i <= started; i++)
        pthread_join(th[i], NULL);
    m->wall_s = (double)(ut_mono_ns() - t0) / 1e9;
    m->lookups = atomic_load(&J.lookups);
    free(J.arms);
    return atomic_load(&J.failed) ? -1 : 0;
}

void pmap_free(pmap *m)
{
    free(m->flooded);
    free(m->from_s);
    free(m->standin);
    free(m->trigger);
    m->flooded = NULL;
    m->from_s = NULL;
    m->standin = NULL;
    m->trigger = NULL;
}

/* ------------------------------------------------------------ the figures */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The percentile 0.5 of v[0 .. n) (sorted here), NAN when n = 0. */
static double median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_d);
    size_t lo;
    double f = ut_pct_rank(n, 0.5, &lo);
    return ut_pct_between(v[lo], v[lo + 1 < n ? lo + 1 : lo], f);
}

void pmap_cell_of(const pmap *m, size_t p, size_t l, pmap_cell *c)
{
    size_t at = (p * m->nloads + l) * m->nseeds;
    double *on = malloc((m->nseeds + 1) * sizeof *on), *sh = malloc((m->nseeds + 1) * sizeof *sh);
    size_t non = 0, nsh = 0;
    *c = (pmap_cell){.load = m->loads[l], .n = m->nseeds};
    for (size_t s = 0; s < m->nseeds; s++) {
        if (m->flooded[at + s]) {
            c->k++;
            if (on)
                on[non++] = m->from_s[at + s];
        } else if (sh && !isnan(m->standin[at + s]))
            sh[nsh++] = m->standin[at + s];
    }
    c->share = c->n ? (double)c->k / (double)c->n : NAN;
    if (c->n)
        ut_wilson95(c->k, c->n, &c->wilson95[0], &c->wilson95[1]);
    else
        c->wilson95[0] = c->wilson95[1] = NAN;
    c->onset_median_s = on ? median(on, non) : NAN;
    c->standin_median = sh ? median(sh, nsh) : NAN;
    free(on);
    free(sh);
}

void pmap_capacity_of(const pmap *m, size_t p, pmap_capacity *cap)
{
    *cap = (pmap_capacity){.load = -1, .lo = -1, .hi = -1};
    int ok[3] = {1, 1, 1}; /* the share, the upper bound, the lower bound: below at every load so far */
    for (size_t l = 0; l < m->nloads; l++) {
        pmap_cell c;
        pmap_cell_of(m, p, l, &c);
        ok[0] &= c.share < PMAP_CAPACITY_P;
        ok[1] &= c.wilson95[1] < PMAP_CAPACITY_P;
        ok[2] &= c.wilson95[0] < PMAP_CAPACITY_P;
        if (ok[0])
            cap->load = c.load;
        if (ok[1])
            cap->lo = c.load;
        if (ok[2])
            cap->hi = c.load;
        cap->tips |= c.share >= PMAP_CAPACITY_P;
    }
}

void pmap_trigger_of(const pmap *m, size_t p, int flooded, pmap_trigger *tr)
{
    memset(tr, 0, sizeof *tr);
    tr->median = NAN;
    tr->max = -1;
    size_t l = 0;
    while (l < m->nloads && m->loads[l] != PMAP_TRIGGER_LOAD)
        l++;
    if (l == m->nloads)
        return;
    size_t at = (p * m->nloads + l) * m->nseeds;
    double *v = malloc((m->nseeds + 1) * sizeof *v);
    for (size_t s = 0; s < m->nseeds; s++) {
        if (m->flooded[at + s] != flooded || m->trigger[at + s] < 0)
            continue;
        int x = m->trigger[at + s] > PMAP_TRIGGER_MAX ? PMAP_TRIGGER_MAX : m->trigger[at + s];
        tr->counts[x]++;
        tr->max = x > tr->max ? x : tr->max;
        if (v)
            v[tr->n] = m->trigger[at + s];
        tr->n++;
    }
    tr->median = v ? median(v, tr->n) : NAN;
    free(v);
}

/* ------------------------------------------------------------ as JSON */

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }
static json_t *load_or_null(int l) { return l >= 0 ? json_integer(l) : json_null(); }

static json_t *trigger_json(const pmap_trigger *tr)
{
    json_t *o = json_object(), *c = json_array();
    for (int v = 0; v <= tr->max; v++)
        json_array_append_new(c, json_integer((json_int_t)tr->counts[v]));
    json_object_set_new(o, "n", json_integer((json_int_t)tr->n));
    json_object_set_new(o, "median", num(tr->median));
    json_object_set_new(o, "counts", c);
    return o;
}

json_t *pmap_json(const pmap *m, const char *seeds)
{
    json_t *root = json_object(), *loads = json_array(), *pols = json_array();
    for (size_t l = 0; l < m->nloads; l++)
        json_array_append_new(loads, json_integer(m->loads[l]));
    json_object_set_new(root, "seconds", json_real(m->seconds));
    json_object_set_new(root, "seeds", json_string(seeds));
    json_object_set_new(root, "capacity_p", json_real(PMAP_CAPACITY_P));
    json_object_set_new(root, "trigger_load", json_integer(PMAP_TRIGGER_LOAD));
    json_object_set_new(root, "loads", loads);
    for (size_t p = 0; p < m->npol; p++) {
        json_t *po = json_object(), *cells = json_array(), *cap = json_object(), *iv = json_array();
        json_object_set_new(po, "policy", json_string(m->policy[p]));
        json_object_set_new(po, "template", json_string(m->tmpl[p]->name));
        for (size_t l = 0; l < m->nloads; l++) {
            pmap_cell c;
            pmap_cell_of(m, p, l, &c);
            json_t *co = json_object();
            json_object_set_new(co, "load", json_integer(c.load));
            json_object_set_new(co, "k", json_integer((json_int_t)c.k));
            json_object_set_new(co, "n", json_integer((json_int_t)c.n));
            json_object_set_new(co, "share", num(c.share));
            json_t *w = json_array();
            json_array_append_new(w, num(c.wilson95[0]));
            json_array_append_new(w, num(c.wilson95[1]));
            json_object_set_new(co, "wilson95", w);
            json_object_set_new(co, "onset_median_s", num(c.onset_median_s));
            json_object_set_new(co, "standin_share_median", num(c.standin_median));
            json_array_append_new(cells, co);
        }
        json_object_set_new(po, "cells", cells);
        pmap_capacity c;
        pmap_capacity_of(m, p, &c);
        json_object_set_new(cap, "load", load_or_null(c.load));
        json_array_append_new(iv, load_or_null(c.lo));
        json_array_append_new(iv, load_or_null(c.hi));
        json_object_set_new(cap, "interval", iv);
        json_object_set_new(cap, "tips", json_boolean(c.tips));
        json_object_set_new(po, "hidden_capacity", cap);
        pmap_trigger tf, tc;
        pmap_trigger_of(m, p, 1, &tf);
        pmap_trigger_of(m, p, 0, &tc);
        json_t *tr = json_object();
        json_object_set_new(tr, "flooded", trigger_json(&tf));
        json_object_set_new(tr, "calm", trigger_json(&tc));
        json_object_set_new(po, "trigger", tr);
        json_array_append_new(pols, po);
    }
    json_object_set_new(root, "policies", pols);
    return root;
}
