/* aparmcmp: one chosen arm of results/ap.json compared with the verifier's recomputation; see aparmcmp.h. */
#include "aparmcmp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apcmp.h"
#include "mism.h"
#include "vutil.h"

/* ------------------------------------------- comparing one arm with ap.json */

static const char *const ARM_MEMBERS[] = {"rounds", "requests_per_round", "requests", "standin_requests",
                                          "last_known_requests", "default_requests", "standin_share",
                                          "standin_rows_share", "per_round", "kinds", NULL};
static const char *const ROUND_MEMBERS[] = {"round", "requests_in_run", "requests", "live", "last_known",
                                            "default", "error", "standin_requests", "standin_share",
                                            "standin_rows", "standin_rows_share", "ap_default_seed",
                                            "change_default_seed", NULL};
static const char *const KIND_MEMBERS[] = {"change", "change_default_seed", "change_per_seed", "ci95",
                                           "verdict", "direction", NULL};
/* format lab-ap 2: each bound's Monte Carlo error too (APCOST.md 1.5) */
static const char *const KIND_MEMBERS2[] = {"change", "change_default_seed", "change_per_seed", "ci95", "ci95_mc",
                                            "verdict", "direction", NULL};
static const char *const FLOOD_MEMBERS[] = {"arm", "round", "requests", "standin_requests", "standin_share",
                                            "standin_rows", "standin_rows_share", "kinds", NULL};
static const char *const K3[] = {"last_known", "default", "none", NULL};

/* arms.<arm>.rounds: the round numbers of the folders <arm>-r<k> */
static void compare_rounds(const ap_arm *a, const vj_node *lab, const char *p)
{
    const vj_node *rounds = vj_get(lab, "rounds");
    int rounds_ok = rounds && rounds->type == VJ_ARR && rounds->n == a->nr;
    for (size_t i = 0; rounds_ok && i < a->nr; i++)
        rounds_ok = apcmp_is_num(rounds->items[i]) && rounds->items[i]->num == a->r[i].round;
    if (rounds_ok)
        return;
    char q[640];
    vu_buf b = {0};
    vu_buf_puts(&b, "[");
    for (size_t i = 0; i < a->nr; i++)
        vu_buf_printf(&b, "%s%d", i ? ", " : "", a->r[i].round);
    vu_buf_printf(&b, "] (the folders %s-r<k> of results/raw/)", a->arm);
    snprintf(q, sizeof q, "%s.rounds", p);
    char lt[256];
    if (rounds && rounds->type == VJ_ARR) {
        vu_buf lb = {0};
        vu_buf_puts(&lb, "[");
        for (size_t i = 0; i < rounds->n; i++) {
            vj_scalar_text(rounds->items[i], lt, sizeof lt);
            vu_buf_printf(&lb, "%s%s", i ? ", " : "", lt);
        }
        vu_buf_puts(&lb, "]");
        mm_add(NULL, "ap.json", q, lb.p, b.p);
        vu_buf_free(&lb);
    } else {
        apcmp_mm(q, rounds, b.p);
    }
    vu_buf_free(&b);
}

/* the arm's counts and shares */
static void compare_arm_sums(const ap_arm *a, const vj_node *lab, const char *p)
{
    char q[640];
    apcmp_count(apcmp_at(q, sizeof q, p, "requests_per_round"), vj_get(lab, "requests_per_round"), a->M);
    apcmp_count(apcmp_at(q, sizeof q, p, "requests"), vj_get(lab, "requests"), a->requests);
    apcmp_count(apcmp_at(q, sizeof q, p, "standin_requests"), vj_get(lab, "standin_requests"), a->standin);
    apcmp_count(apcmp_at(q, sizeof q, p, "last_known_requests"), vj_get(lab, "last_known_requests"), a->lk_req);
    apcmp_count(apcmp_at(q, sizeof q, p, "default_requests"), vj_get(lab, "default_requests"), a->def_req);
    apcmp_num(apcmp_at(q, sizeof q, p, "standin_share"), vj_get(lab, "standin_share"), a->standin_share, -APCMP_SHARE_TOL, NULL);
    apcmp_num(apcmp_at(q, sizeof q, p, "standin_rows_share"), vj_get(lab, "standin_rows_share"), a->srows_share,
            -APCMP_SHARE_TOL, NULL);
}

/* per_round[i] (an object): its counts, shares, APs and changes; lab_L:
 * ap.json's own live_ap.default_seed (NaN when absent), which a round
 * without stand-ins must repeat exactly */
