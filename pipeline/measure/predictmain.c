/* predict: the program of measure's prediction (pipeline/measure/predict.h):
 *   predict --predict FILE --profiles data/profiles.tsv --profile NAME
 *           [--deviations results/deviations.tsv] [play's options]      results/prediction.json
 *   predict --sizing FILE.md --profiles data/profiles.tsv --profile NAME docs/SIZING.md
 * With --profiles the design gives every arm's rounds and seconds and the
 * odds' seeds (pipeline/measure/profiles.h: the design as run, with the
 * deviations applied), so --rounds, --seconds, --odds-seeds and
 * --odds-seconds are refused beside it; without --arm the arms are the
 * design's open-loop ones (the closed-loop arm's rounds still count in the
 * family of verdicts).  Without --profiles, the old options: every arm the
 * rounds of --rounds of --seconds, its odds and sizing --odds-seconds (the
 * bench and the tests).  The rest is play's command line
 * (lab/play/playopt.h).  Exit codes as predict_main's, 2 on a bad option or
 * design (the file, line and field named).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arms.h"
#include "opt.h"
#include "playopt.h"
#include "predict.h"
#include "profiles.h"
#include "util.h"

#define MAX_ARGS 256

/* The value of option `name` in argv ("--name v" or "--name=v"), or NULL. */
static const char *value_of(int argc, char **argv, const char *name)
{
    const char *v = NULL;
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], name, n) && argv[i][n] == '=')
            v = argv[i] + n + 1;
        else if (!strcmp(argv[i], name) && i + 1 < argc)
            v = argv[++i];
    return v;
}

/* argv without the options named (and their values), into out. */
static int strip(int argc, char **argv, const char *const *drop, char **out)
{
    int n = 0;
    for (int i = 0; i < argc; i++) {
        int d = 0;
        for (int k = 0; drop[k] && !d && i > 0; k++) {
            size_t len = strlen(drop[k]);
            if (!strncmp(argv[i], drop[k], len) && argv[i][len] == '=')
                d = 1;
            else if (!strcmp(argv[i], drop[k]))
                d = 2;
        }
        if (d == 2)
            i++;
        else if (!d && n < MAX_ARGS - 4)
            out[n++] = argv[i];
    }
    return n;
}

static uint32_t *one_to(int n)
{
    uint32_t *r = malloc(((size_t)n + 1) * sizeof *r);
    for (int i = 0; r && i < n; i++)
        r[i] = (uint32_t)i + 1;
    return r;
}

static void plan_free(predict_plan *p, size_t narms)
{
    for (size_t k = 0; p->arm && k < narms; k++)
        free(p->arm[k].rounds);
    for (size_t i = 0; i < p->nother; i++)
        free(p->other[i].rounds);
    free(p->arm);
    free(p->other);
    free(p->rounds);
}

/* The old options: every arm --rounds of --seconds, odds --odds-seconds. */
static int plan_of_options(const playopt *o, predict_plan *p)
{
    p->arm = calloc(o->narms + 1, sizeof *p->arm);
    p->rounds = malloc((o->nrounds + 1) * sizeof *p->rounds);
    if (!p->arm || !p->rounds)
        return 1;
    /* ascending, each round once (the runs are named by it) */
    for (size_t r = 0; r < o->nrounds; r++) {
        size_t at = 0;
        while (at < p->nrounds && p->rounds[at] < o->rounds[r])
            at++;
        if (at < p->nrounds && p->rounds[at] == o->rounds[r])
            continue;
        memmove(p->rounds + at + 1, p->rounds + at, (p->nrounds - at) * sizeof *p->rounds);
        p->rounds[at] = o->rounds[r];
        p->nrounds++;
    }
    for (size_t k = 0; k < o->narms; k++) {
        predict_arm *a = &p->arm[k];
        if (!(a->rounds = malloc((p->nrounds + 1) * sizeof *a->rounds)))
            return 1;
        memcpy(a->rounds, p->rounds, p->nrounds * sizeof *a->rounds);
        a->nrounds = p->nrounds;
        a->seconds = o->seconds;
        a->oseconds = o->oseconds;
    }
    return 0;
}

/* The design's rounds and seconds for every arm of o (each must be in it),
 * and the design's other arms.  0, 1 out of memory, 2 an arm not in it. */
static int plan_of_design(const playopt *o, const prof_design *d, predict_plan *p)
{
    int R = prof_rounds(d);
    p->arm = calloc(o->narms + 1, sizeof *p->arm);
    p->other = calloc((size_t)d->np + 1, sizeof *p->other);
    p->rounds = one_to(R);
    if (!p->arm || !p->other || !p->rounds)
        return 1;
    p->nrounds = (size_t)R;
    for (size_t k = 0; k < o->narms; k++) {
        const prof_group *g = prof_group_of(d, o->arms[k].name);
        if (!g) {
            ut_err("--arm \"%s\": not in profile %s of the design", o->arms[k].name, d->profile);
            return 2;
        }
        predict_arm *a = &p->arm[k];
        if (!(a->rounds = one_to(g->rounds)))
            return 1;
        a->nrounds = (size_t)g->rounds;
        a->seconds = a->oseconds = g->seconds;
    }
    for (int i = 0; i < d->np; i++) {
        int in = 0;
        for (size_t k = 0; k < o->narms && !in; k++)
            in = !strcmp(o->arms[k].name, d->p[i].a->name);
        if (in)
            continue;
        const prof_group *g = &d->g[d->p[i].group];
        predict_other *x = &p->other[p->nother++];
        snprintf(x->name, sizeof x->name, "%s", d->p[i].a->name);
        if (!(x->rounds = one_to(g->rounds)))
            return 1;
        x->nrounds = (size_t)g->rounds;
        x->seconds = g->seconds;
    }
    const prof_group *g = prof_group_of(d, PREDICT_SIZED_ARM);
    if (g) {
        snprintf(p->sized_group, sizeof p->sized_group, "%s", g->name);
        p->sized_reg_rounds = g->reg_rounds;
    }
    return 0;
}

