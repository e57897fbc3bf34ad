/* mprereg: see mprereg.h for the contract. */
#include "mprereg.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mfiles.h"
#include "paths.h"
#include "proc.h"
#include "util.h"

/* results/deviations.tsv (pipeline/RESULTS.md): the design as run, when measure departs from it */

void mreg_paths(const char *data, const char *arms, const char *comparisons, const char *ap_arms,
                const char *profiles, char *paths[PROV_NPREREG])
{
    paths[0] = mf_str("%s/guesses.tsv", data);
    paths[1] = mf_str("%s/design.md", data);
    paths[2] = mf_str("%s/quiet.tsv", data);
    paths[3] = mf_str("%s", arms);
    paths[4] = mf_str("%s", comparisons);
    paths[5] = mf_str("%s", ap_arms);
    paths[6] = mf_str("%s", profiles);
}

void mreg_paths_free(char *paths[PROV_NPREREG])
{
    for (int i = 0; i < PROV_NPREREG; i++) {
        free(paths[i]);
        paths[i] = NULL;
    }
}

/* "pipeline/comparisons.tsv", or "pipeline/comparisons.tsv (read from X)" when measure read it elsewhere. */
static void name_of(int i, const char *path, char *buf, size_t n)
{
    if (!strcmp(path, PROV_PREREG_FILES[i]))
        snprintf(buf, n, "%s", path);
    else
        snprintf(buf, n, "%s (read from %s)", PROV_PREREG_FILES[i], path);
}

int mreg_check_files(const char *provdir, char *const paths[PROV_NPREREG], char *err, size_t errlen)
{
    char *path = mf_str("%s/prereg.json", provdir);
    json_error_t je;
    json_t *reg = json_load_file(path, 0, &je);
    int rc = -1, st[PROV_NPREREG];
    char sha[PROV_NPREREG][65], name[1024];
    unsigned long long size[PROV_NPREREG];
    if (!reg) {
        if (access(path, F_OK) != 0)
            ut_seterr(err, errlen, "%s: missing: the guesses and the design are not registered; run make prepare first",
                      path);
        else
            ut_seterr(err, errlen, "%s: %s (line %d)", path, je.text, je.line);
    } else if (prov_prereg_compare(reg, (const char *const *)paths, st, sha, size, err, errlen) == 0) {
        const char *when = json_string_value(json_object_get(reg, "registered_utc"));
        rc = 0;
        for (int i = 0; i < PROV_NPREREG && !rc; i++) {
            name_of(i, paths[i], name, sizeof name);
            if (st[i] == PROV_REG_ABSENT) {
                ut_seterr(err, errlen,
                          "%s registers no %s (a registration older than the lab's seven registered files): run "
                          "make prepare first; it registers the missing ones while this OUT holds no measured run "
                          "(a study measured before cannot gain them: measure it anew in another OUT)",
                          path, PROV_PREREG_FILES[i]);
                rc = -1;
            } else if (st[i] == PROV_REG_CHANGED) {
                ut_seterr(err, errlen,
                          "%s changed since its registration in %s (registered %s): the registered files are "
                          "fixed before any timed run; measure refuses to run",
                          name, path, when ? when : "at an unknown time");
                rc = -1;
            }
        }
    }
    json_decref(reg);
    free(path);
    return rc;
}

/* ------------------------------------------------------------ the prediction */

/* The schedule's runs play can predict: its open-loop arms (rate above 0). */
static int predictable(const arm *a) { return a->rate > 0; }

/* 1 when the prediction at pred was made for this schedule: the profile,
 * its rounds, and exactly its open-loop runs, each of its seconds
 * (prediction format 2: every run has its own). */
static int for_this_schedule(const char *pred, const sched *s)
{
    json_t *p = json_load_file(pred, 0, NULL);
    if (!p)
        return 0;
    const char *prof = json_string_value(json_object_get(p, "profile"));
    json_t *runs = json_object_get(p, "runs"), *rounds = json_object_get(p, "rounds");
    int ok = prof && !strcmp(prof, s->d->profile) && json_is_object(runs) && json_array_size(rounds) == (size_t)s->rounds;
    size_t n = 0;
    for (int i = 0; ok && i < s->n; i++)
        if (predictable(s->s[i].a)) {
            json_t *e = json_object_get(runs, s->s[i].name);
            n++;
            ok = e && json_number_value(json_object_get(e, "seconds")) == s->s[i].seconds;
        }
    ok = ok && json_object_size(runs) == n;
    json_decref(p);
    return ok;
}

/* BIN/predict --predict on the design (DATA/profiles.tsv's profile, with
 * ROOT/results/deviations.tsv when measure wrote one, and the twin's noise
 * model DATA/noise.tsv when there): 0, or 1 with err (its output's last
 * lines). */