static void compare_round(const ap_arm *a, size_t i, const vj_node *e, const char *rp, size_t N, double lab_L)
{
    char q[640];
    apcmp_members(rp, e, ROUND_MEMBERS);
    long long st = a->lk[i] + a->def[i];
    apcmp_count(apcmp_at(q, sizeof q, rp, "round"), vj_get(e, "round"), a->r[i].round);
    apcmp_count(apcmp_at(q, sizeof q, rp, "requests_in_run"), vj_get(e, "requests_in_run"), a->r[i].n);
    apcmp_count(apcmp_at(q, sizeof q, rp, "requests"), vj_get(e, "requests"), a->M);
    apcmp_count(apcmp_at(q, sizeof q, rp, "live"), vj_get(e, "live"), a->live[i]);
    apcmp_count(apcmp_at(q, sizeof q, rp, "last_known"), vj_get(e, "last_known"), a->lk[i]);
    apcmp_count(apcmp_at(q, sizeof q, rp, "default"), vj_get(e, "default"), a->def[i]);
    apcmp_count(apcmp_at(q, sizeof q, rp, "error"), vj_get(e, "error"), a->err[i]);
    apcmp_count(apcmp_at(q, sizeof q, rp, "standin_requests"), vj_get(e, "standin_requests"), st);
    apcmp_num(apcmp_at(q, sizeof q, rp, "standin_share"), vj_get(e, "standin_share"), a->M ? (double)st / (double)a->M : NAN,
            -APCMP_SHARE_TOL, NULL);
    apcmp_count(apcmp_at(q, sizeof q, rp, "standin_rows"), vj_get(e, "standin_rows"), a->srows[i]);
    apcmp_num(apcmp_at(q, sizeof q, rp, "standin_rows_share"), vj_get(e, "standin_rows_share"),
            N ? (double)a->srows[i] / (double)N : NAN, -APCMP_SHARE_TOL, NULL);
    const vj_node *apd = apcmp_need(rp, e, "ap_default_seed", VJ_OBJ);
    const vj_node *chd = apcmp_need(rp, e, "change_default_seed", VJ_OBJ);
    apcmp_members(apcmp_at(q, sizeof q, rp, "ap_default_seed"), apd, K3);
    apcmp_members(apcmp_at(q, sizeof q, rp, "change_default_seed"), chd, K3);
    for (int k = 0; k < AP_NKINDS; k++) {
        int empty = a->srows[i] == 0;
        snprintf(q, sizeof q, "%s.ap_default_seed.%s", rp, ap_kinds[k]);
        if (apd && empty && !isnan(lab_L))
            apcmp_num(q, vj_get(apd, ap_kinds[k]), lab_L, 0, "(no stand-in: ap.json's live_ap.default_seed, exactly)");
        else if (apd)
            apcmp_num(q, vj_get(apd, ap_kinds[k]), a->ap[k][i], APCMP_AP_TOL, NULL);
        snprintf(q, sizeof q, "%s.change_default_seed.%s", rp, ap_kinds[k]);
        if (chd)
            apcmp_num(q, vj_get(chd, ap_kinds[k]), a->chg[k][i], empty ? 0 : APCMP_AP_TOL,
                    empty ? "(no stand-in: exactly 0)" : NULL);
    }
}

/* kinds.<kind>.change_per_seed (S seeds, 0 if unknown): seed 1 recomputed,
 * change their mean; all exactly 0 when zero (no stand-in in any round) */
static void compare_per_seed(const ap_arm *a, int k, const vj_node *e, const char *kp, size_t S, int zero)
{
    char q[640];
    const char *zwhy = "(no stand-in in any round: exactly 0)";
    const vj_node *ps = vj_get(e, "change_per_seed");
    int ps_ok = ps && ps->type == VJ_ARR && ps->n > 0;
    for (size_t s = 0; ps_ok && s < ps->n; s++)
        ps_ok = apcmp_is_num(ps->items[s]);
    if (!ps_ok) {
        apcmp_mm(apcmp_at(q, sizeof q, kp, "change_per_seed"), ps, "a list of numbers, one per model seed (APCOST.md 1.7)");
        return;
    }
    if (S && ps->n != S) {
        char l[64], m[96];
        snprintf(l, sizeof l, "%zu entries", ps->n);
        snprintf(m, sizeof m, "%zu entries (one per model_seeds)", S);
        mm_add(NULL, "ap.json", apcmp_at(q, sizeof q, kp, "change_per_seed (length)"), l, m);
    }
    apcmp_num(apcmp_at(q, sizeof q, kp, "change_per_seed[0]"), ps->items[0], a->change[k], zero ? 0 : APCMP_AP_TOL,
            zero ? zwhy : "(seed 1, recomputed)");
    double sum = 0;
    for (size_t s = 0; s < ps->n; s++) {
        sum += ps->items[s]->num;
        if (zero && s > 0) {
            snprintf(q, sizeof q, "%s.change_per_seed[%zu]", kp, s);
            apcmp_num(q, ps->items[s], 0, 0, zwhy);
        }
    }
    double mean = sum / (double)ps->n;
    apcmp_num(apcmp_at(q, sizeof q, kp, "change"), vj_get(e, "change"), zero ? 0 : mean, zero ? 0 : APCMP_AP_TOL,
            zero ? zwhy : "(the mean of change_per_seed)");
}

