/* machines: see machines.h. */
#include "machines.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "vnum.h"
#include "vutil.h"

#define LABEL_WANT "a machine label: local, or m1, m2, ... (RAWFORMAT.md, run.json machine)"
#define SECTION "RESULTS.md, \"Several machines\""

int mc_label_ok(const char *s)
{
    if (!s)
        return 0;
    if (!strcmp(s, "local"))
        return 1;
    long long v;
    size_t l = strlen(s);
    return s[0] == 'm' && l >= 2 && s[1] != '0' && !vn_i64(s + 1, l - 1, 1, INT_MAX, &v);
}

/* ---- provenance/parallel.tsv ---- */

static void bad_field(long line, const char *field, const char *lab, const char *want)
{
    char where[64], what[64];
    snprintf(where, sizeof where, MC_REL ":%ld", line);
    snprintf(what, sizeof what, "%s (a malformed line)", field);
    mm_add(NULL, where, what, lab, want);
}

/* a decimal of seconds, blanks before it allowed (parallel's %10.3f) */
static int seconds_ok(const char *f)
{
    while (*f == ' ')
        f++;
    double x;
    return !vn_f64(f, strlen(f), &x) && x >= 0;
}

/* one line after the header: 0 and *job, or -1 (said) */
static int read_job(char *text, long line, mc_job *job)
{
    char *f[9];
    int nf = vu_split_tabs(text, f, 9);
    if (nf != 9) {
        char lab[32];
        snprintf(lab, sizeof lab, "%d fields", nf);
        bad_field(line, "fields", lab, "9, tab-separated (" MC_HEADER ")");
        return -1;
    }
    long long round, bytes;
    const char *cmd = "measure-round ";
    size_t cl = strlen(cmd);
    memset(job, 0, sizeof *job);
    job->line = line;
    if (vn_i64(f[0], strlen(f[0]), 1, LLONG_MAX, &job->seq))
        bad_field(line, "Seq", f[0], "an integer from 1 (GNU parallel's job number)");
    else if (!mc_label_ok(f[1]))
        bad_field(line, "Host", f[1], "the machine's label, local or m1, m2, ... (never a name or an address; " SECTION
                  ")");
    else if (!seconds_ok(f[2]))
        bad_field(line, "Starttime", f[2], "seconds since 1970, a decimal number (" SECTION ")");
    else if (!seconds_ok(f[3]))
        bad_field(line, "JobRuntime", f[3], "seconds, a decimal number not below 0 (" SECTION ")");
    else if (vn_i64(f[4], strlen(f[4]), 0, LLONG_MAX, &bytes))
        bad_field(line, "Send", f[4], "an integer, bytes (GNU parallel's joblog)");
    else if (vn_i64(f[5], strlen(f[5]), 0, LLONG_MAX, &bytes))
        bad_field(line, "Receive", f[5], "an integer, bytes (GNU parallel's joblog)");
    else if (vn_i64(f[6], strlen(f[6]), LLONG_MIN, LLONG_MAX, &job->exitval))
        bad_field(line, "Exitval", f[6], "an integer, the job's exit status (GNU parallel's joblog)");
    else if (vn_i64(f[7], strlen(f[7]), 0, LLONG_MAX, &job->signal))
        bad_field(line, "Signal", f[7], "an integer, the signal that ended the job, or 0 (GNU parallel's joblog)");
    else if (strncmp(f[8], cmd, cl) || f[8][cl] == '0' || vn_i64(f[8] + cl, strlen(f[8] + cl), 1, INT_MAX, &round))
        bad_field(line, "Command", f[8], "measure-round <round>, the round 1, 2, ... (" SECTION ")");
    else {
        job->round = (int)round;
        snprintf(job->host, sizeof job->host, "%s", f[1]);
        return 0;
    }
    return -1;
}