int main(int argc, char **argv)
{
    ut_set_prog("predict");
    if (argc > MAX_ARGS - 8) {
        ut_err("too many arguments");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            printf("predict: the prediction of a study (pipeline/measure/predict.h).  Its own options:\n"
                   "  --profiles FILE    the registered design (data/profiles.tsv): each arm's rounds and seconds\n"
                   "                     and the odds' seeds, with --profile NAME; replaces --rounds, --seconds,\n"
                   "                     --odds-seeds and --odds-seconds\n"
                   "  --deviations FILE  with --profiles: results/deviations.tsv, the design as run\n"
                   "  --noise FILE       the twin's noise model (data/noise.tsv): each run again in replicas\n"
                   "play's options follow.\n\n");
    const char *profiles = value_of(argc, argv, "--profiles"), *devs = value_of(argc, argv, "--deviations");
    const char *profile = value_of(argc, argv, "--profile"), *arms_path = value_of(argc, argv, "--arms");
    if (!arms_path)
        arms_path = "lab/arms.tsv";
    const char *noise_path = value_of(argc, argv, "--noise");
    static const char *const ours[] = {"--profiles", "--deviations", "--noise", NULL};
    char *args[MAX_ARGS];
    int n = strip(argc, argv, ours, args);
    if (devs && !profiles) {
        ut_err("--deviations: only with --profiles (the design they depart from)");
        return 2;
    }
    prof_design d = {0};
    arm_table T = {0};
    char err[UT_ERRLEN], odds_seeds[32] = "", arm_list[8192] = "";
    if (profiles) {
        static const char *const given[] = {"--rounds", "--seconds", "--odds-seeds", "--odds-seconds"};
        for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
            if (value_of(argc, argv, given[i])) {
                ut_err("%s: the design (--profiles %s) gives each arm's rounds and seconds and the odds' seeds",
                       given[i], profiles);
                return 2;
            }
        if (!profile) {
            ut_err("--profiles %s: give --profile NAME, the profile of the design", profiles);
            return 2;
        }
        if (arms_load(arms_path, &T, err, sizeof err) != 0) {
            ut_err("--arms: %s", err);
            return 2;
        }
        if (prof_load(&d, profiles, profile, &T, arms_path, err, sizeof err) != 0 ||
            (devs && prof_read_deviations(&d, devs, err, sizeof err) != 0)) {
            ut_err("%s", err);
            prof_free(&d);
            arms_free(&T);
            return 2;
        }
        snprintf(odds_seeds, sizeof odds_seeds, "%s", d.odds_seeds);
        args[n++] = "--odds-seeds";
        args[n++] = odds_seeds;
        if (!value_of(argc, argv, "--arm")) { /* the design's open-loop arms, in lab/arms.tsv's order */
            size_t len = 0;
            for (int i = 0; i < d.np; i++)
                if (d.p[i].a->rate > 0 && len < sizeof arm_list)
                    len += (size_t)snprintf(arm_list + len, sizeof arm_list - len, "%s%s", len ? "," : "",
                                            d.p[i].a->name);
            if (!len || len >= sizeof arm_list) {
                ut_err("--profiles %s: profile %s has %s", profiles, profile,
                       len ? "too many arms for one list" : "no open-loop arm to predict");
                prof_free(&d);
                arms_free(&T);
                return 2;
            }
            args[n++] = "--arm";
            args[n++] = arm_list;
        }
    }
    args[n] = NULL;
    playopt o;
    int rc = playopt_parse(n, args, &o);
    if (rc != OPT_OK) {
        prof_free(&d);
        arms_free(&T);
        return rc == OPT_HELP ? 0 : 2;
    }
    if (!o.predict && !o.sizing) {
        ut_err("give --predict FILE or --sizing FILE.md (build/bin/play simulates without either)");
        rc = 2;
    } else {
        predict_plan p = {0};
        rc = profiles ? plan_of_design(&o, &d, &p) : plan_of_options(&o, &p);
        if (rc == 1)
            ut_err("out of memory");
        if (rc == 0) {
            p.design = profiles;
            p.deviations = devs && d.ndev ? devs : NULL;
            noise_model nm = {0};
            if (noise_path) {
                uint64_t size;
                if (noise_read(&nm, noise_path, err, sizeof err) != 0 ||
                    ut_sha256_file(noise_path, p.noise_sha256, &size, err, sizeof err) != 0) {
                    ut_err("--noise: %s", err);
                    rc = 2;
                }
                p.noise = &nm;
                p.noise_path = noise_path;
            }
            if (rc == 0)
                rc = predict_main(&o, &p);
            noise_free(&nm);
        }
        plan_free(&p, o.narms);
    }
    playopt_free(&o);
    prof_free(&d);
    arms_free(&T);
    return rc;
}
