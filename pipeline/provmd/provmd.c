/* provmd: results/provenance.md from provenance/ (contract in provmd.h; the
 * rules, part by part, in pipeline/RESULTS.md). */
#include "provmd.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

#define DASH "\xe2\x80\x94" /* U+2014, what a null or missing value is written */

/* One rendering: the text so far, the record at hand (for messages), the
 * first fault.  After a fault the writers keep going harmlessly; the text
 * is thrown away at the end. */
typedef struct {
    FILE *o;
    const char *file;
    char *err;
    size_t errlen;
    int bad;
} md;

/* One JSON file of the folder. */
typedef struct {
    char *name; /* file name: stage-<s>.json, <run>.json, <run>.attempt-<n>.json */
    char *path;
    json_t *j;
    int rank;      /* stages: the order of the rules */
    long long k;   /* runs: the schedule's k */
    int attempt;   /* runs: 1 for an attempt-<n> file */
} rec;

static void fault(md *m, const char *pre, const char *field, const char *what)
{
    if (!m->bad)
        ut_seterr(m->err, m->errlen, "%s: %s%s: %s", m->file, pre, field, what);
    m->bad = 1;
}

/* The value at a dotted path below j; NULL when it (or an object on the
 * way) is missing or null.  Something else than an object on the way is a
 * fault. */
static json_t *at(md *m, json_t *j, const char *pre, const char *path)
{
    char part[128];
    const char *p = path;
    while (j && !json_is_null(j)) {
        if (!json_is_object(j)) {
            /* name the field that should have been an object */
            snprintf(part, sizeof part, "%.*s", (int)(p > path ? p - path - 1 : 0), path);
            fault(m, pre, part, "not an object");
            return NULL;
        }
        size_t n = strcspn(p, ".");
        snprintf(part, sizeof part, "%.*s", (int)n, p);
        j = json_object_get(j, part);
        if (!p[n])
            return json_is_null(j) ? NULL : j;
        p += n + 1;
    }
    return NULL;
}

/* A list the rules walk: missing or null counts as empty (NULL). */
static json_t *list(md *m, json_t *j, const char *pre, const char *path)
{
    json_t *v = at(m, j, pre, path);
    if (v && !json_is_array(v)) {
        fault(m, pre, path, "not a list");
        return NULL;
    }
    return v;
}

/* s with each '|' written "\|" (cell) and each '`' written "'" (tick). */
static void put_text(md *m, const char *s, int cell, int tick)
{
    for (; *s; s++) {
        if (cell && *s == '|')
            fputs("\\|", m->o);
        else if (tick && *s == '`')
            fputc('\'', m->o);
        else
            fputc(*s, m->o);
    }
}

static void w_str(md *m, json_t *j, const char *pre, const char *path, int cell)
{
    json_t *v = at(m, j, pre, path);
    if (!v)
        fputs(DASH, m->o);
    else if (!json_is_string(v))
        fault(m, pre, path, "not a string");
    else
        put_text(m, json_string_value(v), cell, 0);
}

static void w_int(md *m, json_t *j, const char *pre, const char *path)
{
    json_t *v = at(m, j, pre, path);
    if (!v)
        fputs(DASH, m->o);
    else if (!json_is_integer(v))
        fault(m, pre, path, "not an integer");
    else
        fprintf(m->o, "%lld", (long long)json_integer_value(v));
}

/* A number, 0 when missing or null, -1 (a fault) when not a number. */
static int num(md *m, json_t *j, const char *path, double *x)
{
    json_t *v = at(m, j, "", path);
    if (v && !json_is_number(v)) {
        fault(m, "", path, "not a number");
        return -1;
    }
    *x = v ? json_number_value(v) : 0;
    return v ? 1 : 0;
}

/* scale · the number at path with %.<prec>f */
static void w_fix(md *m, json_t *j, const char *path, double scale, int prec)
{
    double x;
    if (num(m, j, path, &x) == 1)
        fprintf(m->o, "%.*f", prec, scale * x);
    else
        fputs(DASH, m->o);
}

