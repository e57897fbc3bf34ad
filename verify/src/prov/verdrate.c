/* verdrate: each verdict's error rate; see verdrate.h. */
#include "verdrate.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* the q of the first sizing entry of a, b, figure; 0 when none */
static int sizing_q(const vj_node *pred, const char *a, const char *b, const char *fig, double *q)
{
    const vj_node *sz = vj_get(pred, "sizing");
    for (size_t i = 0; a && b && fig && sz && sz->type == VJ_ARR && i < sz->n; i++) {
        const vj_node *e = sz->items[i];
        const char *ea = vj_get_str(e, "a"), *eb = vj_get_str(e, "b"), *ef = vj_get_str(e, "figure");
        if (!ea || !eb || !ef || strcmp(ea, a) || strcmp(eb, b) || strcmp(ef, fig))
            continue;
        const vj_node *v = vj_get(e, "q");
        if (!v || v->type != VJ_NUM)
            return 0;
        *q = v->num;
        return 1;
    }
    return 0;
}

void vr_fill(vj_node *mine, const vj_node *pred)
{
    vj_node *vs = vj_get(mine, "verdicts");
    long long total = 0, clearly = 0, with_rate = 0, undecidable = 0, unsized = 0;
    double chance = 0;
    for (size_t i = 0; vs && vs->type == VJ_ARR && i < vs->n; i++) {
        vj_node *e = vs->items[i];
        const vj_node *rr = vj_get(e, "rounds");
        long long n = rr && rr->type == VJ_ARR ? (long long)rr->n : 0;
        const char *verdict = vj_get_str(e, "verdict");
        total++;
        clearly += verdict && !strcmp(verdict, "clearly different");
        vj_obj_set(e, "n", vj_new_int(n));
        if (n >= 2) {
            double fpr = 2 * pow(0.5, (double)n);
            vj_obj_set(e, "false_positive_rate", vj_new_num(fpr));
            with_rate++;
            chance += fpr;
        } else {
            vj_obj_set(e, "false_positive_rate", vj_new_null());
        }
        double q;
        int has_q = sizing_q(pred, vj_get_str(e, "a"), vj_get_str(e, "b"), vj_get_str(e, "figure"), &q);
        vj_obj_set(e, "sizing_q", has_q ? vj_new_num(q) : vj_new_null());
        if (has_q && n >= 2) {
            double power = pow(q, (double)n);
            vj_obj_set(e, "power", vj_new_num(power));
            vj_obj_set(e, "decidable", vj_new_bool(power >= 0.9));
            undecidable += !(power >= 0.9);
        } else {
            vj_obj_set(e, "power", vj_new_null());
            vj_obj_set(e, "decidable", vj_new_null());
            unsized++;
        }
    }
    /* verdrate.h: every verdict has a rate or not, a power or not */
    assert(with_rate <= total && undecidable + unsized <= total && clearly <= total);
    vj_node *f = vj_new_obj();
    vj_obj_set(f, "verdicts", vj_new_int(total));
    vj_obj_set(f, "clearly_different", vj_new_int(clearly));
    vj_obj_set(f, "expected_chance", vj_new_num(chance));
    vj_obj_set(f, "with_rate", vj_new_int(with_rate));
    vj_obj_set(f, "undecidable", vj_new_int(undecidable));
    vj_obj_set(f, "unsized", vj_new_int(unsized));
    vj_obj_set(mine, "verdict_family", f);
}
