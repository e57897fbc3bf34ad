/* remote: see remote.h for the contract. */
#include "remote.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exits.h"
#include "mfiles.h"
#include "paths.h"
#include "proc.h"
#include "prov.h"
#include "util.h"

/* One host's far folder. */
struct remote_far {
    const remote_cfg *cfg;
    const char *host;
    const char *label; /* NULL: the one-host path */
    char *rdir;        /* the far folder */
    char *stage;       /* here: the folder of symlinks sent there */
    char *incoming;    /* here: where the runs come home first */
};
typedef struct remote_far far;

int remote_host_ok(const char *h)
{
    if (!h[0] || h[0] == '-')
        return 0;
    for (const char *p = h; *p; p++)
        if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
              strchr("._@:-[]%", *p)))
            return 0;
    return 1;
}

static int sh(const char *cmd, char **out)
{
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    return proc_capture(argv, out, 0);
}

char *remote_ssh_base(const remote_cfg *cfg)
{
    /* ssh takes the first value of each option: the user's options go first. */
    return mf_str("ssh %s -o BatchMode=yes -o ServerAliveInterval=30 -o ServerAliveCountMax=10",
                  cfg->ssh_opts ? cfg->ssh_opts : "");
}

/* ssh HOST 'remote' with remote quoted for the local sh. */
static char *ssh_cmd(const far *f, const char *remote)
{
    char *q = mf_shq(remote), *base = remote_ssh_base(f->cfg);
    char *cmd = mf_str("%s %s %s", base, f->host, q);
    free(q);
    free(base);
    return cmd;
}

/* ssh HOST 'remote' through sh; its exit code, its stdout into *out when out is given. */
static int ssh_run(const far *f, const char *remote, char **out)
{
    char *cmd = ssh_cmd(f, remote);
    int r = sh(cmd, out);
    free(cmd);
    return r;
}

/* The runs not complete, comma-separated; their number in *todo. */
static char *only_list(const sched *s, int *todo)
{
    size_t lcap = 64;
    char *only = malloc(lcap);
    if (!only)
        exit(1);
    only[0] = 0;
    *todo = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->s[i].complete)
            continue;
        size_t need = strlen(only) + strlen(s->s[i].name) + 2;
        if (need > lcap && !(only = realloc(only, lcap = need * 2)))
            exit(1);
        if ((*todo)++)
            strcat(only, ",");
        strcat(only, s->s[i].name);
    }
    return only;
}

