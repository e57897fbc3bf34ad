/* multi: see multi.h for the contract. */
#include "multi.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exits.h"
#include "mfiles.h"
#include "opt.h"
#include "paths.h"
#include "proc.h"
#include "util.h"

/* One invocation across the hosts. */
typedef struct {
    const remote_cfg *cfg;
    sched *s;
    char *hostbuf;      /* the list, cut at its commas */
    const char **host;  /* n hosts */
    char (*label)[16];  /* m1, m2 ... */
    remote_far **far;   /* NULL: not opened */
    int n;
    int *round;         /* the rounds to measure, in order: job j (Seq j + 1) measures round[j] */
    int nround;
    int *final_host;    /* per job: the host of its last joblog line, -1 none */
    int *final_exit;    /* per job: its Exitval, or 128 + Signal */
    char *tmp;          /* here: jobs.tsv and joblog.tsv */
} multi;

static void split(multi *m, const char *list)
{
    m->hostbuf = mf_str("%s", list);
    m->n = multi_count(list);
    m->host = calloc((size_t)m->n, sizeof *m->host);
    m->label = calloc((size_t)m->n, sizeof *m->label);
    m->far = calloc((size_t)m->n, sizeof *m->far);
    if (!m->host || !m->label || !m->far)
        exit(1);
    char *p = m->hostbuf;
    for (int i = 0; i < m->n; i++) {
        m->host[i] = p;
        snprintf(m->label[i], sizeof m->label[i], "m%d", i + 1);
        p += strcspn(p, ",");
        if (*p)
            *p++ = 0;
    }
}

int multi_count(const char *list)
{
    int n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    return n;
}

int multi_hosts_ok(const char *list, char *why, size_t whylen)
{
    multi m = {0};
    split(&m, list);
    int ok = 1;
    for (int i = 0; i < m.n && ok; i++) {
        if (!remote_host_ok(m.host[i])) {
            snprintf(why, whylen, "\"%s\" is not a user@host", m.host[i]);
            ok = 0;
        }
        for (int j = 0; j < i && ok; j++)
            if (!strcmp(m.host[i], m.host[j])) {
                snprintf(why, whylen, "%s given twice (two hosts that are one machine need two names, "
                                      "e.g. Host aliases in an ssh config: LAB_SSH_OPTS=\"-F FILE\")",
                         m.host[i]);
                ok = 0;
            }
    }
    free(m.hostbuf);
    free(m.host);
    free(m.label);
    free(m.far);
    return ok;
}

static int sh(const char *cmd, char **out)
{
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    return proc_capture(argv, out, 0);
}

/* 1. every round with a run not complete here, measured whole */
static void plan_rounds(multi *m)
{
    const sched *s = m->s;
    m->round = calloc((size_t)s->rounds + 1, sizeof *m->round);
    if (!m->round)
        exit(1);
    for (int r = 1; r <= s->rounds; r++) {
        int todo = 0;
        for (int i = 0; i < s->n; i++)
            todo |= s->s[i].round == r && s->s[i].selected && !s->s[i].complete;
        if (todo)
            m->round[m->nround++] = r;
    }
    m->final_host = malloc(((size_t)m->nround + 1) * sizeof *m->final_host);
    m->final_exit = malloc(((size_t)m->nround + 1) * sizeof *m->final_exit);
    if (!m->final_host || !m->final_exit)
        exit(1);
    for (int j = 0; j < m->nround; j++) {
        m->final_host[j] = -1;
        m->final_exit[j] = -1;
    }
}

/* The runs of round r, comma-separated, in the schedule's order. */
static char *round_runs(const sched *s, int r)
{
    char *list = mf_str("%s", "");
    for (int i = 0; i < s->n; i++)
        if (s->s[i].round == r) {
            char *l = mf_str("%s%s%s", list, list[0] ? "," : "", s->s[i].name);
            free(list);
            list = l;
        }
    return list;
}

