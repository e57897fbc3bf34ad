/* fuzz_profiles: data/profiles.tsv's reader (profiles.c) and
 * results/deviations.tsv's (deviations.c).  The input is the profiles file,
 * then "\n====\n" and the deviations file; the arms file is two arms A and
 * B.  Every group kept has its fields in range; every deviation kept has
 * values of its field's kind. */
#include "deviations.h"
#include "mism.h"
#include "fuzzhelp.h"
#include "profiles.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_mism();
    const uint8_t *part[2];
    size_t len[2];
    size_t n = fz_split(data, size, part, len, 2);
    am_file arms;
    char err[512];
    static const char ARMS[] = "name\trate\nA\t20\nB\tmax\n";
    const char *ap = fz_write("lab/arms.tsv", ARMS, sizeof ARMS - 1);
    if (am_load(ap, &arms, err, sizeof err))
        abort();
    const char *pp = fz_write("data/profiles.tsv", part[0], len[0]);
    pf_file pf;
    if (pf_load(pp, &arms, &pf) == 0) {
        for (size_t i = 0; i < pf.n; i++) {
            const pf_group *g = &pf.v[i];
            if (g->ok && (g->rounds < 1 || !(g->seconds > 0) || g->seeds_a < 1 || g->seeds_a > g->seeds_b))
                abort();
            for (size_t k = 0; k < g->narms; k++)
                if (!am_find(&arms, g->arms[k]))
                    abort();
            (void)pf_profile_has(&pf, g->profile);
        }
        pf_free(&pf);
    }
    char rel[64];
    snprintf(rel, sizeof rel, "%s", DV_REL);
    fz_write(rel, n > 1 ? part[1] : (const uint8_t *)"", n > 1 ? len[1] : 0);
    dv_file dv;
    dv_load(fz_dir(), &dv);
    for (size_t i = 0; i < dv.n; i++) {
        const dv_line *l = &dv.v[i];
        if (l->ok && (!(l->reg_v > 0) || !(l->ran_v > 0) || !l->reason[0]))
            abort();
    }
    dv_free(&dv);
    am_free(&arms);
    return 0;
}
