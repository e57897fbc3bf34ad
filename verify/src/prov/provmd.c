/* provmd: see provmd.h.  The rules are pipeline/RESULTS.md's, section
 * "results/provenance.md: the provenance for people"; each part below
 * names its number there.  One walk both checks each value's JSON type
 * against what its rule needs and writes it: the first malformed value is
 * kept in *bad and the text is then worth nothing. */
#include "provmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "vtime.h"

static const char DASH[] = "\xe2\x80\x94"; /* U+2014: a null or missing value */

/* the walk: where the text goes, the record at hand, the first malformation */
typedef struct {
    vu_buf *b;
    char file[320];     /* the record at hand, relative to the root */
    pm_bad *bad;        /* bad->file[0] != 0 once a value was malformed */
} ctx;

/* what a rule needs; K_NONULL: a list entry, where null is malformed too */
enum { K_STR, K_INT, K_NUM, K_BOOL, K_OBJ, K_ARR, K_NONULL = 0x10 };
static const char *const NEED[] = {
    "a string", "an integer (no point, no exponent)", "a number", "true or false", "an object", "a list"};

static void at(ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->file, sizeof c->file, fmt, ap);
    va_end(ap);
}

/* keep the first malformation: the record at hand, field, value, need */
static void malformed(ctx *c, const char *field, const vj_node *v, const char *value, const char *need)
{
    pm_bad *m = c->bad;
    if (m->file[0])
        return;
    snprintf(m->file, sizeof m->file, "%s", c->file);
    snprintf(m->field, sizeof m->field, "%s", field);
    if (value)
        snprintf(m->value, sizeof m->value, "%s", value);
    else if (v)
        vj_scalar_text(v, m->value, sizeof m->value);
    else
        snprintf(m->value, sizeof m->value, "(absent)");
    snprintf(m->need, sizeof m->need, "%s", need);
}

/* an integer: no point, no exponent ("-0" too, which vjson keeps a double) */
static int integer(const vj_node *v)
{
    return v->type == VJ_NUM && (v->is_int || !strcmp(v->text, "-0"));
}

static int kind_ok(const vj_node *v, int kind)
{
    switch (kind) {
    case K_STR: return v->type == VJ_STR;
    case K_INT: return integer(v);
    case K_NUM: return v->type == VJ_NUM;
    case K_BOOL: return v->type == VJ_BOOL;
    case K_OBJ: return v->type == VJ_OBJ;
    default: return v->type == VJ_ARR;
    }
}

/* v when it has the JSON type its rule needs; NULL when it is null or
 * missing (then "—", or an empty list or object) or malformed (kept in
 * c->bad; the field's name is printf-formatted only then) */