/* yes / no (or dirty / clean) from a boolean */
static void w_bool(md *m, json_t *j, const char *path, const char *yes, const char *no)
{
    json_t *v = at(m, j, "", path);
    if (!v)
        fputs(DASH, m->o);
    else if (!json_is_boolean(v))
        fault(m, "", path, "not true or false");
    else
        fputs(json_is_true(v) ? yes : no, m->o);
}

/* 1 when the integer at path is 0 (a measured run), else 0 */
static int is_zero(md *m, json_t *j, const char *path)
{
    json_t *v = at(m, j, "", path);
    if (v && !json_is_integer(v))
        fault(m, "", path, "not an integer");
    return v && json_is_integer(v) && json_integer_value(v) == 0;
}

/* ---- the folder ---- */

static const char *const STAGE_ORDER[] = {"prepare", "measure", "collect", "ap", "cost"};

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

/* <run>.attempt-<n>.json */
static int is_attempt_name(const char *s)
{
    const char *a = strstr(s, ".attempt-");
    if (!a)
        return 0;
    const char *d = a + strlen(".attempt-");
    size_t n = strspn(d, "0123456789");
    return n > 0 && !strcmp(d + n, ".json") && !strstr(d, ".attempt-");
}

static int load(md *m, const char *dir, const char *name, rec *r)
{
    memset(r, 0, sizeof *r);
    r->name = strdup(name);
    size_t n = strlen(dir) + strlen(name) + 2;
    r->path = malloc(n);
    if (!r->name || !r->path) {
        fault(m, "", "", "out of memory");
        return -1;
    }
    snprintf(r->path, n, "%s/%s", dir, name);
    m->file = r->path;
    json_error_t je;
    r->j = json_load_file(r->path, 0, &je);
    if (!r->j) {
        char what[300];
        snprintf(what, sizeof what, "line %d: %s", je.line, je.text);
        ut_seterr(m->err, m->errlen, "%s: not JSON (%s)", r->path, what);
        m->bad = 1;
        return -1;
    }
    if (!json_is_object(r->j)) {
        ut_seterr(m->err, m->errlen, "%s: not a JSON object", r->path);
        m->bad = 1;
        return -1;
    }
    return 0;
}

static void free_recs(rec *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].name);
        free(r[i].path);
        json_decref(r[i].j);
    }
    free(r);
}

static int by_stage(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    /* byte order of <s> itself: "a" before "a-b", though "stage-a-b.json"
     * sorts before "stage-a.json" */
    size_t a1 = strlen(x->name) - 11, b1 = strlen(y->name) - 11;
    int c = memcmp(x->name + 6, y->name + 6, a1 < b1 ? a1 : b1);
    return c ? c : (a1 > b1) - (a1 < b1);
}

static int by_k(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Every stage-<s>.json (stages) or every *.json (runs) of dir, loaded and
 * in order.  A missing folder gives *n = 0 and *exists = 0. */
static int load_dir(md *m, const char *dir, int stages, rec **out, size_t *n, int *exists)
{
    *out = NULL;
    *n = 0;
    *exists = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        ut_seterr(m->err, m->errlen, "%s: cannot read the folder: %s", dir, strerror(errno));
        m->bad = 1;
        return -1;
    }
    *exists = 1;
    size_t cap = 0;
    rec *r = NULL;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        const char *s = e->d_name;
        if (s[0] == '.' || !ends_with(s, ".json"))
            continue;
        if (stages && (strncmp(s, "stage-", 6) || strlen(s) <= strlen("stage-.json")))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            rec *t = realloc(r, cap * sizeof *r);
            if (!t) {
                fault(m, "", "", "out of memory");
                rc = -1;
                break;
            }
            r = t;
        }
        rec *x = &r[(*n)++];
        rc = load(m, dir, s, x);
        if (rc)
            break;
        if (stages) {
            x->rank = 5;
            for (int i = 0; i < 5; i++)
                if (strlen(s) == strlen(STAGE_ORDER[i]) + 11 && !strncmp(s + 6, STAGE_ORDER[i], strlen(STAGE_ORDER[i])))
                    x->rank = i;
        } else {
            x->attempt = is_attempt_name(s);
            json_t *k = json_object_get(x->j, "k");
            if (!json_is_integer(k)) {
                fault(m, "", "k", "not an integer");
                rc = -1;
            } else {
                x->k = json_integer_value(k);
            }
        }
    }
    closedir(d);
    *out = r;
    if (rc == 0)
        qsort(r, *n, sizeof *r, stages ? by_stage : by_k);
    return rc;
}

