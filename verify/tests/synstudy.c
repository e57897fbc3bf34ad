/* synstudy: the study around the synthetic runs (synth.h, "The study
 * around the runs"): results/schedule.tsv, lab/arms.tsv and the failed
 * records of the runs the grid plans without a folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "synth.h"
#include "vjson.h"
#include "vutil.h"


typedef struct {
    char name[256], arm[128];
    int round;
    vj_node *rj;        /* run.json, or NULL */
} syn_folder;

/* the run folders <arm>-r<round>, in name order, each with its run.json */
static size_t syn_folders(const char *root, syn_folder **out)
{
    char *dir = vu_xasprintf("%s/results/raw", root);
    char **names;
    size_t n, m = 0;
    char err[512];
    *out = NULL;
    if (vu_list_dir(dir, &names, &n, err, sizeof err)) {
        free(dir);
        return 0;
    }
    *out = vu_xcalloc(n + 1, sizeof **out);
    for (size_t i = 0; i < n; i++) {
        const char *r = strrchr(names[i], 'r');
        if (!r || r < names[i] + 2 || r[-1] != '-' || !r[1] || strspn(r + 1, "0123456789") != strlen(r + 1))
            continue;
        syn_folder *f = &(*out)[m++];
        snprintf(f->name, sizeof f->name, "%s", names[i]);
        snprintf(f->arm, sizeof f->arm, "%.*s", (int)(r - 1 - names[i]), names[i]);
        f->round = atoi(r + 1);
        char *p = vu_xasprintf("%s/%s/run.json", dir, names[i]);
        if (vj_parse_file(p, &f->rj, err, sizeof err))
            f->rj = NULL;
        free(p);
    }
    vu_free_names(names, n);
    free(dir);
    return m;
}

static void syn_folders_free(syn_folder *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        vj_free(f[i].rj);
    free(f);
}

#define SYN_REASON "the synthetic study has no such run"
#define SYN_MARK "synthetic (verify/tests)"

/* a failed record this file wrote for a run that now has its folder: gone */
static void drop_failed_record(const char *root, const char *arm, int round)
{
    char *p = vu_xasprintf("%s/provenance/runs/%s-r%d.json", root, arm, round);
    unsigned char *b;
    size_t len;
    char err[512];
    if (!vu_read_file(p, &b, &len, err, sizeof err)) {
        if (strstr((char *)b, SYN_REASON))
            unlink(p);
        free(b);
    }
    free(p);
}

/* a planned run without its folder: recorded as failed (RESULTS.md) */
static int failed_record(const char *root, const char *arm, int round, long k, const char *profile,
                         const char *seconds, const char *start_utc, const char *machine)
{
    char *dir = vu_xasprintf("%s/provenance/runs", root);
    int rc = syn_mkdirs(dir);
    char *p = vu_xasprintf("%s/%s-r%d.json", dir, arm, round);
    char *t = vu_xasprintf("{\"run\": \"%s-r%d\", \"arm\": \"%s\", \"round\": %d, \"k\": %ld, \"profile\": \"%s\", "
                           "\"seconds\": %s, \"argv\": [], \"start_utc\": \"%s\", \"end_utc\": \"%s\", \"wall_s\": 0, "
                           "\"exit_code\": 3, \"gate\": 1, \"gate_passed\": false, \"attempt\": 1, "
                           "\"earlier_attempts\": [], \"idle\": null, \"machine\": \"%s\", "
                           "\"reason\": \"" SYN_REASON "\"}\n",
                           arm, round, arm, round, k, profile, seconds, start_utc, start_utc, machine);
    if (!rc)
        rc = syn_write_text(p, t);
    free(t);
    free(p);
    free(dir);
    return rc;
}

int syn_write_schedule(const char *root, const char *profile)
{
    syn_folder *f;
    size_t n = syn_folders(root, &f);
    char arms[64][128];
    size_t na = 0;
    int rounds = 0;
    char seconds[32] = "1", start[64] = "2026-12-01T00:00:00Z";
    for (size_t i = 0; i < n; i++) {
        size_t a = 0;
        while (a < na && strcmp(arms[a], f[i].arm))
            a++;
        if (a == na && na < 64)
            snprintf(arms[na++], sizeof arms[0], "%s", f[i].arm);
        if (f[i].round > rounds)
            rounds = f[i].round;
        double s;
        if (i == 0 && f[i].rj && !vj_get_num(f[i].rj, "seconds", &s))
            snprintf(seconds, sizeof seconds, "%g", s);
        /* a failed run started last: the first start stays a measured run's */
        const char *u = vj_get_str(f[i].rj, "start_utc");
        if (u && strcmp(u, start) > 0)
            snprintf(start, sizeof start, "%s", u);
    }
    vu_buf b = {0};
    vu_buf_printf(&b, "# lab-schedule 1: profile %s, %d rounds of %zu arms, %s s each; " SYN_MARK "\n",
                  profile, rounds, na, seconds);
    vu_buf_puts(&b, "k\tround\tposition\tarm\n");
    long k = 0;
    int rc = 0;
    for (int r = 1; r <= rounds; r++) {
        for (size_t a = 0; a < na; a++) {
            vu_buf_printf(&b, "%ld\t%d\t%zu\t%s\n", ++k, r, a + 1, arms[a]);
            int have = 0;
            for (size_t i = 0; i < n && !have; i++)
                have = f[i].round == r && !strcmp(f[i].arm, arms[a]);
            /* the round's machine: a folder's of the same round (RESULTS.md: one per round) */
            const char *machine = "local";
            for (size_t i = 0; i < n; i++)
                if (f[i].round == r && vj_get_str(f[i].rj, "machine"))
                    machine = vj_get_str(f[i].rj, "machine");
            if (!have)
                rc |= failed_record(root, arms[a], r, k, profile, seconds, start, machine);
            else
                drop_failed_record(root, arms[a], r);
        }
    }
    char *p = vu_xasprintf("%s/results/schedule.tsv", root);
    if (!rc)
        rc = syn_write_text(p, b.len ? b.p : "");
    free(p);
    vu_buf_free(&b);
    syn_folders_free(f, n);
    return rc;
}