/* jobs.tsv: one line per round job, "<round>\t<its runs>" */
static int write_jobs(const multi *m, char *err, size_t errlen)
{
    char *p = mf_str("%s/jobs.tsv", m->tmp);
    FILE *f = fopen(p, "w");
    if (!f) {
        ut_seterr(err, errlen, "%s: %s", p, strerror(errno));
        free(p);
        return -1;
    }
    for (int j = 0; j < m->nround; j++) {
        char *runs = round_runs(m->s, m->round[j]);
        fprintf(f, "%d\t%s\n", m->round[j], runs);
        free(runs);
    }
    int bad = fclose(f) != 0;
    if (bad)
        ut_seterr(err, errlen, "%s: %s", p, strerror(errno));
    free(p);
    return bad ? -1 : 0;
}

/* The round job's command, the same for every host: its far folder and
 * label from $PARALLEL_SSHLOGIN; the round's runs of an earlier attempt
 * there removed (their kept attempts and records too: that round job's
 * measurements are not taken home); then the far measure of just those runs; its exit code
 * noted in the far attempts.log (parallel keeps no trace of an attempt
 * it retries). */
static char *job_command(const multi *m)
{
    char *cases = mf_str("%s", "");
    for (int i = 0; i < m->n; i++) {
        char *hq = mf_shq(m->host[i]), *dq = mf_shq(remote_dir(m->far[i]));
        char *c = mf_str("%s%s) cd %s && L=%s ;; ", cases, hq, dq, m->label[i]);
        free(cases);
        free(hq);
        free(dq);
        cases = c;
    }
    char *far = remote_far_cmd(m->far[0], m->s, "\"$L\"", "{2}");
    char *cmd = mf_str("case \"$PARALLEL_SSHLOGIN\" in %s*) echo \"measure-round: no far folder for this host\" "
                       ">&2; exit 97 ;; esac && for r in $(echo {2} | tr , ' '); do rm -rf out/" PATH_RAW_DIR "/\"$r\" "
                       "out/" PATH_RAW_DIR "/.\"$r\".tmp out/" PATH_ATTEMPTS_DIR "/\"$r\"-a* out/" PATH_RUNS_DIR "/\"$r\".json "
                       "out/" PATH_RUNS_DIR "/\"$r\".attempt-*.json; done && { %s; e=$?; "
                       "echo \"{1} $e\" >> attempts.log; exit $e; }",
                       cases, far);
    free(cases);
    free(far);
    return cmd;
}

/* 3. GNU parallel, progress streamed; its exit code (the jobs that failed) */
static int run_parallel(const multi *m)
{
    char *base = remote_ssh_base(m->cfg), *bq = mf_shq(base), *job = job_command(m), *jq = mf_shq(job);
    char *tq = mf_shq(m->tmp), *logins = mf_str("%s", "");
    for (int i = 0; i < m->n; i++) {
        char *one = mf_str("1/%s", m->host[i]), *oq = mf_shq(one), *l = mf_str("%s --sshlogin %s", logins, oq);
        free(one);
        free(oq);
        free(logins);
        logins = l;
    }
    char *cmd = mf_str("parallel --will-cite --line-buffer --colsep '\\t' --ssh %s%s --retries %d "
                       "--joblog %s/joblog.tsv %s :::: %s/jobs.tsv",
                       bq, logins, MULTI_RETRIES, tq, jq, tq);
    ut_err("%d rounds on %d hosts at once (GNU parallel, one round job at a time per host)", m->nround, m->n);
    int r = sh(cmd, NULL);
    free(base);
    free(bq);
    free(job);
    free(jq);
    free(tq);
    free(logins);
    free(cmd);
    return r;
}

/* Cuts a joblog line at its tabs into f[9]; 0 when it has nine fields. */
static int fields(char *line, char **f)
{
    int k = 0;
    for (char *p = line; k < 9; k++) {
        f[k] = p;
        p += strcspn(p, "\t");
        if (!*p)
            return k == 8 ? 0 : -1;
        *p++ = 0;
    }
    return -1;
}

