/* attempts: results/attempts/<run>-a<N>/ checked; see attempts.h. */
#include "attempts.h"

#include <stdio.h>
#include <string.h>

#include "mism.h"

vj_node *at_check(const study *s, const sd_schedule *sd, const am_file *arms, const pv_records *recs, int enforce)
{
    long folders = 0, quiet = 0;
    char where[600];
    for (size_t i = 0; i < s->nattempts; i++) {
        const rf_run *r = &s->attempts[i];
        folders++;
        snprintf(where, sizeof where, RF_ATTEMPTS "/%s", r->name);
        const sd_line *l = sd->ok ? sd_find(sd, r->planned) : NULL;
        if (sd->ok && !l)
            mm_add(NULL, where, "run", r->planned, "a run " SD_REL " plans (RESULTS.md: every attempt folder names one)");
        if (l && r->ok) {
            const char *text;
            double want = sd_line_seconds(sd, arms, l, &text, NULL);
            if (r->seconds != want) {
                char lab[64];
                snprintf(lab, sizeof lab, "%.17g", r->seconds);
                mm_addf(NULL, where, "run.json seconds", lab, "%s (the run's, %s:%ld)", text, SD_REL, l->line);
            }
        }
        const pv_record *rec = pv_find(recs, r->planned);
        const vj_node *att = rec ? vj_get(rec->tree, "attempt") : NULL;
        if (!rec && !enforce) {
            printf("NOTE %s: no record " PV_DIR "/%s.json to show attempt %d was measured again (profile tiny: not "
                   "required)\n",
                   where, r->planned, r->attempt);
        } else if (!att || att->type != VJ_NUM || !att->is_int || att->i <= r->attempt) {
            char lab[64], want[400];
            vj_scalar_text(att, lab, sizeof lab);
            snprintf(want, sizeof want, "above %d: attempt %d was measured again (" PV_DIR "/%s.json attempt)",
                     r->attempt, r->attempt, r->planned);
            mm_add(NULL, where, "attempt", !rec ? "(no record)" : att ? lab : "(absent)", want);
        }
        if (r->ok && r->quiet) {
            quiet++;
            mm_add(NULL, where, "quiet", "judged quiet by the quiet rules (breaks none)",
                   "disturbed: an attempt measured again breaks at least one rule (RESULTS.md: else it was replaced "
                   "without cause)");
        }
    }
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "folders", vj_new_int(folders));
    vj_obj_set(o, "judged_quiet", vj_new_int(quiet));
    return o;
}