void mc_joblog_load(const char *root, mc_joblog *j)
{
    memset(j, 0, sizeof *j);
    char *path = vu_xasprintf("%s/" MC_REL, root);
    unsigned char *b;
    size_t len, cap = 0;
    char err[4300];
    if (!vu_is_file(path)) {
        free(path);
        return;
    }
    j->present = 1;
    int rc = vu_read_file(path, &b, &len, err, sizeof err);
    free(path);
    if (rc) {
        mm_add(NULL, MC_REL, "file", "unreadable", err);
        return;
    }
    char *p = (char *)b, *end = p + len;
    long line = 0;
    while (p < end) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        *e = 0;
        if (line == 1) {
            if (strcmp(p, MC_HEADER)) {
                char where[64];
                snprintf(where, sizeof where, MC_REL ":1");
                mm_add(NULL, where, "header", p, MC_HEADER " (tab-separated, as GNU parallel writes it)");
                break;
            }
            j->header_ok = 1;
        } else {
            j->lines++;
            if (j->n == cap) {
                cap = cap ? 2 * cap : 16;
                j->v = vu_xrealloc(j->v, cap * sizeof *j->v);
            }
            if (read_job(p, line, &j->v[j->n]))
                j->malformed++;
            else
                j->n++;
        }
        p = e + 1;
    }
    if (line == 0) {
        mm_add(NULL, MC_REL ":1", "header", "(absent: an empty file)", MC_HEADER);
    }
    free(b);
}

const mc_job *mc_joblog_last(const mc_joblog *j, int round)
{
    const mc_job *best = NULL;
    for (size_t i = 0; i < j->n; i++)
        if (j->v[i].round == round && (!best || j->v[i].seq >= best->seq))
            best = &j->v[i];
    return best;
}

void mc_joblog_free(mc_joblog *j)
{
    free(j->v);
    memset(j, 0, sizeof *j);
}

/* ---- the labels of the runs, by round ---- */

typedef struct {
    int round;
    char label[16];
    char name[320];     /* the run folder, or the record's file */
} mc_entry;

typedef struct {
    mc_entry *v;
    size_t n, cap;
    long runs_labelled, records_labelled;
} mc_list;

static void push(mc_list *l, int round, const char *label, const char *name)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = vu_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    mc_entry *e = &l->v[l->n++];
    e->round = round;
    snprintf(e->label, sizeof e->label, "%s", label);
    snprintf(e->name, sizeof e->name, "%s", name);
}

/* the machine of a tree: the label, or NULL after a mismatch naming where */
static const char *label_of(const vj_node *tree, const char *where, const char *what)
{
    const vj_node *m = vj_get(tree, "machine");
    if (m && m->type == VJ_STR && mc_label_ok(m->text))
        return m->text;
    char lab[96];
    if (!m)
        snprintf(lab, sizeof lab, "(absent)");
    else
        vj_scalar_text(m, lab, sizeof lab);
    mm_add(NULL, where, what, lab, LABEL_WANT);
    return NULL;
}

/* every run folder's run.json: its label (labels[i] for s->runs[i], "" when none) */
static void runs_labels(const study *s, mc_list *l, char (*labels)[16])
{
    for (size_t i = 0; i < s->nruns; i++) {
        const char *name = s->runs[i].name;
        char *path = vu_xasprintf("%s/results/raw/%s/run.json", s->root, name);
        vj_node *rj = NULL;
        char err[4300];
        int bad = !vu_is_file(path) || vj_parse_file(path, &rj, err, sizeof err) || rj->type != VJ_OBJ;
        free(path);
        const vj_node *rnd = bad ? NULL : vj_get(rj, "round");
        if (!rnd || rnd->type != VJ_NUM || !rnd->is_int || rnd->i < 1 || rnd->i > INT_MAX) {
            vj_free(rj);    /* rejected already (runfig.h) */
            continue;
        }
        const char *lb = label_of(rj, name, "run.json machine");
        if (lb) {
            snprintf(labels[i], sizeof labels[i], "%s", lb);
            push(l, (int)rnd->i, lb, name);
            l->runs_labelled++;
        }
        vj_free(rj);
    }
}