static char *trim(char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

/* The greatest Seq of the earlier parallel.tsv's lines (kept, without the
 * header, in *old), 0 when there is none; -1 when a line is not ours. */
static int64_t old_lines(const char *path, char **old, char *err, size_t errlen)
{
    size_t n = 0;
    char e2[UT_ERRLEN], why[128];
    if (ut_read_file(path, old, &n, e2, sizeof e2) != 0) {
        *old = mf_str("%s", "");
        return 0;
    }
    char *nl = strchr(*old, '\n');
    memmove(*old, nl ? nl + 1 : *old + n, strlen(nl ? nl + 1 : *old + n) + 1); /* without the header */
    int64_t max = 0, seq;
    int lineno = 2;
    for (char *l = *old; *l; lineno++) {
        size_t len = strcspn(l, "\n"), cut = strcspn(l, "\t");
        char num[32];
        snprintf(num, sizeof num, "%.*s", (int)(cut < sizeof num - 1 ? cut : sizeof num - 1), l);
        if (cut >= len || opt_i64(num, 1, INT32_MAX, &seq, why, sizeof why) != 0) {
            ut_seterr(err, errlen, "%s line %d: Seq \"%s\": not a line of parallel.tsv; move the file away", path,
                      lineno, num);
            return -1;
        }
        max = seq > max ? seq : max;
        l += len + (l[len] == '\n');
    }
    return max;
}

/* One line of parallel's joblog, as parallel.tsv's line; 0, or -1 when it is not a joblog line of these hosts. */
static int job_line(multi *m, char *l, int64_t base, FILE *out)
{
    char *f[9], why[128];
    int64_t seq, ev, sig;
    if (fields(l, f) != 0 || opt_i64(trim(f[0]), 1, m->nround, &seq, why, sizeof why) != 0 ||
        opt_i64(trim(f[6]), -1000, 1000, &ev, why, sizeof why) != 0 ||
        opt_i64(trim(f[7]), 0, 1000, &sig, why, sizeof why) != 0)
        return -1;
    int h = -1;
    for (int i = 0; i < m->n; i++)
        h = !strcmp(trim(f[1]), m->host[i]) ? i : h;
    if (h < 0)
        return -1;
    m->final_host[seq - 1] = h;
    m->final_exit[seq - 1] = sig ? 128 + (int)sig : (int)ev;
    fprintf(out, "%lld\t%s\t%s\t%s\t%s\t%s\t%s\t%s\tmeasure-round %d\n", (long long)(base + seq), m->label[h],
            trim(f[2]), trim(f[3]), trim(f[4]), trim(f[5]), trim(f[6]), trim(f[7]), m->round[seq - 1]);
    return 0;
}

/* 4. the joblog read (each job's last line wins) and written as parallel.tsv */
static int take_joblog(multi *m, char *err, size_t errlen)
{
    char *jl = mf_str("%s/joblog.tsv", m->tmp), *text = NULL, *old = NULL;
    char *dst = mf_str("%s/parallel.tsv", m->cfg->provdir);
    size_t n = 0;
    int64_t base = 0;
    int rc = ut_read_file(jl, &text, &n, err, errlen);
    if (rc == 0 && (base = old_lines(dst, &old, err, errlen)) < 0)
        rc = -1;
    ut_afile a;
    if (rc == 0 && (rc = ut_aopen(&a, dst, err, errlen)) == 0) {
        fprintf(a.f, "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n%s", old);
        int lineno = 2;
        char *save = NULL, *l = strtok_r(text, "\n", &save); /* parallel's header */
        for (l = strtok_r(NULL, "\n", &save); l && rc == 0; l = strtok_r(NULL, "\n", &save), lineno++)
            if (job_line(m, l, base, a.f) != 0) {
                ut_seterr(err, errlen, "%s line %d: not a line of GNU parallel's joblog for these hosts", jl, lineno);
                rc = -1;
            }
        char e2[UT_ERRLEN];
        if (ut_aclose(&a, rc == 0, e2, sizeof e2) != 0 && rc == 0) {
            snprintf(err, errlen, "%s", e2);
            rc = -1;
        }
    }
    free(jl);
    free(text);
    free(old);
    free(dst);
    return rc;
}

/* 5. host h's runs home: those of the rounds whose last attempt it made and
 * ended EXIT_OK (or EXIT_NOT_QUIET: the runs that passed the gate are kept, a rerun measures
 * the round again).  0, or -1 when some did not come home intact. */
static int take_host(multi *m, int h, char *err, size_t errlen)
{
    char *want = calloc((size_t)m->s->n + 1, 1);
    int any = 0, rc = 0;
    if (!want)
        exit(1);
    for (int j = 0; j < m->nround; j++)
        if (m->final_host[j] == h && (m->final_exit[j] == EXIT_OK || m->final_exit[j] == EXIT_NOT_QUIET))
            for (int i = 0; i < m->s->n; i++)
                if (m->s->s[i].round == m->round[j])
                    any = want[i] = 1;
    if (any)
        rc = remote_take(m->far[h], m->s, want, err, errlen);
    free(want);
    return rc;
}

static void free_multi(multi *m)
{
    if (m->tmp)
        mf_rm_rf(m->tmp);
    free(m->tmp);
    free(m->hostbuf);
    free(m->host);
    free(m->label);
    free(m->far);
    free(m->round);
    free(m->final_host);
    free(m->final_exit);
}

/* Every round job attempt that failed, as each far attempts.log says. */
static void say_attempts(const multi *m)
{
    for (int h = 0; h < m->n; h++) {
        char *out = NULL, *save = NULL;
        if (remote_run(m->far[h], "cat attempts.log 2>/dev/null; true", &out) == 0 && out)
            for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                int r, e;
                if (sscanf(l, "%d %d", &r, &e) == 2 && e != 0)
                    ut_err("round %d failed on %s (exit %d); GNU parallel measures it again whole, on another "
                           "host if there is one",
                           r, m->label[h], e);
            }
        free(out);
    }
}