static const vj_node *want(ctx *c, const vj_node *v, int kind, const char *fmt, ...)
{
    int k = kind & 0xf;
    if ((!v || v->type == VJ_NULL) && !(kind & K_NONULL))
        return NULL;
    if (v && v->type != VJ_NULL && kind_ok(v, k))
        return v;
    char field[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(field, sizeof field, fmt, ap);
    va_end(ap);
    malformed(c, field, v, NULL, NEED[k]);
    return NULL;
}

/* ---- values ---- */

/* s, with every '|' written "\|" inside a table cell */
static void put_str(vu_buf *b, const char *s, int cell)
{
    for (; *s; s++) {
        if (cell && *s == '|')
            vu_buf_add(b, "\\", 1);
        vu_buf_add(b, s, 1);
    }
}

/* a checked value with no format: "—" for none, a string's characters,
 * an integer in decimal */
static void put_val(vu_buf *b, const vj_node *v, int cell)
{
    if (!v)
        put_str(b, DASH, 0);
    else if (v->type == VJ_NUM)
        vu_buf_printf(b, "%lld", v->is_int ? v->i : 0);
    else
        put_str(b, v->text, cell);
}

/* field key of object t, of kind K_STR or K_INT, written as it is */
static void val(ctx *c, const vj_node *t, const char *key, int kind, const char *name, int cell)
{
    put_val(c->b, want(c, vj_get(t, key), kind, "%s", name), cell);
}

/* a cell: "| " value " " (the row's last "|" is the caller's) */
static void cell(ctx *c, const vj_node *t, const char *key, int kind, const char *name)
{
    vu_buf_puts(c->b, "| ");
    val(c, t, key, kind, name, 1);
    vu_buf_puts(c->b, " ");
}

/* scale * the number with C's %.<digits>f, "—" for none */
static void fixed(ctx *c, const vj_node *t, const char *key, const char *name, double scale, int digits)
{
    const vj_node *v = want(c, vj_get(t, key), K_NUM, "%s", name);
    if (!v)
        put_str(c->b, DASH, 0);
    else
        vu_buf_printf(c->b, "%.*f", digits, scale * v->num);
}

static void cell_fixed(ctx *c, const vj_node *t, const char *key, const char *name, double scale, int digits)
{
    vu_buf_puts(c->b, "| ");
    fixed(c, t, key, name, scale, digits);
    vu_buf_puts(c->b, " ");
}

/* text with each ` written ' */
static void put_ticked(vu_buf *b, const char *s)
{
    for (; *s; s++)
        vu_buf_add(b, *s == '`' ? "'" : s, 1);
}

/* the command: argv joined by single spaces, each ` written ', between
 * backticks (two backticks for an empty argv) */
static void command(ctx *c, const vj_node *t)
{
    const vj_node *argv = want(c, vj_get(t, "argv"), K_ARR, "argv");
    vu_buf_puts(c->b, "`");
    for (size_t i = 0; argv && i < argv->n; i++) {
        const vj_node *a = want(c, argv->items[i], K_STR | K_NONULL, "argv[%zu]", i);
        if (i)
            vu_buf_puts(c->b, " ");
        if (a)
            put_ticked(c->b, a->text);
    }
    vu_buf_puts(c->b, "`");
}

/* a row `| `<path>` | <size> | <sha256> |` of a file entry named name */
static void file_row(ctx *c, const vj_node *e, const char *name)
{
    char f[240];
    vu_buf_puts(c->b, "| `");
    snprintf(f, sizeof f, "%s.path", name);
    val(c, e, "path", K_STR, f, 1);
    vu_buf_puts(c->b, "` ");
    snprintf(f, sizeof f, "%s.size", name);
    cell(c, e, "size", K_INT, f);
    snprintf(f, sizeof f, "%s.sha256", name);
    cell(c, e, "sha256", K_STR, f);
    vu_buf_puts(c->b, "|\n");
}

/* the rows of a list of file entries (each an object), field name */
static void file_rows(ctx *c, const vj_node *list, const char *name)
{
    char f[64];
    for (size_t i = 0; list && i < list->n; i++) {
        snprintf(f, sizeof f, "%s[%zu]", name, i);
        const vj_node *e = want(c, list->items[i], K_OBJ | K_NONULL, "%s", f);
        file_row(c, e, f);
    }
}

/* ---- 1, 2: the heading and the machine ---- */

static void heading(vu_buf *b)
{
    vu_buf_puts(b, "# Provenance of this study\n\n"
                   "Written by `make provenance` from the files under\n"
                   "`provenance/`; the verifier writes it again from them and finds it\n"
                   "equal.  Times are UTC; commands as recorded, secrets masked.\n\n");
}

static void machine(ctx *c, const vj_node *measure)
{
    vu_buf *b = c->b;
    const vj_node *h = want(c, vj_get(measure, "host"), K_OBJ, "host");
    vu_buf_puts(b, "## The machine\n\n");
    val(c, h, "cpu_model", K_STR, "host.cpu_model", 0);
    vu_buf_puts(b, ", ");
    val(c, h, "cpus_online", K_INT, "host.cpus_online", 0);
    vu_buf_puts(b, " CPUs, ");
    fixed(c, h, "mem_total_kb", "host.mem_total_kb", 1.0 / 1048576, 1);
    vu_buf_puts(b, " GiB of memory, ");
    val(c, h, "os", K_STR, "host.os", 0);
    vu_buf_puts(b, " ");
    val(c, h, "kernel", K_STR, "host.kernel", 0);
    vu_buf_puts(b, " (");
    val(c, h, "arch", K_STR, "host.arch", 0);
    vu_buf_puts(b, ").\n\n");
}

/* ---- 3: the stages ---- */

typedef struct {
    char name[256];     /* <s> of stage-<s>.json */
    int rank;           /* prepare measure collect ap cost, then the others */
    vj_node *tree;      /* NULL when not a JSON object */
    char err[200];      /* then why */
} stage;

static int cmp_stage(const void *x, const void *y)
{
    const stage *a = x, *b = y;
    if (a->rank != b->rank)
        return a->rank - b->rank;
    return strcmp(a->name, b->name);
}

/* the stage records in the rules' order; *n of them */
static stage *load_stages(const char *root, size_t *n)
{
    static const char *const first[] = {"prepare", "measure", "collect", "ap", "cost"};
    char *dir = vu_xasprintf("%s/provenance", root), err[4300];
    char **names = NULL;
    size_t nn = 0;
    stage *v = NULL;
    *n = 0;
    if (vu_is_dir(dir) && !vu_list_dir(dir, &names, &nn, err, sizeof err)) {
        v = vu_xcalloc(nn ? nn : 1, sizeof *v);
        for (size_t i = 0; i < nn; i++) {
            size_t l = strlen(names[i]);
            if (l <= strlen("stage-.json") || strncmp(names[i], "stage-", 6) || strcmp(names[i] + l - 5, ".json") ||
                l - 11 >= sizeof v->name)
                continue;
            stage *s = &v[(*n)++];
            snprintf(s->name, sizeof s->name, "%.*s", (int)(l - 11), names[i] + 6);
            s->rank = 5;
            for (int k = 0; k < 5; k++)
                if (!strcmp(s->name, first[k]))
                    s->rank = k;
            char *p = vu_xasprintf("%s/%s", dir, names[i]);
            if (vj_parse_file(p, &s->tree, err, sizeof err)) {
                s->tree = NULL;
                snprintf(s->err, sizeof s->err, "not JSON: %.150s", err);
            } else if (s->tree->type != VJ_OBJ) {
                vj_free(s->tree);
                s->tree = NULL;
                snprintf(s->err, sizeof s->err, "not a JSON object");
            }
            free(p);
        }
        vu_free_names(names, nn);
        qsort(v, *n, sizeof *v, cmp_stage);
    }
    free(dir);
    return v;
}

/* the record at hand is stage s; NULL (and malformed) when not an object */
static const vj_node *stage_at(ctx *c, const stage *s)
{
    at(c, "provenance/stage-%s.json", s->name);
    if (!s->tree)
        malformed(c, "record", NULL, s->err, "a JSON object");
    return s->tree;
}

static void stage_row(ctx *c, const vj_node *t)
{
    vu_buf *b = c->b;
    const vj_node *build = want(c, vj_get(t, "build"), K_OBJ, "build");
    cell(c, t, "stage", K_STR, "stage");
    cell(c, t, "start_utc", K_STR, "start_utc");
    cell(c, t, "end_utc", K_STR, "end_utc");
    cell_fixed(c, t, "wall_s", "wall_s", 1, 1);
    const vj_node *u = want(c, vj_get(t, "cpu_user_s"), K_NUM, "cpu_user_s");
    const vj_node *s = want(c, vj_get(t, "cpu_sys_s"), K_NUM, "cpu_sys_s");
    vu_buf_puts(b, "| ");
    if (u && s)
        vu_buf_printf(b, "%.1f", u->num + s->num);
    else
        put_str(b, DASH, 0);
    vu_buf_puts(b, " ");
    cell(c, t, "exit_code", K_INT, "exit_code");
    const vj_node *commit = want(c, vj_get(build, "git_commit"), K_STR, "build.git_commit");
    vu_buf_puts(b, "| ");
    if (commit) {
        /* 12 characters: UTF-8 sequences, not bytes */
        size_t e = 0;
        for (int n = 0; commit->text[e] && n < 12; n++)
            for (e++; ((unsigned char)commit->text[e] & 0xC0) == 0x80; e++) {}
        char *s12 = vu_xasprintf("%.*s", (int)e, commit->text);
        put_str(b, s12, 1);
        free(s12);
    } else {
        put_str(b, DASH, 0);
    }
    const vj_node *d = want(c, vj_get(build, "git_dirty"), K_BOOL, "build.git_dirty");
    vu_buf_puts(b, " | ");
    put_str(b, d ? (d->b ? "dirty" : "clean") : DASH, 0);
    vu_buf_puts(b, " |\n");
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* `Built with ...; libraries: name version, ... .` */
static void built_with(ctx *c, const vj_node *t)
{
    vu_buf *b = c->b;
    vu_buf_puts(b, "Built with ");
    val(c, want(c, vj_get(t, "build"), K_OBJ, "build"), "compiler", K_STR, "build.compiler", 0);
    vu_buf_puts(b, "; libraries: ");
    const vj_node *lib = want(c, vj_get(t, "libraries"), K_OBJ, "libraries");
    if (!lib || lib->n == 0) {
        vu_buf_puts(b, "none");
    } else {
        const char **keys = vu_xmalloc(lib->n * sizeof *keys);
        for (size_t i = 0; i < lib->n; i++)
            keys[i] = lib->keys[i];
        qsort(keys, lib->n, sizeof *keys, cmp_str);
        for (size_t i = 0; i < lib->n; i++) {
            vu_buf_printf(b, "%s%s ", i ? ", " : "", keys[i]);
            put_val(b, want(c, vj_get(lib, keys[i]), K_STR, "libraries.%s", keys[i]), 0);
        }
        free(keys);
    }
    vu_buf_puts(b, ".\n\n");
}

static void file_table(ctx *c, const vj_node *t, const char *key, const char *what)
{
    const vj_node *list = want(c, vj_get(t, key), K_ARR, "%s", key);
    if (!list || list->n == 0)
        return;
    vu_buf_printf(c->b, "| %s | bytes | sha256 |\n|---|---:|---|\n", what);
    file_rows(c, list, key);
    vu_buf_puts(c->b, "\n");
}

static void stages(ctx *c, const stage *v, size_t n)
{
    vu_buf_puts(c->b, "## Stages\n\n| stage | start | end | wall s | CPU s | exit | commit | tree |\n"
                      "|---|---|---|---:|---:|---:|---|---|\n");
    for (size_t i = 0; i < n; i++)
        stage_row(c, stage_at(c, &v[i]));
    vu_buf_puts(c->b, "\n");
    for (size_t i = 0; i < n; i++) {
        const vj_node *t = stage_at(c, &v[i]);
        vu_buf_puts(c->b, "### ");
        val(c, t, "stage", K_STR, "stage", 0);
        vu_buf_puts(c->b, "\n\nCommand: ");
        command(c, t);
        vu_buf_puts(c->b, "\n\n");
        built_with(c, t);
        file_table(c, t, "inputs", "input");
        file_table(c, t, "outputs", "output");
    }
}

/* ---- 4: the preregistration ---- */

/* the earliest start_utc of every record of provenance/runs that reads as
 * a UTC time, as written; NULL for none */
static const vj_node *first_start(ctx *c, const pv_records *recs)
{
    const vj_node *best = NULL;
    long long bs = 0, s;
    long bn = 0, ns;
    for (size_t i = 0; i < recs->n; i++) {
        at(c, PV_DIR "/%s.json", recs->v[i].name);
        const vj_node *u = want(c, vj_get(recs->v[i].tree, "start_utc"), K_STR, "start_utc");
        if (!u || vt_parse_utc(u->text, &s, &ns))
            continue;
        if (!best || s < bs || (s == bs && ns < bn))
            best = u, bs = s, bn = ns;
    }
    return best;
}

static void prereg(ctx *c, const char *root, const pv_records *recs)
{
    char *p = vu_xasprintf("%s/provenance/prereg.json", root), err[4300];
    vj_node *t = NULL;
    if (!vu_is_file(p)) {
        free(p);
        return;
    }
    at(c, "provenance/prereg.json");
    if (vj_parse_file(p, &t, err, sizeof err)) {
        t = NULL;
        malformed(c, "record", NULL, "not JSON", "a JSON object");
    } else if (t->type != VJ_OBJ) {
        malformed(c, "record", NULL, "not a JSON object", "a JSON object");
    }
    free(p);
    vu_buf_puts(c->b, "## Preregistration\n\nRegistered ");
    val(c, t, "registered_utc", K_STR, "registered_utc", 0);
    vu_buf_puts(c->b, "; the prediction ");
    const vj_node *pred = want(c, vj_get(t, "prediction"), K_OBJ, "prediction");
    val(c, pred, "registered_utc", K_STR, "prediction.registered_utc", 0);
    vu_buf_puts(c->b, "; the first run started ");
    put_val(c->b, first_start(c, recs), 0);
    at(c, "provenance/prereg.json");
    vu_buf_puts(c->b, ".\n\n| file | bytes | sha256 |\n|---|---:|---|\n");
    file_rows(c, want(c, vj_get(t, "files"), K_ARR, "files"), "files");
    if (pred)
        file_row(c, pred, "prediction");
    vu_buf_puts(c->b, "\n");
    vj_free(t);
}

/* ---- 5: the runs ---- */

/* "<run>.attempt-<n>": an earlier attempt's record */
static int is_attempt(const char *name)
{
    const char *a = strstr(name, ".attempt-");
    if (!a || !a[9])
        return 0;
    for (a += 9; *a; a++)
        if (*a < '0' || *a > '9')
            return 0;
    return 1;
}

static int cmp_k(const void *x, const void *y)
{
    const pv_record *a = *(const pv_record *const *)x, *b = *(const pv_record *const *)y;
    const vj_node *na = vj_get(a->tree, "k"), *nb = vj_get(b->tree, "k");
    long long ka = na->is_int ? na->i : 0, kb = nb->is_int ? nb->i : 0;
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* exit_code checked: 1 when it is 0 */
static int exit_zero(ctx *c, const vj_node *t)
{
    const vj_node *e = want(c, vj_get(t, "exit_code"), K_INT, "exit_code");
    return e && (!e->is_int || e->i == 0);
}

static void run_row(ctx *c, const vj_node *t)
{
    vu_buf *b = c->b;
    const vj_node *idle = want(c, vj_get(t, "idle"), K_OBJ, "idle");
    const vj_node *q = want(c, vj_get(t, "quiet"), K_OBJ, "quiet");
    cell(c, t, "run", K_STR, "run");
    cell(c, t, "machine", K_STR, "machine");
    cell(c, t, "attempt", K_INT, "attempt");
    cell(c, t, "start_utc", K_STR, "start_utc");
    cell(c, t, "end_utc", K_STR, "end_utc");
    cell_fixed(c, idle, "idle_share", "idle.idle_share", 100, 1);
    cell_fixed(c, q, "steal_share", "quiet.steal_share", 100, 2);
    cell_fixed(c, q, "late_p99_ms", "quiet.late_p99_ms", 1, 3);
    cell_fixed(c, q, "late_max_ms", "quiet.late_max_ms", 1, 3);
    vu_buf_puts(b, "| ");
    if (exit_zero(c, t)) {
        const vj_node *y = want(c, vj_get(q, "quiet"), K_BOOL, "quiet.quiet");
        put_str(b, y ? (y->b ? "yes" : "no") : DASH, 0);
    } else {
        vu_buf_puts(b, "failed (exit ");
        val(c, t, "exit_code", K_INT, "exit_code", 1);
        vu_buf_puts(b, "): ");
        val(c, t, "reason", K_STR, "reason", 1);
    }
    vu_buf_puts(b, " |\n");
}

/* the record earlier_attempts[j] of run names (a file name in the same
 * folder); NULL, and malformed, when the folder holds no such file */
static const vj_node *attempt_record(ctx *c, const pv_records *recs, const vj_node *entry, size_t j)
{
    char name[300];
    const vj_node *e = want(c, entry, K_STR | K_NONULL, "earlier_attempts[%zu]", j);
    if (!e)
        return NULL;
    size_t l = strlen(e->text);
    if (l > 5 && !strcmp(e->text + l - 5, ".json") && l - 5 < sizeof name && !strchr(e->text, '/')) {
        snprintf(name, sizeof name, "%.*s", (int)(l - 5), e->text);
        const pv_record *r = pv_find(recs, name);
        if (r)
            return r->tree;
    }
    char f[64];
    snprintf(f, sizeof f, "earlier_attempts[%zu]", j);
    malformed(c, f, entry, NULL, "the file name of a record of the folder, <run>.attempt-<n>.json");
    return NULL;
}

/* `- <run>, attempt <attempt>, <start> to <end>, exit <exit_code>: <why>` */
static void attempt_line(ctx *c, const vj_node *t)
{
    vu_buf *b = c->b;
    vu_buf_puts(b, "- ");
    val(c, t, "run", K_STR, "run", 0);
    vu_buf_puts(b, ", attempt ");
    val(c, t, "attempt", K_INT, "attempt", 0);
    vu_buf_puts(b, ", ");
    val(c, t, "start_utc", K_STR, "start_utc", 0);
    vu_buf_puts(b, " to ");
    val(c, t, "end_utc", K_STR, "end_utc", 0);
    vu_buf_puts(b, ", exit ");
    val(c, t, "exit_code", K_INT, "exit_code", 0);
    vu_buf_puts(b, ": ");
    if (exit_zero(c, t)) {
        const vj_node *q = want(c, vj_get(t, "quiet"), K_OBJ, "quiet");
        const vj_node *why = want(c, vj_get(q, "reasons"), K_ARR, "quiet.reasons");
        if (!why || why->n == 0)
            put_str(b, DASH, 0);
        for (size_t k = 0; why && k < why->n; k++) {
            if (k)
                vu_buf_puts(b, "; ");
            put_val(b, want(c, why->items[k], K_STR | K_NONULL, "quiet.reasons[%zu]", k), 0);
        }
    } else {
        val(c, t, "reason", K_STR, "reason", 0);
    }
    vu_buf_puts(b, "\n");
}

static void measured_again(ctx *c, const pv_records *recs, const pv_record *const *v, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        at(c, PV_DIR "/%s.json", v[i]->name);
        const vj_node *ea = want(c, vj_get(v[i]->tree, "earlier_attempts"), K_ARR, "earlier_attempts");
        for (size_t j = 0; ea && j < ea->n; j++) {
            if (!any++)
                vu_buf_puts(c->b, "### Measured again\n\n");
            at(c, PV_DIR "/%s.json", v[i]->name);
            const vj_node *t = attempt_record(c, recs, ea->items[j], j);
            char *f = vu_xstrdup(t ? ea->items[j]->text : "");
            at(c, PV_DIR "/%s", f);
            free(f);
            attempt_line(c, t);
        }
    }
    if (any)
        vu_buf_puts(c->b, "\n");
}

static void syslog_lines(ctx *c, const pv_record *const *v, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        at(c, PV_DIR "/%s.json", v[i]->name);
        const vj_node *sl = want(c, vj_get(v[i]->tree, "syslog"), K_OBJ, "syslog");
        const vj_node *l = want(c, vj_get(sl, "lines"), K_ARR, "syslog.lines");
        for (size_t j = 0; l && j < l->n; j++) {
            const vj_node *line = want(c, l->items[j], K_STR | K_NONULL, "syslog.lines[%zu]", j);
            if (!any++)
                vu_buf_puts(c->b, "### System log lines during runs\n\n");
            vu_buf_puts(c->b, "- ");
            val(c, v[i]->tree, "run", K_STR, "run", 0);
            vu_buf_puts(c->b, ": `");
            if (line)
                put_ticked(c->b, line->text);
            vu_buf_puts(c->b, "`\n");
        }
    }
    if (any)
        vu_buf_puts(c->b, "\n");
}

/* the run records (every record an object, each run record with an
 * integer k) in the order of k, then by name; *n of them; NULL when malformed */
static const pv_record **run_records(ctx *c, const pv_records *recs, size_t *n)
{
    const pv_record **v = vu_xmalloc((recs->n ? recs->n : 1) * sizeof *v);
    *n = 0;
    for (size_t i = 0; i < recs->n; i++) {
        at(c, PV_DIR "/%s.json", recs->v[i].name);
        if (!recs->v[i].tree)
            malformed(c, "record", NULL, "not a JSON object", "a JSON object");
        else if (is_attempt(recs->v[i].name))
            continue;
        else if (want(c, vj_get(recs->v[i].tree, "k"), K_INT | K_NONULL, "k"))
            v[(*n)++] = &recs->v[i];
    }
    if (c->bad->file[0]) {
        free(v);
        return NULL;
    }
    qsort(v, *n, sizeof *v, cmp_k);
    return v;
}

static void runs(ctx *c, const char *root, const pv_records *recs)
{
    char *dir = vu_xasprintf("%s/" PV_DIR, root);
    int there = vu_is_dir(dir);
    free(dir);
    size_t n;
    const pv_record **v;
    if (!there || !(v = run_records(c, recs, &n)))
        return;
    vu_buf_puts(c->b, "## Runs\n\n"
                      "| run | machine | attempts | start | end | gate idle % | steal % | lateness p99 ms | "
                      "lateness max ms | quiet |\n"
                      "|---|---|---:|---|---|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < n; i++) {
        at(c, PV_DIR "/%s.json", v[i]->name);
        run_row(c, v[i]->tree);
    }
    vu_buf_puts(c->b, "\n");
    measured_again(c, recs, v, n);
    syslog_lines(c, v, n);
    free(v);
}

int pm_render(const char *root, const pv_records *recs, vu_buf *out, pm_bad *bad)
{
    size_t ns;
    stage *st = load_stages(root, &ns);
    ctx c = {.b = out, .bad = bad};
    memset(bad, 0, sizeof *bad);
    heading(out);
    for (size_t i = 0; i < ns; i++)
        if (!strcmp(st[i].name, "measure"))
            machine(&c, stage_at(&c, &st[i]));
    stages(&c, st, ns);
    prereg(&c, root, recs);
    runs(&c, root, recs);
    vu_buf_add(out, "", 1); /* a NUL after the text, not counted */
    out->len--;
    for (size_t i = 0; i < ns; i++)
        vj_free(st[i].tree);
    free(st);
    return bad->file[0] ? -1 : 0;
}

/* ---- the comparison ---- */

/* line `line` of a text as a message shows it (cut at 300 bytes) */
static void line_text(const char *s, size_t len, char *out, size_t outlen)
{
    if (!s) {
        snprintf(out, outlen, "(end of file)");
        return;
    }
    const char *e = memchr(s, '\n', len);
    size_t l = e ? (size_t)(e - s) : len;
    if (l == 0) {
        snprintf(out, outlen, "(an empty line)");
        return;
    }
    size_t cut = l > 300 ? 300 : l;
    while (cut < l && cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut--; /* not inside a UTF-8 character */
    snprintf(out, outlen, "%.*s%s", (int)cut, s, cut < l ? " ..." : "");
}

/* the first line that differs; 0 when equal */
static long first_difference(const char *a, size_t al, const char *b, size_t bl, size_t *at_a, size_t *at_b)
{
    size_t i = 0, start = 0;
    long line = 1;
    while (i < al && i < bl && a[i] == b[i]) {
        if (a[i] == '\n')
            line++, start = i + 1;
        i++;
    }
    if (i == al && i == bl)
        return 0;
    *at_a = *at_b = start;
    return line;
}

vj_node *pm_check(const char *root, const pv_records *recs, int enforce)
{
    vj_node *o = vj_new_obj();
    char *p = vu_xasprintf("%s/" PM_REL, root), err[4300];
    int present = vu_is_file(p);
    vj_obj_set(o, "present", vj_new_bool(present));
    vj_obj_set(o, "checked", vj_new_bool(0));
    if (!present && !enforce) {
        printf("NOTE " PM_REL ": absent (profile tiny lets it go)\n");
        free(p);
        return o;
    }
    vu_buf want = {0};
    pm_bad bad;
    if (pm_render(root, recs, &want, &bad)) {
        /* the rules write nothing from a malformed record: nothing to compare */
        mm_addf(NULL, bad.file, bad.field, bad.value,
                "%s (RESULTS.md: a malformed record; " PM_REL " not compared)", bad.need);
        char *m = vu_xasprintf("%s %s", bad.file, bad.field);
        vj_obj_set(o, "malformed", vj_new_str(m));
        free(m);
        vu_buf_free(&want);
        free(p);
        return o;
    }
    if (!present) {
        mm_add(NULL, PM_REL, "file", "(absent)",
               "the provenance for people, written by make provenance from provenance/ (RESULTS.md)");
        vu_buf_free(&want);
        free(p);
        return o;
    }
    long lines = 0;
    for (size_t i = 0; i < want.len; i++)
        lines += want.p[i] == '\n';
    vj_obj_set(o, "lines", vj_new_int(lines));
    unsigned char *got = NULL;
    size_t len = 0;
    if (vu_read_file(p, &got, &len, err, sizeof err)) {
        mm_add(NULL, PM_REL, "file", "unreadable", err);
    } else {
        size_t ag = 0, aw = 0;
        long line = first_difference((const char *)got, len, want.p, want.len, &ag, &aw);
        if (line) {
            char where[64], lab[400], mine[400];
            snprintf(where, sizeof where, PM_REL ":%ld", line);
            line_text(ag < len ? (const char *)got + ag : NULL, len - ag, lab, sizeof lab);
            line_text(aw < want.len ? want.p + aw : NULL, want.len - aw, mine, sizeof mine);
            mm_addf(NULL, where, "line", lab, "%s (rendered from provenance/ by RESULTS.md's rules)", mine);
        }
        vj_obj_set(o, "checked", vj_new_bool(1));
        vj_obj_set(o, "equal", vj_new_bool(line == 0));
    }
    free(got);
    vu_buf_free(&want);
    free(p);
    return o;
}