static const rf_run *find_run(const study *s, const char *name, size_t *at)
{
    for (size_t i = 0; i < s->nruns; i++)
        if (!strcmp(s->runs[i].name, name)) {
            *at = i;
            return &s->runs[i];
        }
    return NULL;
}

/* every record: a label; the same as its run folder's; a failed run's joins its round */
static void records_labels(const study *s, const pv_records *recs, mc_list *l, char (*labels)[16])
{
    for (size_t i = 0; i < recs->n; i++) {
        const pv_record *rec = &recs->v[i];
        if (!rec->tree)
            continue; /* unreadable: said by records.h */
        char where[320];
        snprintf(where, sizeof where, PV_DIR "/%s.json", rec->name);
        const char *lb = label_of(rec->tree, where, "machine");
        if (!lb)
            continue;
        l->records_labelled++;
        size_t at;
        if (find_run(s, rec->name, &at)) {
            if (labels[at][0] && strcmp(labels[at], lb))
                mm_addf(NULL, where, "machine", lb, "%s, the machine of results/raw/%s/run.json (" SECTION ")",
                        labels[at], rec->name);
            continue;
        }
        /* a failed run of the schedule: its own record (named as its run) */
        long long code;
        const char *run = vj_get_str(rec->tree, "run");
        const vj_node *rnd = vj_get(rec->tree, "round");
        if (!run || strcmp(run, rec->name) || pv_exit_code(rec, &code) || code == 0 || !rnd ||
            rnd->type != VJ_NUM || !rnd->is_int || rnd->i < 1 || rnd->i > INT_MAX)
            continue;
        push(l, (int)rnd->i, lb, where);
    }
}

static int cmp_entry(const void *a, const void *b)
{
    const mc_entry *x = a, *y = b;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    return strcmp(x->label, y->label);
}

/* the distinct labels of l (sorted), into a JSON list; how many */
static size_t distinct_labels(const mc_list *l, vj_node *out)
{
    size_t n = 0;
    const char **seen = vu_xcalloc(l->n + 1, sizeof *seen);
    for (size_t i = 0; i < l->n; i++) {
        size_t k = 0;
        while (k < n && strcmp(seen[k], l->v[i].label))
            k++;
        if (k == n)
            seen[n++] = l->v[i].label;
    }
    for (size_t i = 1; i < n; i++)  /* a few labels: insertion sort */
        for (size_t k = i; k > 0 && strcmp(seen[k - 1], seen[k]) > 0; k--) {
            const char *t = seen[k];
            seen[k] = seen[k - 1];
            seen[k - 1] = t;
        }
    for (size_t i = 0; i < n; i++)
        vj_arr_push(out, vj_new_str(seen[i]));
    free(seen);
    return n;
}

/* rounds of l (sorted by round, then label): one mismatch per round split
 * across machines; *split counted; each round's machine ("" when split)
 * via its first entry, and the rounds' count */
static long check_rounds(const mc_list *l, long *split)
{
    long rounds = 0;
    for (size_t i = 0; i < l->n;) {
        size_t e = i;
        while (e < l->n && l->v[e].round == l->v[i].round)
            e++;
        rounds++;
        if (strcmp(l->v[i].label, l->v[e - 1].label)) {
            (*split)++;
            char where[32], lab[1024];
            size_t o = 0;
            lab[0] = 0;
            for (size_t k = i; k < e && o + 1 < sizeof lab; k++) {
                if (k > i && !strcmp(l->v[k].label, l->v[k - 1].label))
                    continue;
                o += (size_t)snprintf(lab + o, sizeof lab - o, "%s%s (%s)", o ? ", " : "", l->v[k].label,
                                      l->v[k].name);
            }
            snprintf(where, sizeof where, "round %d", l->v[i].round);
            mm_addf(NULL, where, "machine", lab,
                    "one machine for every run of the round, kept or failed (%zu runs; " SECTION ")", e - i);
        }
        i = e;
    }
    return rounds;
}