/* Says how each round went; the exit code the rounds give. */
static int rounds_said(const multi *m)
{
    int rc = EXIT_OK;
    for (int j = 0; j < m->nround; j++) {
        int h = m->final_host[j], e = m->final_exit[j];
        if (h < 0)
            ut_err("round %d: not measured", m->round[j]);
        else
            ut_err("round %d: measured on %s, exit %d", m->round[j], m->label[h], e);
        if (h < 0 || (e != EXIT_OK && e != EXIT_NOT_QUIET))
            rc = EXIT_FAIL;
        else if (e == EXIT_NOT_QUIET && rc == EXIT_OK)
            rc = EXIT_NOT_QUIET;
    }
    return rc;
}

int multi_measure(const remote_cfg *cfg, sched *s, char *err, size_t errlen)
{
    multi M = {.cfg = cfg, .s = s}, *m = &M;
    split(m, cfg->host);
    plan_rounds(m);
    int rc = EXIT_OK;
    char tmpl[] = "/tmp/lab-multi.XXXXXX";
    if (!m->nround)
        goto out;
    if (sh("command -v parallel >/dev/null", NULL) != 0) {
        ut_err("GNU parallel is not installed here: make deps (Debian package parallel)");
        rc = EXIT_USAGE;
        goto out;
    }
    if (!mkdtemp(tmpl)) {
        ut_err("mkdtemp: %s", strerror(errno));
        rc = EXIT_FAIL;
        goto out;
    }
    m->tmp = mf_str("%s", tmpl);
    for (int i = 0; i < m->n && rc == EXIT_OK; i++) {
        ut_err("%s is %s", m->label[i], m->host[i]);
        if (!(m->far[i] = remote_open(cfg, m->host[i], m->label[i], err, errlen)))
            rc = EXIT_FAIL;
    }
    if (rc == EXIT_OK && write_jobs(m, err, errlen) != 0) {
        ut_err("%s", err);
        rc = EXIT_FAIL;
    }
    if (rc == EXIT_OK) {
        run_parallel(m);
        int sig = proc_signal();
        int logged = take_joblog(m, err, errlen) == 0; /* else which host measured what is unknown: keep all */
        if (!logged)
            ut_err("%s", err);
        say_attempts(m);
        rc = rounds_said(m);
        if (sig)
            rc = 128 + sig;
        for (int h = 0; h < m->n; h++) {
            int kept = logged ? take_host(m, h, err, errlen) : -1;
            if (kept != 0 && (rc == EXIT_OK || rc == EXIT_NOT_QUIET))
                rc = proc_signal() ? 128 + proc_signal() : EXIT_FAIL;
            remote_close(m->far[h], kept == 0);
            m->far[h] = NULL;
        }
        err[0] = 0;
    }
    for (int h = 0; h < m->n; h++)
        if (m->far[h])
            remote_close(m->far[h], 1);
out:
    free_multi(m);
    return rc;
}