/* kinds.<kind>.ci95 (and ci95_mc in format 2), verdict and direction: the
 * rule of APCOST.md 1.5 in format fmt, on the lab's own numbers */
static void compare_interval(const vj_node *e, const char *kp, int zero, int fmt)
{
    char q[640];
    const vj_node *ci = vj_get(e, "ci95");
    int ci_ok = ci && ci->type == VJ_ARR && ci->n == 2 && apcmp_is_num(ci->items[0]) && apcmp_is_num(ci->items[1]);
    if (!ci_ok) {
        apcmp_mm(apcmp_at(q, sizeof q, kp, "ci95"), ci, "[lo, hi] (APCOST.md 1.5)");
        return;
    }
    double lo = ci->items[0]->num, hi = ci->items[1]->num;
    char l[128];
    snprintf(l, sizeof l, "[%s, %s]", ci->items[0]->text, ci->items[1]->text);
    if (zero && (lo != 0 || hi != 0))
        mm_add(NULL, "ap.json", apcmp_at(q, sizeof q, kp, "ci95"), l, "[0, 0] (no stand-in in any round)");
    else if (!(lo <= hi))
        mm_add(NULL, "ap.json", apcmp_at(q, sizeof q, kp, "ci95"), l, "lo <= hi");
    if (fmt >= 2) {
        const vj_node *mc = vj_get(e, "ci95_mc");
        if (!(mc && mc->type == VJ_ARR && mc->n == 2 && apcmp_is_num(mc->items[0]) && apcmp_is_num(mc->items[1]) &&
              mc->items[0]->num >= 0 && mc->items[1]->num >= 0)) {
            apcmp_mm(apcmp_at(q, sizeof q, kp, "ci95_mc"), mc, "[e_lo, e_hi], both >= 0 (APCOST.md 1.5)");
            return;
        }
        if (zero && (mc->items[0]->num != 0 || mc->items[1]->num != 0))
            apcmp_mm(apcmp_at(q, sizeof q, kp, "ci95_mc"), mc, "[0, 0] (no stand-in in any round)");
        const char *dir, *v = apfull_verdict(2, lo, hi, mc->items[0]->num, mc->items[1]->num, &dir);
        apcmp_str(apcmp_at(q, sizeof q, kp, "verdict"), vj_get(e, "verdict"), v);
        const vj_node *d = vj_get(e, "direction");
        if (!dir) {
            if (!d || d->type != VJ_NULL)
                apcmp_mm(apcmp_at(q, sizeof q, kp, "direction"), d, "null (too close to call)");
        } else {
            apcmp_str(apcmp_at(q, sizeof q, kp, "direction"), d, dir);
        }
        return;
    }
    /* the verdict rule: an interval holding zero is too close to call */
    int close = lo <= 0 && 0 <= hi;
    const char *verdict = close ? "too close to call" : "clearly different";
    apcmp_str(apcmp_at(q, sizeof q, kp, "verdict"), vj_get(e, "verdict"), verdict);
    const vj_node *dir = vj_get(e, "direction");
    if (close) {
        if (!dir || dir->type != VJ_NULL)
            apcmp_mm(apcmp_at(q, sizeof q, kp, "direction"), dir, "null (too close to call)");
    } else {
        apcmp_str(apcmp_at(q, sizeof q, kp, "direction"), dir, hi < 0 ? "lower" : "higher");
    }
}

/* kinds.<kind> (an object): every seed, the mean, the interval and the
 * verdict recomputed when the files of APCOST.md 1.10 allow; else seed 1
 * recomputed and the rest only for consistency */