/* parallel.tsv against the rounds: a line for each, the last one succeeded on its machine */
static long check_joblog(const mc_joblog *j, const mc_list *l)
{
    long checked = 0;
    for (size_t i = 0; i < l->n;) {
        size_t e = i;
        while (e < l->n && l->v[e].round == l->v[i].round)
            e++;
        int round = l->v[i].round, one = !strcmp(l->v[i].label, l->v[e - 1].label);
        const mc_job *last = mc_joblog_last(j, round);
        char where[64], what[64], lab[64];
        checked++;
        if (!last) {
            snprintf(what, sizeof what, "round %d", round);
            mm_addf(NULL, MC_REL, what, "(no line)",
                    "a line with Command measure-round %d: every round with runs was a job of parallel (%s, %s)",
                    round, l->v[i].name, SECTION);
            i = e;
            continue;
        }
        snprintf(where, sizeof where, MC_REL ":%ld", last->line);
        if (last->exitval != 0 || last->signal != 0) {
            snprintf(what, sizeof what, "round %d Exitval, Signal", round);
            snprintf(lab, sizeof lab, "%lld, %lld", last->exitval, last->signal);
            mm_addf(NULL, where, what, lab,
                    "0, 0: the round's last line (Seq %lld, the greatest of its lines) is the attempt whose runs "
                    "were kept (" SECTION ")", last->seq);
        }
        if (one && strcmp(last->host, l->v[i].label)) {
            snprintf(what, sizeof what, "round %d Host", round);
            mm_addf(NULL, where, what, last->host, "%s, the machine round %d's runs name (%s; " SECTION ")",
                    l->v[i].label, round, l->v[i].name);
        }
        i = e;
    }
    return checked;
}

vj_node *mc_check(const study *s, const pv_records *recs)
{
    long before = mm_count();
    mc_list l;
    memset(&l, 0, sizeof l);
    char (*labels)[16] = vu_xcalloc(s->nruns + 1, sizeof *labels);
    runs_labels(s, &l, labels);
    records_labels(s, recs, &l, labels);
    free(labels);
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_entry);
    long split = 0, rounds = check_rounds(&l, &split), checked = 0;
    vj_node *o = vj_new_obj(), *names = vj_new_arr();
    size_t machines = distinct_labels(&l, names);
    mc_joblog j;
    mc_joblog_load(s->root, &j);
    if (machines > 1 && !j.present)
        mm_addf(NULL, MC_REL, "file", "(absent)",
                "GNU parallel's --joblog of the round jobs: the runs name %zu machines (" SECTION ")", machines);
    if (j.present && j.header_ok)
        checked = check_joblog(&j, &l);
    vj_obj_set(o, "machines", names);
    vj_obj_set(o, "runs_labelled", vj_new_int(l.runs_labelled));
    vj_obj_set(o, "records_labelled", vj_new_int(l.records_labelled));
    vj_obj_set(o, "rounds", vj_new_int(rounds));
    vj_obj_set(o, "rounds_on_more_than_one_machine", vj_new_int(split));
    vj_node *p = vj_new_obj();
    vj_obj_set(p, "required", vj_new_bool(machines > 1));
    vj_obj_set(p, "present", vj_new_bool(j.present));
    vj_obj_set(p, "lines", vj_new_int(j.lines));
    vj_obj_set(p, "malformed_lines", vj_new_int(j.malformed));
    vj_obj_set(p, "rounds_checked", vj_new_int(checked));
    vj_obj_set(o, "parallel_tsv", p);
    vj_obj_set(o, "mismatches", vj_new_int(mm_count() - before));
    mc_joblog_free(&j);
    free(l.v);
    return o;
}