/* ---- the parts ---- */

static void part_head(md *m)
{
    fputs("# Provenance of this study\n\n"
          "Written by `make provenance` from the files under\n"
          "`provenance/`; the verifier writes it again from them and finds it\n"
          "equal.  Times are UTC; commands as recorded, secrets masked.\n\n",
          m->o);
}

static void part_machine(md *m, const rec *st, size_t nst)
{
    for (size_t i = 0; i < nst; i++) {
        if (strcmp(st[i].name, "stage-measure.json"))
            continue;
        m->file = st[i].path;
        json_t *j = st[i].j;
        fputs("## The machine\n\n", m->o);
        w_str(m, j, "", "host.cpu_model", 0);
        fputs(", ", m->o);
        w_int(m, j, "", "host.cpus_online");
        fputs(" CPUs, ", m->o);
        w_fix(m, j, "host.mem_total_kb", 1.0 / 1048576, 1);
        fputs(" GiB of memory, ", m->o);
        w_str(m, j, "", "host.os", 0);
        fputs(" ", m->o);
        w_str(m, j, "", "host.kernel", 0);
        fputs(" (", m->o);
        w_str(m, j, "", "host.arch", 0);
        fputs(").\n\n", m->o);
    }
}

static void stage_row(md *m, json_t *j)
{
    fputs("| ", m->o);
    w_str(m, j, "", "stage", 1);
    fputs(" | ", m->o);
    w_str(m, j, "", "start_utc", 1);
    fputs(" | ", m->o);
    w_str(m, j, "", "end_utc", 1);
    fputs(" | ", m->o);
    w_fix(m, j, "wall_s", 1, 1);
    fputs(" | ", m->o);
    double u, s;
    int hu = num(m, j, "cpu_user_s", &u), hs = num(m, j, "cpu_sys_s", &s);
    if (hu == 1 && hs == 1)
        fprintf(m->o, "%.1f", u + s);
    else
        fputs(DASH, m->o);
    fputs(" | ", m->o);
    w_int(m, j, "", "exit_code");
    fputs(" | ", m->o);
    json_t *c = at(m, j, "", "build.git_commit");
    if (!c) {
        fputs(DASH, m->o);
    } else if (!json_is_string(c)) {
        fault(m, "", "build.git_commit", "not a string");
    } else {
        /* the first 12 characters (UTF-8: bytes that do not continue one) */
        const char *p = json_string_value(c), *q = p;
        for (int chars = 0; *q && chars < 12;) {
            q++;
            while ((*q & 0xC0) == 0x80)
                q++;
            chars++;
        }
        char *head = strndup(p, (size_t)(q - p));
        put_text(m, head ? head : "", 1, 0);
        free(head);
    }
    fputs(" | ", m->o);
    w_bool(m, j, "build.git_dirty", "dirty", "clean");
    fputs(" |\n", m->o);
}

/* | `path` | size | sha256 | of one {path, size, sha256} (pre names it) */
static void file_row(md *m, json_t *e, const char *pre)
{
    fputs("| `", m->o);
    w_str(m, e, pre, "path", 1);
    fputs("` | ", m->o);
    w_int(m, e, pre, "size");
    fputs(" | ", m->o);
    w_str(m, e, pre, "sha256", 1);
    fputs(" |\n", m->o);
}

