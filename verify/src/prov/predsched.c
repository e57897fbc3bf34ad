/* predsched: prediction.json format 2 against the schedule; see predsched.h. */
#include "predsched.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mism.h"

#define PRED_REL "results/prediction.json"

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(1, fmax(fabs(a), fabs(b)));
}

/* a number member against want (NaN: the schedule gives none: a mismatch too) */
static void expect_num(const vj_node *e, const char *key, const char *where, double want, int exact, const char *why)
{
    const vj_node *v = vj_get(e, key);
    char what[256], lab[64], mine[64];
    snprintf(what, sizeof what, "%s.%s", where, key);
    vj_scalar_text(v, lab, sizeof lab);
    if (v && v->type == VJ_NUM && isfinite(want) && (exact ? v->num == want : near(v->num, want)))
        return;
    if (isfinite(want))
        snprintf(mine, sizeof mine, "%.15g", want);
    else
        snprintf(mine, sizeof mine, "(none)");
    mm_addf(NULL, PRED_REL, what, v ? lab : "(absent)", "%s (%s)", mine, why);
}

/* rounds both arms have in the schedule */
static long both_rounds(const sd_schedule *sd, const char *a, const char *b)
{
    long n = 0;
    for (long r = 1; r <= sd->rounds; r++)
        n += sd_has_round(sd, a, (int)r) && sd_has_round(sd, b, (int)r);
    return n;
}

long ps_check(const vj_node *pred, const sd_schedule *sd, const am_file *arms)
{
    const char *fmt = vj_get_str(pred, "format");
    if (!fmt || strcmp(fmt, "lab-prediction 2") || !sd->ok)
        return 0;
    long checked = 0;
    char where[320];
    const vj_node *runs = vj_get(pred, "runs");
    for (size_t i = 0; runs && runs->type == VJ_OBJ && i < runs->n; i++) {
        const sd_line *l = sd_find(sd, runs->keys[i]);
        snprintf(where, sizeof where, "runs.%s", runs->keys[i]);
        checked++;
        if (!l) {
            mm_add(NULL, PRED_REL, where, "an entry", "only runs " SD_REL " plans (the simulation runs the schedule)");
            continue;
        }
        char why[96];
        snprintf(why, sizeof why, "the run's seconds, %s:%ld", SD_REL, l->line);
        expect_num(runs->items[i], "seconds", where, sd_line_seconds(sd, arms, l, NULL, NULL), 1, why);
    }
    const vj_node *odds = vj_get(pred, "odds");
    for (size_t i = 0; odds && odds->type == VJ_ARR && i < odds->n; i++) {
        const vj_node *e = odds->items[i];
        const char *arm = vj_get_str(e, "arm");
        if (!arm)
            continue; /* predict.h's mismatch */
        checked++;
        snprintf(where, sizeof where, "odds[%zu]", i);
        int rounds;
        double sec = sd_arm_seconds(sd, arms, arm, &rounds);
        expect_num(e, "seconds", where, sec, 1, "the arm's run length in " SD_REL);
        expect_num(e, "planned_rounds", where, rounds, 1, "the rounds " SD_REL " plans for the arm");
        const vj_node *k = vj_get(e, "sim_k"), *n = vj_get(e, "sim_n"), *pr = vj_get(e, "planned_rounds");
        if (k && n && pr && k->type == VJ_NUM && n->type == VJ_NUM && pr->type == VJ_NUM && n->num > 0)
            expect_num(e, "p_seen", where, 1 - pow(1 - k->num / n->num, pr->num), 0,
                       "1 - (1 - sim_k/sim_n)^planned_rounds");
    }
    const vj_node *sz = vj_get(pred, "sizing");
    for (size_t i = 0; sz && sz->type == VJ_ARR && i < sz->n; i++) {
        const vj_node *e = sz->items[i];
        const char *a = vj_get_str(e, "a"), *b = vj_get_str(e, "b");
        snprintf(where, sizeof where, "sizing[%zu]", i);
        if (!a || !b) {
            mm_add(NULL, PRED_REL, where, "(a or b absent)", "the arms a and b of a comparison (RESULTS.md)");
            continue;
        }
        checked++;
        expect_num(e, "seconds_a", where, sd_arm_seconds(sd, arms, a, NULL), 1, "arm a's run length in " SD_REL);
        expect_num(e, "seconds_b", where, sd_arm_seconds(sd, arms, b, NULL), 1, "arm b's run length in " SD_REL);
        expect_num(e, "rounds", where, (double)both_rounds(sd, a, b), 1, "the rounds both arms have in " SD_REL);
        const vj_node *q = vj_get(e, "q"), *r = vj_get(e, "rounds"), *d = vj_get(e, "decides");
        if (q && r && q->type == VJ_NUM && r->type == VJ_NUM) {
            double power = pow(q->num, r->num);
            expect_num(e, "power", where, power, 0, "q^rounds");
            if (!d || d->type != VJ_BOOL || d->b != (power >= 0.9)) {
                char what[340], lab[64];
                snprintf(what, sizeof what, "%s.decides", where);
                vj_scalar_text(d, lab, sizeof lab);
                mm_add(NULL, PRED_REL, what, d ? lab : "(absent)", power >= 0.9 ? "true (power >= 0.9)" : "false (power < 0.9)");
            }
        }
    }
    return checked;
}