/* 1. a fresh folder there */
static int make_far_folder(far *f)
{
    char *out = NULL, *mk = mf_str("mktemp -d \"${TMPDIR:-/tmp}/lab-measure%s%s.XXXXXX\"", f->label ? "-" : "",
                                   f->label ? f->label : "");
    int r = ssh_run(f, mk, &out), rc = -1;
    const char *host = f->host;
    free(mk);
    if (r != 0 || !out) {
        ut_err("%s: cannot make a folder there over ssh (ssh exit %d; is key login set up and the host key "
               "accepted? try: ssh %s true)",
               host, r, host);
    } else {
        out[strcspn(out, "\r\n")] = 0;
        if (out[0] != '/' ||
            strspn(out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") != strlen(out)) {
            ut_err("%s: mktemp gave \"%s\", not a plain folder name", host, out);
        } else {
            f->rdir = out;
            out = NULL;
            ut_err("far folder %s:%s", host, f->rdir);
            rc = 0;
        }
    }
    free(out);
    return rc;
}

static int stage_link(const char *stage, const char *rel, const char *target, char *err, size_t errlen)
{
    char *p = mf_str("%s/%s", stage, rel), *dir = mf_str("%s", p);
    *strrchr(dir, '/') = 0;
    int rc = ut_mkdir_p(dir, err, errlen);
    char abs[4096];
    if (rc == 0 && !realpath(target, abs)) {
        ut_seterr(err, errlen, "%s: %s", target, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && symlink(abs, p) != 0) {
        ut_seterr(err, errlen, "%s: %s", p, strerror(errno));
        rc = -1;
    }
    free(p);
    free(dir);
    return rc;
}

/* Links stage/<reldir>/<name> -> <dir>/<name> for each name. */
static int stage_links(const char *stage, const char *reldir, const char *dir, const char *const *names, int n,
                       char *err, size_t errlen)
{
    int bad = 0;
    for (int i = 0; !bad && i < n; i++) {
        char *rel = mf_str("%s/%s", reldir, names[i]), *t = mf_str("%s/%s", dir, names[i]);
        bad = stage_link(stage, rel, t, err, errlen);
        free(rel);
        free(t);
    }
    return bad;
}

/* 2a. the lab as a folder of symlinks here (tar -h follows them) */
static int stage_lab(far *f, char *err, size_t errlen)
{
    const remote_cfg *c = f->cfg;
    char tmpl[] = "/tmp/lab-stage.XXXXXX";
    if (!mkdtemp(tmpl)) {
        ut_seterr(err, errlen, "mkdtemp: %s", strerror(errno));
        return -1;
    }
    f->stage = mf_str("%s", tmpl);
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) {
        ut_seterr(err, errlen, "/proc/self/exe: %s", strerror(errno));
        return -1;
    }
    self[sl] = 0;
    int bad = stage_link(f->stage, "quiet-rules.tsv", c->quiet, err, errlen);
    if (!c->far_lab && !bad) /* else the far lab's own build, prepared files and registered files */
        bad = stage_link(f->stage, "build/bin/measure", self, err, errlen) ||
              stage_links(f->stage, "build/bin", c->bin, MF_PROGS, MF_NPROG, err, errlen) ||
              stage_links(f->stage, "build/prep", c->prep, MF_PREP_FILES, MF_NPREP, err, errlen);
    for (int i = 0; i < PROV_NPREREG && !bad && !c->far_lab; i++) /* lab/arms.tsv among them */
        bad = stage_link(f->stage, PROV_PREREG_FILES[i], c->prereg[i], err, errlen);
    if (!bad) {
        char *t = mf_str("%s/prereg.json", c->provdir);
        bad = stage_link(f->stage, "out/" PATH_PROV_DIR "/prereg.json", t, err, errlen);
        free(t);
    }
    return bad ? -1 : 0;
}

/* 2b. tar over ssh */
static int copy_there(far *f)
{
    ut_err("copying the lab to %s (programs, prepared files, arms, registered data)", f->host);
    char *rq = mf_shq(f->rdir), *remote = mf_str("tar -xf - -C %s", rq), *sq = mf_shq(f->stage);
    char *ssh = ssh_cmd(f, remote), *cmd = mf_str("tar -C %s -chf - . | %s", sq, ssh);
    int r = sh(cmd, NULL);
    free(rq);
    free(remote);
    free(sq);
    free(ssh);
    free(cmd);
    if (r != 0)
        ut_err("copying to %s failed (exit %d)", f->host, r);
    return r != 0 ? -1 : 0;
}

/* 2c. --far-lab: the far folder's build, lab, data and pipeline are the far lab's */
static int link_far_lab(far *f)
{
    char *lq = mf_shq(f->cfg->far_lab), *rq = mf_shq(f->rdir), *out = NULL;
    char *remote = mf_str("L=$(cd && cd %s && pwd) && test -x \"$L/build/bin/measure\" && test -f "
                          "\"$L/build/prep/summary.json\" && cd %s && for d in build lab data pipeline; do "
                          "ln -s \"$L/$d\" $d || exit 1; done",
                          lq, rq);
    int r = ssh_run(f, remote, &out);
    if (r != 0)
        ut_err("%s: no built and prepared lab in %s there (make build prepare there first)", f->host,
               f->cfg->far_lab);
    free(lq);
    free(rq);
    free(remote);
    free(out);
    return r != 0 ? -1 : 0;
}

/* 3. the same libraries there? */
static int check_libraries(far *f)
{
    char *rq = mf_shq(f->rdir), *out = NULL;
    char *remote = mf_str("cd %s && for p in build/bin/*; do ldd \"$p\" 2>/dev/null | grep 'not found' | "
                          "sed \"s|^|$p: |\"; done; true",
                          rq);
    int r = ssh_run(f, remote, &out), rc = 0;
    if (r == 0 && out && out[0]) {
        ut_err("%s lacks libraries the lab needs; install there: apt-get install libevent-2.1-7 "
               "libjansson4 zlib1g libssl3 (Debian 12). Missing:\n%s",
               f->host, out);
        rc = -1;
    }
    free(rq);
    free(remote);
    free(out);
    return rc;
}

char *remote_far_cmd(const far *f, const sched *s, const char *machine, const char *only)
{
    const remote_cfg *c = f->cfg;
    char *cq = mf_shq(c->cores);
    char *extra = c->settle ? mf_str(" --settle-s %s", c->settle) : mf_str("%s", "");
    /* the design as run here: the far side departs from the registration as
     * measure does here (--rounds, --closed-s), so that its schedule is ours;
     * the reason stays here, in our results/deviations.tsv */
    const prof_design *d = s->d;
    int rounds_dev = 0;
    double closed = 0;
    for (int i = 0; i < d->ng; i++)
        rounds_dev |= d->g[i].rounds != d->g[i].reg_rounds;
    for (int i = 0; i < d->np; i++)
        if (d->p[i].a->rate == 0 && d->g[d->p[i].group].seconds != d->g[d->p[i].group].reg_seconds)
            closed = d->g[d->p[i].group].seconds;
    if (rounds_dev) {
        char *e2 = mf_str("%s --rounds %d", extra, s->rounds);
        free(extra);
        extra = e2;
    }
    if (closed > 0) {
        char *e2 = mf_str("%s --closed-s %g", extra, closed);
        free(extra);
        extra = e2;
    }
    char *cmd = mf_str("build/bin/measure --profile %s --root out --prep build/prep --arms lab/arms.tsv "
                       "--bin build/bin --data data --cores %s --gate %d%s --quiet quiet-rules.tsv "
                       "--machine %s --only %s",
                       d->profile, cq, c->gate, extra, machine, only);
    free(cq);
    free(extra);
    return cmd;
}

/* 4. the schedule there, progress streamed; the far measure's exit code */
static int run_there(far *f, const sched *s, const char *only, int todo)
{
    char *rq = mf_shq(f->rdir), *oq = mf_shq(only), *cmd = remote_far_cmd(f, s, "m1", oq);
    char *remote = mf_str("cd %s && echo $$ > measure.pid && exec %s", rq, cmd);
    ut_err("measuring %d runs on %s", todo, f->host);
    int r = ssh_run(f, remote, NULL);
    free(rq);
    free(oq);
    free(cmd);
    free(remote);
    return r;
}

/* 5. home, into a staging folder beside raw/ */
static int fetch_home(far *f, char *err, size_t errlen)
{
    free(f->incoming);
    f->incoming = f->label ? mf_str("%s/.incoming-%s.tmp", f->cfg->raw, f->label)
                           : mf_str("%s/.incoming.tmp", f->cfg->raw);
    mf_rm_rf(f->incoming);
    if (ut_mkdir_p(f->incoming, err, errlen) != 0) {
        ut_err("%s", err);
        return -1;
    }
    char *rq = mf_shq(f->rdir);
    /* the kept attempts too, when the far measure kept any */
    char *remote = mf_str("cd %s/out && tar -cf - --exclude='.*' " PATH_RAW_DIR " " PATH_SCHEDULE " " PATH_RUNS_DIR
                          " $(test -d " PATH_ATTEMPTS_DIR " && echo " PATH_ATTEMPTS_DIR ")",
                          rq);
    char *ssh = ssh_cmd(f, remote), *iq = mf_shq(f->incoming), *cmd = mf_str("%s | tar -xf - -C %s", ssh, iq);
    int saved = proc_signal();
    proc_signal_set(0); /* let a second signal stop the copy */
    int r = sh(cmd, NULL);
    if (!proc_signal())
        proc_signal_set(saved);
    free(rq);
    free(remote);
    free(ssh);
    free(iq);
    free(cmd);
    if (r != 0)
        ut_err("copying the results home failed (exit %d)", r);
    return r != 0 ? -1 : 0;
}

/* 6a. the far schedule.tsv equals ours */
static int same_schedule(const far *f)
{
    char *sp = mf_str("%s/" PATH_SCHEDULE, f->incoming), *theirs = NULL, *ours = NULL;
    size_t tn, on;
    char e2[UT_ERRLEN];
    int same = ut_read_file(sp, &theirs, &tn, e2, sizeof e2) == 0 &&
               ut_read_file(f->cfg->sched_path, &ours, &on, e2, sizeof e2) == 0 && tn == on &&
               !memcmp(theirs, ours, on);
    free(sp);
    free(theirs);
    free(ours);
    if (!same)
        ut_err("the far schedule differs from %s: nothing taken", f->cfg->sched_path);
    return same;
}

/* 6b. run i's records: the older ones here go, the far ones (its earlier
 * attempts' too) are moved into place; its gate noted.  0, or -1 when one
 * could not be moved. */
static int take_record(far *f, sched_run *s, const char *iruns)
{
    char *rf = mf_str("%s/%s.json", iruns, s->name), *rt = mf_str("%s/%s.json", f->cfg->runsdir, s->name);
    int rc = 0;
    for (int n = 1; n < 1000; n++) {
        char *old = mf_str("%s/%s.attempt-%d.json", f->cfg->runsdir, s->name, n);
        int gone = unlink(old) != 0 && errno == ENOENT;
        free(old);
        if (gone)
            break;
    }
    for (int n = 1; n < 1000 && !rc; n++) {
        char *af = mf_str("%s/%s.attempt-%d.json", iruns, s->name, n);
        char *at = mf_str("%s/%s.attempt-%d.json", f->cfg->runsdir, s->name, n);
        int there = access(af, F_OK) == 0;
        if (there && rename(af, at) != 0) {
            ut_err("%s: cannot move into place: %s", at, strerror(errno));
            rc = -1;
        }
        free(af);
        free(at);
        if (!there)
            break;
    }
    if (access(rf, F_OK) == 0) {
        json_t *rec = json_load_file(rf, 0, NULL);
        if (rec && json_is_false(json_object_get(rec, "gate_passed")) && !s->complete)
            s->gated = 1;
        json_decref(rec);
        if (rename(rf, rt) != 0) {
            ut_err("%s: cannot move into place: %s", rt, strerror(errno));
            rc = -1;
        }
    }
    free(rf);
    free(rt);
    return rc;
}

/* 6c'. run s's kept attempts (incoming results/attempts/<run>-a<N>/), each
 * checked as a run folder of s, moved into place beside any kept here; one
 * whose name is taken here is not moved over it (nothing is overwritten)
 * but named, and counted: the number not taken. */
static int take_attempts(far *f, const sched_run *s)
{
    char *iatt = mf_str("%s/" PATH_ATTEMPTS_DIR, f->incoming);
    const char *latt = f->cfg->attempts;
    mf_list got = {0};
    mf_list_dir(iatt, &got);
    int broken = 0;
    for (size_t i = 0; i < got.n; i++) {
        char run[64], why[300] = "", err[UT_ERRLEN];
        int n;
        if (mf_attempt_parse(got.v[i], run, sizeof run, &n) != 0 || strcmp(run, s->name) != 0)
            continue;
        sched_run as = *s;
        snprintf(as.name, sizeof as.name, "%s", got.v[i]);
        char *from = mf_str("%s/%s", iatt, got.v[i]), *to = mf_str("%s/%s", latt, got.v[i]);
        if (sched_check_run(iatt, &as, why, sizeof why) != 1) {
            ut_err("%s from %s: %s: not taken", got.v[i], f->host, why);
            broken++;
        } else if (access(to, F_OK) == 0) {
            ut_err("%s: already here; the attempt from %s is not moved over it: not taken", to, f->host);
            broken++;
        } else if (ut_mkdir_p(latt, err, sizeof err) != 0 || rename(from, to) != 0) {
            ut_err("%s: cannot move into place: %s", to, err[0] ? err : strerror(errno));
            broken++;
        }
        free(from);
        free(to);
    }
    mf_list_free(&got);
    free(iatt);
    return broken;
}

/* 6c. every wanted run checked against its run.json here, then moved into
 * place, its kept attempts with it; the number that could not be taken. */
static int take_runs(far *f, sched *sc, const char *want)
{
    const remote_cfg *c = f->cfg;
    char *iraw = mf_str("%s/" PATH_RAW_DIR, f->incoming), *iruns = mf_str("%s/" PATH_RUNS_DIR, f->incoming);
    int broken = 0, got = 0;
    for (int i = 0; i < sc->n; i++) {
        sched_run *s = &sc->s[i];
        if (want ? !want[i] : s->complete)
            continue;
        s->complete = 0;
        char why[256] = "";
        int st = sched_check_run(iraw, s, why, sizeof why);
        char *from = mf_str("%s/%s", iraw, s->name), *to = mf_str("%s/%s", c->raw, s->name);
        if (st == 1) {
            mf_rm_rf(to);
            if (rename(from, to) != 0) {
                ut_err("%s: cannot move into place: %s", to, strerror(errno));
                broken++;
            } else {
                s->complete = 1;
                got++;
            }
        } else if (st < 0) {
            ut_err("%s from %s %s: not taken", s->name, f->host, why);
            broken++;
        }
        free(from);
        free(to);
        broken += take_attempts(f, s);
        broken += take_record(f, s, iruns) != 0;
    }
    free(iraw);
    free(iruns);
    ut_err("%d runs came home from %s, each file matching its run.json", got, f->host);
    return broken;
}

/* 7. the far folder goes (its measure first, if it still runs) */
static void remove_far(const far *f)
{
    char *rq = mf_shq(f->rdir);
    char *remote = mf_str("p=$(cat %s/measure.pid 2>/dev/null); "
                          "if [ -n \"$p\" ] && [ \"$(readlink /proc/$p/cwd 2>/dev/null)\" = %s ]; then "
                          "kill -TERM \"$p\"; sleep 1; fi; rm -rf %s",
                          rq, rq, rq);
    int r = ssh_run(f, remote, NULL);
    if (r == 0)
        ut_err("far folder %s:%s removed", f->host, f->rdir);
    else
        ut_err("could not remove the far folder %s:%s (ssh exit %d); the runs are home", f->host, f->rdir, r);
    free(rq);
    free(remote);
}

/* Setting up there failed: the far folder goes, nothing was measured there. */
static void abandon_far(const far *f, const char *err)
{
    if (err[0])
        ut_err("%s", err);
    char *rq = mf_shq(f->rdir), *remote = mf_str("rm -rf %s", rq);
    ssh_run(f, remote, NULL);
    free(rq);
    free(remote);
}

static void far_free(far *f)
{
    if (f->stage)
        mf_rm_rf(f->stage);
    if (f->incoming)
        mf_rm_rf(f->incoming);
    free(f->stage);
    free(f->incoming);
    free(f->rdir);
    free(f);
}

far *remote_open(const remote_cfg *cfg, const char *host, const char *label, char *err, size_t errlen)
{
    far *f = calloc(1, sizeof *f);
    if (!f)
        exit(1);
    f->cfg = cfg;
    f->host = host;
    f->label = label;
    if (make_far_folder(f) != 0) {
        far_free(f);
        return NULL;
    }
    if (stage_lab(f, err, errlen) != 0 || copy_there(f) != 0 || (cfg->far_lab && link_far_lab(f) != 0) ||
        check_libraries(f) != 0) {
        abandon_far(f, err);
        far_free(f);
        return NULL;
    }
    mf_rm_rf(f->stage);
    free(f->stage);
    f->stage = NULL;
    return f;
}

const char *remote_dir(const far *f) { return f->rdir; }

int remote_run(const far *f, const char *cmd, char **out)
{
    char *rq = mf_shq(f->rdir), *remote = mf_str("cd %s && %s", rq, cmd);
    int r = ssh_run(f, remote, out);
    free(rq);
    free(remote);
    return r;
}

int remote_take(far *f, sched *s, const char *want, char *err, size_t errlen)
{
    if (fetch_home(f, err, errlen) != 0 || !same_schedule(f) || take_runs(f, s, want) != 0)
        return -1;
    mf_rm_rf(f->incoming);
    return 0;
}

void remote_close(far *f, int remove)
{
    if (remove)
        remove_far(f);
    else
        ut_err("the far folder %s:%s is kept (nothing there removed): its out/" PATH_RAW_DIR " holds the runs", f->host,
               f->rdir);
    far_free(f);
}

int remote_measure(const remote_cfg *cfg, sched *s, char *err, size_t errlen)
{
    int todo = 0, rc = EXIT_FAIL;
    char *only = only_list(s, &todo);
    far *f = todo ? remote_open(cfg, cfg->host, NULL, err, errlen) : NULL;
    if (!todo) {
        rc = EXIT_OK;
    } else if (f) {
        int far_rc = run_there(f, s, only, todo), sig_during = proc_signal();
        if (sig_during)
            ut_err("stopped (signal %d): fetching the runs complete there", sig_during);
        if (remote_take(f, s, NULL, err, errlen) != 0) {
            remote_close(f, 0);
            rc = proc_signal() ? 128 + proc_signal() : EXIT_FAIL;
        } else {
            remote_close(f, 1);
            if (sig_during)
                rc = 128 + sig_during;
            else if (far_rc == EXIT_OK || far_rc == EXIT_NOT_QUIET)
                rc = far_rc;
            else
                rc = far_rc == EXIT_USAGE ? EXIT_USAGE : EXIT_FAIL;
        }
    }
    free(only);
    return rc;
}