static void file_rows(md *m, json_t *arr, const char *name)
{
    json_t *e;
    size_t i;
    char pre[96];
    json_array_foreach(arr, i, e)
    {
        snprintf(pre, sizeof pre, "%s[%zu]", name, i);
        if (!json_is_object(e)) {
            fault(m, "", pre, "not an object");
            return;
        }
        strcat(pre, ".");
        file_row(m, e, pre);
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void stage_detail(md *m, json_t *j)
{
    fputs("### ", m->o);
    w_str(m, j, "", "stage", 0);
    fputs("\n\nCommand: `", m->o);
    json_t *argv = list(m, j, "", "argv"), *v;
    size_t i;
    json_array_foreach(argv, i, v)
    {
        if (!json_is_string(v)) {
            char pre[48];
            snprintf(pre, sizeof pre, "argv[%zu]", i);
            fault(m, "", pre, "not a string");
            break;
        }
        if (i)
            fputc(' ', m->o);
        put_text(m, json_string_value(v), 0, 1);
    }
    fputs("`\n\nBuilt with ", m->o);
    w_str(m, j, "", "build.compiler", 0);
    fputs("; libraries: ", m->o);
    json_t *libs = at(m, j, "", "libraries");
    if (libs && !json_is_object(libs)) {
        fault(m, "", "libraries", "not an object");
        libs = NULL;
    }
    size_t nl = libs ? json_object_size(libs) : 0, k = 0;
    const char **names = nl ? calloc(nl, sizeof *names) : NULL;
    const char *key;
    if (nl && !names) {
        fault(m, "", "libraries", "out of memory");
        nl = 0;
    }
    json_object_foreach(libs, key, v)
    {
        if (k < nl)
            names[k++] = key;
    }
    qsort(names, nl, sizeof *names, by_name);
    for (k = 0; k < nl; k++) {
        fprintf(m->o, "%s%s ", k ? ", " : "", names[k]);
        v = json_object_get(libs, names[k]);
        if (json_is_null(v))
            fputs(DASH, m->o);
        else if (json_is_string(v))
            put_text(m, json_string_value(v), 0, 0);
        else
            fault(m, "libraries.", names[k], "not a string");
    }
    fputs(nl ? ".\n\n" : "none.\n\n", m->o);
    free(names);
    const char *lists[2] = {"inputs", "outputs"}, *heads[2] = {"input", "output"};
    for (int l = 0; l < 2; l++) {
        json_t *arr = list(m, j, "", lists[l]);
        if (!arr || !json_array_size(arr))
            continue;
        fprintf(m->o, "| %s | bytes | sha256 |\n|---|---:|---|\n", heads[l]);
        file_rows(m, arr, lists[l]);
        fputs("\n", m->o);
    }
}

static void part_stages(md *m, const rec *st, size_t nst)
{
    fputs("## Stages\n\n"
          "| stage | start | end | wall s | CPU s | exit | commit | tree |\n"
          "|---|---|---|---:|---:|---:|---|---|\n",
          m->o);
    for (size_t i = 0; i < nst; i++) {
        m->file = st[i].path;
        stage_row(m, st[i].j);
    }
    fputs("\n", m->o);
    for (size_t i = 0; i < nst; i++) {
        m->file = st[i].path;
        stage_detail(m, st[i].j);
    }
}

/* The earliest start_utc of every record of runs/ (attempts too), or NULL. */
static const char *first_start(md *m, const rec *runs, size_t nr)
{
    const char *f = NULL;
    for (size_t i = 0; i < nr; i++) {
        m->file = runs[i].path;
        json_t *v = at(m, runs[i].j, "", "start_utc");
        if (v && !json_is_string(v))
            fault(m, "", "start_utc", "not a string");
        else if (v && (!f || strcmp(json_string_value(v), f) < 0))
            f = json_string_value(v);
    }
    return f;
}

static void part_prereg(md *m, const rec *pr, const rec *runs, size_t nr)
{
    const char *f = first_start(m, runs, nr);
    m->file = pr->path;
    fputs("## Preregistration\n\nRegistered ", m->o);
    w_str(m, pr->j, "", "registered_utc", 0);
    fputs("; the prediction ", m->o);
    w_str(m, pr->j, "", "prediction.registered_utc", 0);
    fputs("; the first run started ", m->o);
    put_text(m, f ? f : DASH, 0, 0);
    fputs(".\n\n| file | bytes | sha256 |\n|---|---:|---|\n", m->o);
    file_rows(m, list(m, pr->j, "", "files"), "files");
    json_t *p = at(m, pr->j, "", "prediction");
    if (p && !json_is_object(p))
        fault(m, "", "prediction", "not an object");
    else if (p)
        file_row(m, p, "prediction.");
    fputs("\n", m->o);
}

static void run_row(md *m, json_t *j)
{
    fputs("| ", m->o);
    w_str(m, j, "", "run", 1);
    fputs(" | ", m->o);
    w_str(m, j, "", "machine", 1);
    fputs(" | ", m->o);
    w_int(m, j, "", "attempt");
    fputs(" | ", m->o);
    w_str(m, j, "", "start_utc", 1);
    fputs(" | ", m->o);
    w_str(m, j, "", "end_utc", 1);
    fputs(" | ", m->o);
    w_fix(m, j, "idle.idle_share", 100, 1);
    fputs(" | ", m->o);
    w_fix(m, j, "quiet.steal_share", 100, 2);
    fputs(" | ", m->o);
    w_fix(m, j, "quiet.late_p99_ms", 1, 3);
    fputs(" | ", m->o);
    w_fix(m, j, "quiet.late_max_ms", 1, 3);
    fputs(" | ", m->o);
    if (is_zero(m, j, "exit_code")) {
        w_bool(m, j, "quiet.quiet", "yes", "no");
    } else {
        fputs("failed (exit ", m->o);
        w_int(m, j, "", "exit_code");
        fputs("): ", m->o);
        w_str(m, j, "", "reason", 1);
    }
    fputs(" |\n", m->o);
}

/* One line per earlier attempt of run record r; the attempts are found by
 * file name among the folder's records. */
static void attempt_lines(md *m, const rec *r, const rec *all, size_t nall)
{
    m->file = r->path;
    json_t *ea = list(m, r->j, "", "earlier_attempts"), *v;
    size_t i;
    json_array_foreach(ea, i, v)
    {
        char pre[48];
        snprintf(pre, sizeof pre, "earlier_attempts[%zu]", i);
        m->file = r->path;
        const rec *a = NULL;
        for (size_t t = 0; json_is_string(v) && t < nall && !a; t++)
            if (!strcmp(all[t].name, json_string_value(v)))
                a = &all[t];
        if (!a) {
            fault(m, "", pre, json_is_string(v) ? "names no file of the folder" : "not a string");
            return;
        }
        m->file = a->path;
        fputs("- ", m->o);
        w_str(m, a->j, "", "run", 0);
        fputs(", attempt ", m->o);
        w_int(m, a->j, "", "attempt");
        fputs(", ", m->o);
        w_str(m, a->j, "", "start_utc", 0);
        fputs(" to ", m->o);
        w_str(m, a->j, "", "end_utc", 0);
        fputs(", exit ", m->o);
        w_int(m, a->j, "", "exit_code");
        fputs(": ", m->o);
        if (is_zero(m, a->j, "exit_code")) {
            json_t *rs = list(m, a->j, "", "quiet.reasons"), *s;
            size_t n;
            json_array_foreach(rs, n, s)
            {
                if (!json_is_string(s)) {
                    fault(m, "", "quiet.reasons", "an entry not a string");
                    break;
                }
                fprintf(m->o, "%s%s", n ? "; " : "", json_string_value(s));
            }
            if (!rs || !json_array_size(rs))
                fputs(DASH, m->o);
        } else {
            w_str(m, a->j, "", "reason", 0);
        }
        fputs("\n", m->o);
    }
}

static void part_runs(md *m, const rec *all, size_t nall)
{
    fputs("## Runs\n\n"
          "| run | machine | attempts | start | end | gate idle % | steal % | lateness p99 ms | lateness max ms | "
          "quiet |\n"
          "|---|---|---:|---|---|---:|---:|---:|---:|---|\n",
          m->o);
    int again = 0, logged = 0;
    for (size_t i = 0; i < nall; i++) {
        if (all[i].attempt)
            continue;
        m->file = all[i].path;
        run_row(m, all[i].j);
        json_t *ea = list(m, all[i].j, "", "earlier_attempts");
        json_t *ln = list(m, all[i].j, "", "syslog.lines");
        again |= ea && json_array_size(ea) > 0;
        logged |= ln && json_array_size(ln) > 0;
    }
    fputs("\n", m->o);
    if (again) {
        fputs("### Measured again\n\n", m->o);
        for (size_t i = 0; i < nall; i++)
            if (!all[i].attempt)
                attempt_lines(m, &all[i], all, nall);
        fputs("\n", m->o);
    }
    if (logged) {
        fputs("### System log lines during runs\n\n", m->o);
        for (size_t i = 0; i < nall; i++) {
            if (all[i].attempt)
                continue;
            m->file = all[i].path;
            json_t *ln = list(m, all[i].j, "", "syslog.lines"), *v;
            size_t n;
            json_array_foreach(ln, n, v)
            {
                if (!json_is_string(v)) {
                    fault(m, "", "syslog.lines", "an entry not a string");
                    break;
                }
                fputs("- ", m->o);
                w_str(m, all[i].j, "", "run", 0);
                fputs(": `", m->o);
                put_text(m, json_string_value(v), 0, 1);
                fputs("`\n", m->o);
            }
        }
        fputs("\n", m->o);
    }
}

int provmd_render(const char *provdir, char **out, size_t *len, char *err, size_t errlen)
{
    *out = NULL;
    *len = 0;
    char *buf = NULL;
    size_t n = 0;
    md m = {open_memstream(&buf, &n), provdir, err, errlen, 0};
    if (!m.o) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    rec *st = NULL, *runs = NULL, pr = {0};
    size_t nst = 0, nr = 0;
    int has_st, has_runs, has_pr = 0;
    size_t dl = strlen(provdir) + 8;
    char *rdir = malloc(dl), *prpath = malloc(dl + 8);
    if (!rdir || !prpath) {
        fault(&m, "", "", "out of memory");
    } else {
        snprintf(rdir, dl, "%s/runs", provdir);
        snprintf(prpath, dl + 8, "%s/prereg.json", provdir);
        struct stat sb;
        has_pr = stat(prpath, &sb) == 0;
        if (load_dir(&m, provdir, 1, &st, &nst, &has_st) == 0 && load_dir(&m, rdir, 0, &runs, &nr, &has_runs) == 0 &&
            (!has_pr || load(&m, provdir, "prereg.json", &pr) == 0)) {
            part_head(&m);
            part_machine(&m, st, nst);
            part_stages(&m, st, nst);
            if (has_pr)
                part_prereg(&m, &pr, runs, nr);
            if (has_runs)
                part_runs(&m, runs, nr);
        }
    }
    int bad = m.bad | (fclose(m.o) != 0);
    if (bad && !m.bad)
        ut_seterr(err, errlen, "out of memory");
    free_recs(st, nst);
    free_recs(runs, nr);
    free(pr.name);
    free(pr.path);
    json_decref(pr.j);
    free(rdir);
    free(prpath);
    if (bad) {
        free(buf);
        return -1;
    }
    *out = buf;
    *len = n;
    return 0;
}