/* one arm_spec value as lab/arms.tsv writes it */
static void arms_field(vu_buf *b, const vj_node *v)
{
    if (v->type == VJ_STR) {
        vu_buf_puts(b, v->text);
    } else if (v->type == VJ_ARR) {
        if (!v->n)
            vu_buf_puts(b, "-");
        for (size_t i = 0; i < v->n; i++)
            vu_buf_printf(b, "%s%s", i ? "," : "", v->items[i]->text);
    } else {
        vu_buf_puts(b, v->text ? v->text : "0");
    }
}

int syn_write_arms(const char *root)
{
    syn_folder *f;
    size_t n = syn_folders(root, &f);
    vu_buf b = {0};
    vu_buf_puts(&b, "# Arms of the " SYN_MARK " study: each run.json's arm_spec, one line per arm.\n");
    const vj_node *first = NULL;
    for (size_t i = 0; i < n && !first; i++)
        first = vj_get(f[i].rj, "arm_spec");
    for (size_t k = 0; first && k < first->n; k++)
        vu_buf_printf(&b, "%s%s", k ? "\t" : "", first->keys[k]);
    vu_buf_puts(&b, "\n");
    for (size_t i = 0; i < n; i++) {
        const vj_node *spec = vj_get(f[i].rj, "arm_spec");
        size_t j = 0;
        while (j < i && strcmp(f[j].arm, f[i].arm))
            j++;
        if (!spec || j < i)
            continue;
        for (size_t k = 0; first && k < first->n; k++) {
            const vj_node *v = vj_get(spec, first->keys[k]);
            if (k)
                vu_buf_puts(&b, "\t");
            if (v)
                arms_field(&b, v);
            else
                vu_buf_puts(&b, "0");
        }
        vu_buf_puts(&b, "\n");
    }
    char *dir = vu_xasprintf("%s/lab", root), *p = vu_xasprintf("%s/arms.tsv", dir);
    int rc = syn_mkdirs(dir);
    if (!rc)
        rc = syn_write_text(p, b.p);
    free(dir);
    free(p);
    vu_buf_free(&b);
    syn_folders_free(f, n);
    return rc;
}

/* 1 when root/rel exists and was written here (its first line has SYN_MARK
 * and, when need is given, it) */
static int ours(const char *root, const char *rel, const char *need)
{
    char *p = vu_xasprintf("%s/%s", root, rel);
    unsigned char *b;
    size_t len;
    char err[512];
    int r = 0;
    if (!vu_read_file(p, &b, &len, err, sizeof err)) {
        char *e = strchr((char *)b, '\n');
        if (e)
            *e = 0;
        r = strstr((char *)b, SYN_MARK) && (!need || strstr((char *)b, need));
        free(b);
    }
    free(p);
    return r;
}

/* an arm of a run folder that root/lab/arms.tsv does not name */
static int arm_missing(const char *root)
{
    char *p = vu_xasprintf("%s/lab/arms.tsv", root);
    unsigned char *b;
    size_t len;
    char err[512];
    int missing = 0;
    if (vu_read_file(p, &b, &len, err, sizeof err))
        b = NULL;
    free(p);
    syn_folder *f;
    size_t n = syn_folders(root, &f);
    for (size_t i = 0; i < n && b && !missing; i++) {
        char *line = vu_xasprintf("\n%s\t", f[i].arm);
        missing = !strstr((char *)b, line);
        free(line);
    }
    syn_folders_free(f, n);
    free(b);
    return missing;
}

int syn_write_study_files(const char *root)
{
    char *s = vu_xasprintf("%s/results/schedule.tsv", root), *a = vu_xasprintf("%s/lab/arms.tsv", root);
    int rc = 0;
    /* a tiny schedule written here follows the folders (a test may add a run) */
    if (!vu_is_file(s) || ours(root, "results/schedule.tsv", "profile tiny,"))
        rc |= syn_write_schedule(root, "tiny");
    if (!vu_is_file(a) || (ours(root, "lab/arms.tsv", NULL) && arm_missing(root)))
        rc |= syn_write_arms(root);
    free(s);
    free(a);
    return rc;
}