static int run_predict(const mreg_cfg *c, const char *pred, char *line, size_t linelen, char *err, size_t errlen)
{
    char *exe = mf_str("%s/predict", c->bin), *profiles = mf_str("%s", c->profiles);
    char *devs = mf_str("%s/" PATH_DEVIATIONS, c->root), *table = mf_str("%s/test.tsv", c->prep);
    char *noise = mf_str("%s/noise.tsv", c->data);
    int has_noise = access(noise, F_OK) == 0, has_devs = access(devs, F_OK) == 0;
    char *argv[20] = {exe, "--predict", (char *)pred, "--arms", (char *)c->arms_path, "--profiles", profiles,
                      "--profile", (char *)c->sc->d->profile, "--comparisons", (char *)c->comparisons, "--table", table};
    int na = 13;
    if (has_devs) {
        argv[na++] = "--deviations";
        argv[na++] = devs;
    }
    if (has_noise) {
        argv[na++] = "--noise";
        argv[na++] = noise;
    }
    argv[na] = NULL;
    char *out = NULL;
    int rc = proc_capture(argv, &out, 1);
    if (rc == 0) {
        const char *l = out ? strstr(out, "predict: ") : NULL;
        snprintf(line, linelen, "%.*s", l ? (int)strcspn(l, "\n") : 0, l ? l : "");
    } else
        ut_seterr(err, errlen, "%s --predict %s failed (exit %d): %s", exe, pred, rc, out ? out : "");
    free(out);
    free(exe);
    free(profiles);
    free(devs);
    free(table);
    free(noise);
    return rc == 0 ? 0 : 1;
}

/* prereg.json gains "prediction"; the UTC time of the registration in when. */
static int register_prediction(const mreg_cfg *c, const char *pred, char when[32], char *err, size_t errlen)
{
    char sha[65];
    uint64_t size = 0;
    if (ut_sha256_file(pred, sha, &size, err, errlen) != 0)
        return 1;
    char *path = mf_str("%s/prereg.json", c->provdir);
    json_error_t je;
    json_t *reg = json_load_file(path, 0, &je);
    int rc = 1;
    if (!reg)
        ut_seterr(err, errlen, "%s: %s (line %d)", path, je.text, je.line);
    else {
        ut_utc_iso(when);
        json_t *e = json_object();
        json_object_set_new(e, "path", json_string(PATH_PREDICTION) /* under the root, as registered */);
        json_object_set_new(e, "sha256", json_string(sha));
        json_object_set_new(e, "size", json_integer((json_int_t)size));
        json_object_set_new(e, "registered_utc", json_string(when));
        json_object_set_new(reg, "prediction", e);
        char *text = json_dumps(reg, JSON_INDENT(1)); /* prepare's layout */
        rc = text && ut_write_file(path, text, strlen(text), err, errlen) == 0 ? 0 : 1;
        free(text);
    }
    json_decref(reg);
    free(path);
    return rc;
}

/* Until the UTC second after `when` has begun. */
static void next_second(const char *when)
{
    for (int i = 0; i < 300; i++) {
        char now[32];
        ut_utc_iso(now);
        if (strcmp(now, when) > 0)
            return;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
}

/* The registration's entry: 0 none, 1 matching the file, -1 not matching (why). */
static int registered(const mreg_cfg *c, const char *pred, char *when, size_t wl, char *why, size_t whyl)
{
    char *path = mf_str("%s/prereg.json", c->provdir);
    json_t *reg = json_load_file(path, 0, NULL);
    json_t *e = json_object_get(reg, "prediction");
    int st = 0;
    if (e) {
        const char *want = json_string_value(json_object_get(e, "sha256"));
        const char *at = json_string_value(json_object_get(e, "registered_utc"));
        snprintf(when, wl, "%s", at ? at : "at an unknown time");
        char sha[65], err[UT_ERRLEN];
        uint64_t size = 0;
        st = 1;
        if (ut_sha256_file(pred, sha, &size, err, sizeof err) != 0) {
            snprintf(why, whyl, "%s is gone or unreadable, yet %s registers a prediction (registered %s): measure "
                                "refuses to run",
                     pred, path, when);
            st = -1;
        } else if (!want || strcmp(sha, want) != 0 ||
                   (json_int_t)size != json_integer_value(json_object_get(e, "size"))) {
            snprintf(why, whyl,
                     "%s no longer matches its registration in %s (registered %s): the prediction is fixed before "
                     "the first run; measure refuses to run",
                     pred, path, when);
            st = -1;
        }
    }
    json_decref(reg);
    free(path);
    return st;
}

int mreg_prediction(const mreg_cfg *c, char *said, size_t saidlen, char *err, size_t errlen)
{
    char *pred = mf_str("%s/" PATH_PREDICTION, c->root), when[64] = "", why[UT_ERRLEN] = "";
    int rc = 0, st = registered(c, pred, when, sizeof when, why, sizeof why);
    said[0] = 0;
    if (st < 0) {
        ut_seterr(err, errlen, "%s", why);
        rc = 2;
    } else if (st > 0 && for_this_schedule(pred, c->sc)) {
        snprintf(said, saidlen, "prediction %s registered %s: kept", pred, when);
    } else if (c->present) {
        if (st > 0) { /* sched_agree refuses another schedule over runs: not reached */
            ut_seterr(err, errlen, "%s was made for another schedule, and runs are measured: use another OUT", pred);
            rc = 2;
        } else
            snprintf(said, saidlen, "no prediction: runs were measured here before any was registered (it would "
                                    "come after them); use another OUT for a study with its prediction");
    } else {
        char line[1024] = "", at[32];
        int64_t t0 = ut_mono_ns();
        rc = run_predict(c, pred, line, sizeof line, err, errlen);
        double secs = (double)(ut_mono_ns() - t0) / 1e9;
        if (rc == 0 && (rc = register_prediction(c, pred, at, err, errlen)) == 0) {
            snprintf(said, saidlen, "prediction made in %.1f s and registered at %s%s (%s)", secs, at,
                     st > 0 ? ", anew: the one registered was for another schedule" : "", line);
            next_second(at);
        }
    }
    free(pred);
    return rc;
}