static void compare_kind(const ap_arm *a, int k, const vj_node *e, const char *kp, size_t S, const apac_full *fc)
{
    char q[640];
    int fmt = fc->in->fmt;
    apcmp_members(kp, e, fmt >= 2 ? KIND_MEMBERS2 : KIND_MEMBERS);
    int zero = !a->any_standin;
    apcmp_num(apcmp_at(q, sizeof q, kp, "change_default_seed"), vj_get(e, "change_default_seed"), a->change[k],
            zero ? 0 : APCMP_AP_TOL, zero ? "(no stand-in in any round: exactly 0)" : NULL);
    if (fc->out->done) {
        apfull_compare_kind(fc->in, fc->out, fc->ai, k, e, kp);
        return;
    }
    compare_per_seed(a, k, e, kp, S, zero);
    compare_interval(e, kp, zero, fmt);
}

/* <p>.kinds: its three kinds */
static void compare_kinds(const ap_arm *a, const vj_node *lab, const char *p, size_t S, const apac_full *fc)
{
    char q[640];
    const vj_node *kinds = apcmp_need(p, lab, "kinds", VJ_OBJ);
    snprintf(q, sizeof q, "%s.kinds", p);
    apcmp_members(q, kinds, K3);
    for (int k = 0; kinds && k < AP_NKINDS; k++) {
        char kp[600];
        snprintf(kp, sizeof kp, "%s.kinds.%s", p, ap_kinds[k]);
        const vj_node *e = vj_get(kinds, ap_kinds[k]);
        if (!e || e->type != VJ_OBJ)
            apcmp_mm(kp, e, "an object (APCOST.md 1.7)");
        else
            compare_kind(a, k, e, kp, S, fc);
    }
}

void apac_compare_arm(const ap_arm *a, const vj_node *lab, size_t N, size_t S, double lab_L, const apac_full *fc)
{
    char p[512], q[640];
    snprintf(p, sizeof p, "arms.%s", a->arm);
    apcmp_members(p, lab, ARM_MEMBERS);
    compare_rounds(a, lab, p);
    compare_arm_sums(a, lab, p);

    const vj_node *pr = apcmp_need(p, lab, "per_round", VJ_ARR);
    if (pr && pr->n != a->nr) {
        char l[64], m[64];
        snprintf(l, sizeof l, "%zu entries", pr->n);
        snprintf(m, sizeof m, "%zu entries (one per round)", a->nr);
        snprintf(q, sizeof q, "%s.per_round (length)", p);
        mm_add(NULL, "ap.json", q, l, m);
    }
    for (size_t i = 0; pr && i < pr->n && i < a->nr; i++) {
        const vj_node *e = pr->items[i];
        char rp[560];
        snprintf(rp, sizeof rp, "%s.per_round[%zu]", p, i);
        if (e->type != VJ_OBJ)
            apcmp_mm(rp, e, "an object (APCOST.md 1.7)");
        else
            compare_round(a, i, e, rp, N, lab_L);
    }

    compare_kinds(a, lab, p, S, fc);
}

void apac_compare_flood(const ap_arm *a, const vj_node *lab, size_t N, size_t S, const apac_full *fc)
{
    char p[512], q[640];
    snprintf(p, sizeof p, "flooded_runs.%s", a->arm);
    apcmp_members(p, lab, FLOOD_MEMBERS);
    apcmp_str(apcmp_at(q, sizeof q, p, "arm"), vj_get(lab, "arm"), a->of_arm);
    apcmp_count(apcmp_at(q, sizeof q, p, "round"), vj_get(lab, "round"), a->nr ? a->r[0].round : 0);
    /* APCOST.md 1.7: requests = the run's rows of tester.tsv.gz, all of them (M) */
    apcmp_count(apcmp_at(q, sizeof q, p, "requests"), vj_get(lab, "requests"), a->M);
    apcmp_count(apcmp_at(q, sizeof q, p, "standin_requests"), vj_get(lab, "standin_requests"), a->standin);
    apcmp_num(apcmp_at(q, sizeof q, p, "standin_share"), vj_get(lab, "standin_share"), a->standin_share,
              -APCMP_SHARE_TOL, NULL);
    apcmp_count(apcmp_at(q, sizeof q, p, "standin_rows"), vj_get(lab, "standin_rows"), a->srows_total);
    apcmp_num(apcmp_at(q, sizeof q, p, "standin_rows_share"), vj_get(lab, "standin_rows_share"),
              N ? (double)a->srows_total / (double)N : NAN, -APCMP_SHARE_TOL, NULL);
    compare_kinds(a, lab, p, S, fc);
}

