/* provmd: see provmd.h.  The rules are pipeline/RESULTS.md's, section
 * "results/provenance.md: the provenance for people"; each part below
 * names its number there. */
#include "provmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "predict.h"

static const char DASH[] = "\xe2\x80\x94"; /* U+2014: a null or missing value */

/* ---- values ---- */

/* s, with every '|' written "\|" inside a table cell */
static void put_str(vu_buf *b, const char *s, int cell)
{
    for (; *s; s++) {
        if (cell && *s == '|') vu_buf_add(b, "\\", 1);
        vu_buf_add(b, s, 1);
    }
}

/* a value as the rules write it: null or absent "—", booleans yes and no,
 * a string as it is, a number as the record writes it */
static void put_val(vu_buf *b, const vj_node *v, int cell)
{
    char t[256];
    if (!v || v->type == VJ_NULL) put_str(b, DASH, 0);
    else if (v->type == VJ_BOOL) put_str(b, v->b ? "yes" : "no", 0);
    else if ((v->type == VJ_STR || v->type == VJ_NUM) && v->text) put_str(b, v->text, cell);
    else {
        vj_scalar_text(v, t, sizeof t);
        put_str(b, t, cell);
    }
}

/* scale * v with C's %.<digits>f; "—" when v is not a number */
static void put_fixed(vu_buf *b, const vj_node *v, double scale, int digits)
{
    if (!v || v->type != VJ_NUM) put_str(b, DASH, 0);
    else vu_buf_printf(b, "%.*f", digits, scale * v->num);
}

/* o's member at a dotted path ("quiet.steal_share"); NULL when absent */
static const vj_node *get(const vj_node *o, const char *path)
{
    char key[64];
    while (o) {
        const char *dot = strchr(path, '.');
        if (!dot) return vj_get(o, path);
        snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
        o = vj_get(o, key);
        path = dot + 1;
    }
    return NULL;
}

/* a cell: "| " value " " (the row's last "|" is the caller's) */
static void cell(vu_buf *b, const vj_node *v)
{
    vu_buf_puts(b, "| ");
    put_val(b, v, 1);
    vu_buf_puts(b, " ");
}

static void cell_fixed(vu_buf *b, const vj_node *v, double scale, int digits)
{
    vu_buf_puts(b, "| ");
    put_fixed(b, v, scale, digits);
    vu_buf_puts(b, " ");
}

/* the command: argv joined by single spaces, each ` written ', between backticks */
static void put_command(vu_buf *b, const vj_node *argv)
{
    if (!argv || argv->type != VJ_ARR) {
        put_str(b, DASH, 0);
        return;
    }
    vu_buf c = {0};
    for (size_t i = 0; i < argv->n; i++) {
        if (i) vu_buf_puts(&c, " ");
        put_val(&c, argv->items[i], 0);
    }
    vu_buf_puts(b, "`");
    for (size_t i = 0; i < c.len; i++) vu_buf_add(b, c.p[i] == '`' ? "'" : c.p + i, 1);
    vu_buf_puts(b, "`");
    vu_buf_free(&c);
}

/* a row `| `<path>` | <size> | <sha256> |` of a file entry */
static void file_row(vu_buf *b, const vj_node *e)
{
    vu_buf_puts(b, "| `");
    put_val(b, vj_get(e, "path"), 1);
    vu_buf_puts(b, "` ");
    cell(b, vj_get(e, "size"));
    cell(b, vj_get(e, "sha256"));
    vu_buf_puts(b, "|\n");
}

/* ---- 1, 2: the heading and the machine ---- */

static void heading(vu_buf *b)
{
    vu_buf_puts(b, "# Provenance of this study\n\n"
                   "Written by `make provenance` from the files under\n"
                   "`provenance/`; the verifier writes it again from them and finds it\n"
                   "equal.  Times are UTC; commands as recorded, secrets masked.\n\n");
}

static void machine(vu_buf *b, const vj_node *measure)
{
    const vj_node *h = vj_get(measure, "host");
    vu_buf_puts(b, "## The machine\n\n");
    put_val(b, vj_get(h, "cpu_model"), 0);
    vu_buf_puts(b, ", ");
    put_val(b, vj_get(h, "cpus_online"), 0);
    vu_buf_puts(b, " CPUs, ");
    put_fixed(b, vj_get(h, "mem_total_kb"), 1.0 / 1048576, 1);
    vu_buf_puts(b, " GiB of memory, ");
    put_val(b, vj_get(h, "os"), 0);
    vu_buf_puts(b, " ");
    put_val(b, vj_get(h, "kernel"), 0);
    vu_buf_puts(b, " (");
    put_val(b, vj_get(h, "arch"), 0);
    vu_buf_puts(b, ").\n\n");
}

/* ---- 3: the stages ---- */

typedef struct {
    char name[256];     /* <s> of stage-<s>.json */
    int rank;           /* prepare measure collect ap cost, then the others */
    vj_node *tree;      /* NULL when unreadable */
} stage;

static int cmp_stage(const void *x, const void *y)
{
    const stage *a = x, *b = y;
    if (a->rank != b->rank) return a->rank - b->rank;
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
                if (!strcmp(s->name, first[k])) s->rank = k;
            char *p = vu_xasprintf("%s/%s", dir, names[i]);
            if (vj_parse_file(p, &s->tree, err, sizeof err) || s->tree->type != VJ_OBJ) {
                vj_free(s->tree);
                s->tree = NULL;
            }
            free(p);
        }
        vu_free_names(names, nn);
        qsort(v, *n, sizeof *v, cmp_stage);
    }
    free(dir);
    return v;
}

static void stage_row(vu_buf *b, const vj_node *t)
{
    cell(b, vj_get(t, "stage"));
    cell(b, vj_get(t, "start_utc"));
    cell(b, vj_get(t, "end_utc"));
    cell_fixed(b, vj_get(t, "wall_s"), 1, 1);
    const vj_node *u = vj_get(t, "cpu_user_s"), *s = vj_get(t, "cpu_sys_s");
    vu_buf_puts(b, "| ");
    if (u && s && u->type == VJ_NUM && s->type == VJ_NUM) vu_buf_printf(b, "%.1f", u->num + s->num);
    else put_str(b, DASH, 0);
    vu_buf_puts(b, " ");
    cell(b, vj_get(t, "exit_code"));
    const char *commit = vj_get_str(vj_get(t, "build"), "git_commit");
    vu_buf_puts(b, "| ");
    if (commit) {
        char c[13];
        snprintf(c, sizeof c, "%s", commit);
        put_str(b, c, 1);
    } else {
        put_val(b, get(t, "build.git_commit"), 1);
    }
    const vj_node *d = get(t, "build.git_dirty");
    vu_buf_puts(b, " | ");
    put_str(b, d && d->type == VJ_BOOL ? (d->b ? "dirty" : "clean") : DASH, 0);
    vu_buf_puts(b, " |\n");
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* `Built with ...; libraries: name version, ... .` */
static void built_with(vu_buf *b, const vj_node *t)
{
    vu_buf_puts(b, "Built with ");
    put_val(b, get(t, "build.compiler"), 0);
    vu_buf_puts(b, "; libraries: ");
    const vj_node *lib = vj_get(t, "libraries");
    if (!lib || lib->type != VJ_OBJ) {
        put_val(b, lib, 0);
    } else if (lib->n == 0) {
        vu_buf_puts(b, "none");
    } else {
        const char **keys = vu_xmalloc(lib->n * sizeof *keys);
        for (size_t i = 0; i < lib->n; i++) keys[i] = lib->keys[i];
        qsort(keys, lib->n, sizeof *keys, cmp_str);
        for (size_t i = 0; i < lib->n; i++) {
            vu_buf_printf(b, "%s%s ", i ? ", " : "", keys[i]);
            put_val(b, vj_get(lib, keys[i]), 0);
        }
        free(keys);
    }
    vu_buf_puts(b, ".\n\n");
}

static void file_table(vu_buf *b, const vj_node *list, const char *what)
{
    if (!list || list->type != VJ_ARR || list->n == 0) return;
    vu_buf_printf(b, "| %s | bytes | sha256 |\n|---|---:|---|\n", what);
    for (size_t i = 0; i < list->n; i++) file_row(b, list->items[i]);
    vu_buf_puts(b, "\n");
}

static void stages(vu_buf *b, const stage *v, size_t n)
{
    vu_buf_puts(b, "## Stages\n\n| stage | start | end | wall s | CPU s | exit | commit | tree |\n"
                   "|---|---|---|---:|---:|---:|---|---|\n");
    for (size_t i = 0; i < n; i++) stage_row(b, v[i].tree);
    vu_buf_puts(b, "\n");
    for (size_t i = 0; i < n; i++) {
        const vj_node *t = v[i].tree;
        vu_buf_puts(b, "### ");
        put_val(b, vj_get(t, "stage"), 0);
        vu_buf_puts(b, "\n\nCommand: ");
        put_command(b, vj_get(t, "argv"));
        vu_buf_puts(b, "\n\n");
        built_with(b, t);
        file_table(b, vj_get(t, "inputs"), "input");
        file_table(b, vj_get(t, "outputs"), "output");
    }
}

/* ---- 4: the preregistration ---- */

/* the earliest start_utc of every record of provenance/runs, as written; NULL for none */
static const vj_node *first_start(const pv_records *recs)
{
    const vj_node *best = NULL;
    long long bs = 0, s;
    long bn = 0, ns;
    for (size_t i = 0; i < recs->n; i++) {
        const vj_node *u = vj_get(recs->v[i].tree, "start_utc");
        if (!u || u->type != VJ_STR || pd_parse_utc(u->text, &s, &ns)) continue;
        if (!best || s < bs || (s == bs && ns < bn)) best = u, bs = s, bn = ns;
    }
    return best;
}

static void prereg(vu_buf *b, const char *root, const pv_records *recs)
{
    char *p = vu_xasprintf("%s/provenance/prereg.json", root), err[4300];
    vj_node *t = NULL;
    if (!vu_is_file(p)) {
        free(p);
        return;
    }
    if (vj_parse_file(p, &t, err, sizeof err)) t = NULL;
    free(p);
    vu_buf_puts(b, "## Preregistration\n\nRegistered ");
    put_val(b, vj_get(t, "registered_utc"), 0);
    vu_buf_puts(b, "; the prediction ");
    put_val(b, get(t, "prediction.registered_utc"), 0);
    vu_buf_puts(b, "; the first run started ");
    put_val(b, first_start(recs), 0);
    vu_buf_puts(b, ".\n\n| file | bytes | sha256 |\n|---|---:|---|\n");
    const vj_node *files = vj_get(t, "files");
    for (size_t i = 0; files && files->type == VJ_ARR && i < files->n; i++) file_row(b, files->items[i]);
    file_row(b, vj_get(t, "prediction"));
    vu_buf_puts(b, "\n");
    vj_free(t);
}

/* ---- 5: the runs ---- */

/* "<run>.attempt-<n>": an earlier attempt's record */
static int is_attempt(const char *name)
{
    const char *a = strstr(name, ".attempt-");
    if (!a || !a[9]) return 0;
    for (a += 9; *a; a++)
        if (*a < '0' || *a > '9') return 0;
    return 1;
}

static long long k_of(const pv_record *r)
{
    const vj_node *k = vj_get(r->tree, "k");
    return k && k->type == VJ_NUM && k->is_int ? k->i : -1;
}

/* the order of k; records without an integer k last; then by name */
static int cmp_k(const void *x, const void *y)
{
    const pv_record *a = *(const pv_record *const *)x, *b = *(const pv_record *const *)y;
    long long ka = k_of(a), kb = k_of(b);
    if ((ka < 0) != (kb < 0)) return ka < 0 ? 1 : -1;
    if (ka != kb) return ka < kb ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int exit_zero(const vj_node *t)
{
    const vj_node *e = vj_get(t, "exit_code");
    return e && e->type == VJ_NUM && e->num == 0;
}

static void run_row(vu_buf *b, const vj_node *t)
{
    cell(b, vj_get(t, "run"));
    cell(b, vj_get(t, "machine"));
    cell(b, vj_get(t, "attempt"));
    cell(b, vj_get(t, "start_utc"));
    cell(b, vj_get(t, "end_utc"));
    cell_fixed(b, get(t, "idle.idle_share"), 100, 1);
    cell_fixed(b, get(t, "quiet.steal_share"), 100, 2);
    cell_fixed(b, get(t, "quiet.late_p99_ms"), 1, 3);
    cell_fixed(b, get(t, "quiet.late_max_ms"), 1, 3);
    vu_buf_puts(b, "| ");
    if (exit_zero(t)) {
        put_val(b, get(t, "quiet.quiet"), 1);
    } else {
        vu_buf_puts(b, "failed (exit ");
        put_val(b, vj_get(t, "exit_code"), 1);
        vu_buf_puts(b, "): ");
        put_val(b, vj_get(t, "reason"), 1);
    }
    vu_buf_puts(b, " |\n");
}

/* the record an earlier_attempts entry names (a file name in the same folder) */
static const vj_node *attempt_record(const pv_records *recs, const pv_record *run, const vj_node *entry)
{
    char name[300];
    const char *f = entry && entry->type == VJ_STR ? entry->text : NULL;
    size_t l = f ? strlen(f) : 0;
    if (f && l > 5 && !strcmp(f + l - 5, ".json") && l - 5 < sizeof name && !strchr(f, '/')) {
        snprintf(name, sizeof name, "%.*s", (int)(l - 5), f);
        const pv_record *r = pv_find(recs, name);
        if (r) return r->tree;
    }
    char where[320], lab[256];
    snprintf(where, sizeof where, PV_DIR "/%s.json", run->name);
    vj_scalar_text(entry, lab, sizeof lab);
    mm_add(NULL, where, "earlier_attempts", lab,
           "the file name of a record in the same folder, <run>.attempt-<n>.json (RESULTS.md)");
    return NULL;
}

static void measured_again(vu_buf *b, const pv_records *recs, const pv_record *const *v, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        const vj_node *ea = vj_get(v[i]->tree, "earlier_attempts");
        if (!ea || ea->type != VJ_ARR || ea->n == 0) continue;
        if (!any++) vu_buf_puts(b, "### Measured again\n\n");
        for (size_t j = 0; j < ea->n; j++) {
            const vj_node *t = attempt_record(recs, v[i], ea->items[j]);
            vu_buf_puts(b, "- ");
            put_val(b, vj_get(t, "run"), 0);
            vu_buf_puts(b, ", attempt ");
            put_val(b, vj_get(t, "attempt"), 0);
            vu_buf_puts(b, ", ");
            put_val(b, vj_get(t, "start_utc"), 0);
            vu_buf_puts(b, " to ");
            put_val(b, vj_get(t, "end_utc"), 0);
            vu_buf_puts(b, ", exit ");
            put_val(b, vj_get(t, "exit_code"), 0);
            vu_buf_puts(b, ": ");
            const vj_node *why = exit_zero(t) ? get(t, "quiet.reasons") : vj_get(t, "reason");
            if (why && why->type == VJ_ARR) {
                for (size_t k = 0; k < why->n; k++) {
                    if (k) vu_buf_puts(b, "; ");
                    put_val(b, why->items[k], 0);
                }
            } else {
                put_val(b, why, 0);
            }
            vu_buf_puts(b, "\n");
        }
    }
    if (any) vu_buf_puts(b, "\n");
}

static void syslog_lines(vu_buf *b, const pv_record *const *v, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        const vj_node *l = get(v[i]->tree, "syslog.lines");
        for (size_t j = 0; l && l->type == VJ_ARR && j < l->n; j++) {
            if (!any++) vu_buf_puts(b, "### System log lines during runs\n\n");
            vu_buf_puts(b, "- ");
            put_val(b, vj_get(v[i]->tree, "run"), 0);
            vu_buf_puts(b, ": `");
            vu_buf c = {0};
            put_val(&c, l->items[j], 0);
            for (size_t k = 0; k < c.len; k++) vu_buf_add(b, c.p[k] == '`' ? "'" : c.p + k, 1);
            vu_buf_free(&c);
            vu_buf_puts(b, "`\n");
        }
    }
    if (any) vu_buf_puts(b, "\n");
}

static void runs(vu_buf *b, const char *root, const pv_records *recs)
{
    char *dir = vu_xasprintf("%s/" PV_DIR, root);
    int there = vu_is_dir(dir);
    free(dir);
    if (!there) return;
    const pv_record **v = vu_xmalloc((recs->n ? recs->n : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < recs->n; i++)
        if (!is_attempt(recs->v[i].name)) v[n++] = &recs->v[i];
    qsort(v, n, sizeof *v, cmp_k);
    vu_buf_puts(b, "## Runs\n\n"
                   "| run | machine | attempts | start | end | gate idle % | steal % | lateness p99 ms | "
                   "lateness max ms | quiet |\n"
                   "|---|---|---:|---|---|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < n; i++) run_row(b, v[i]->tree);
    vu_buf_puts(b, "\n");
    measured_again(b, recs, v, n);
    syslog_lines(b, v, n);
    free(v);
}

/* "no trailing spaces": a line the rules would end in a space (an attempt
 * without reasons) loses it */
static void strip_trailing(vu_buf *b)
{
    size_t o = 0;
    for (size_t i = 0; i < b->len; i++) {
        if (b->p[i] == '\n')
            while (o > 0 && b->p[o - 1] == ' ') o--;
        b->p[o++] = b->p[i];
    }
    while (o > 0 && b->p[o - 1] == ' ') o--;
    b->len = o;
}

void pm_render(const char *root, const pv_records *recs, vu_buf *out)
{
    size_t ns;
    stage *st = load_stages(root, &ns);
    heading(out);
    for (size_t i = 0; i < ns; i++)
        if (!strcmp(st[i].name, "measure")) machine(out, st[i].tree);
    stages(out, st, ns);
    prereg(out, root, recs);
    runs(out, root, recs);
    strip_trailing(out);
    vu_buf_add(out, "", 1); /* a NUL after the text, not counted */
    out->len--;
    for (size_t i = 0; i < ns; i++) vj_free(st[i].tree);
    free(st);
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
    while (cut < l && cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80) cut--; /* not inside a UTF-8 character */
    snprintf(out, outlen, "%.*s%s", (int)cut, s, cut < l ? " ..." : "");
}

/* the first line that differs; 0 when equal */
static long first_difference(const char *a, size_t al, const char *b, size_t bl, size_t *at_a, size_t *at_b)
{
    size_t i = 0, start = 0;
    long line = 1;
    while (i < al && i < bl && a[i] == b[i]) {
        if (a[i] == '\n') line++, start = i + 1;
        i++;
    }
    if (i == al && i == bl) return 0;
    *at_a = *at_b = start;
    return line;
}

vj_node *pm_check(const char *root, const pv_records *recs, int enforce)
{
    vj_node *o = vj_new_obj();
    char *p = vu_xasprintf("%s/" PM_REL, root), err[4300];
    int present = vu_is_file(p);
    vj_obj_set(o, "present", vj_new_bool(present));
    if (!present) {
        if (enforce)
            mm_add(NULL, PM_REL, "file", "(absent)",
                   "the provenance for people, written by make provenance from provenance/ (RESULTS.md)");
        else printf("NOTE " PM_REL ": absent (profile tiny lets it go)\n");
        vj_obj_set(o, "checked", vj_new_bool(0));
        free(p);
        return o;
    }
    vu_buf want = {0};
    pm_render(root, recs, &want);
    long lines = 0;
    for (size_t i = 0; i < want.len; i++) lines += want.p[i] == '\n';
    vj_obj_set(o, "lines", vj_new_int(lines));
    unsigned char *got = NULL;
    size_t len = 0;
    if (vu_read_file(p, &got, &len, err, sizeof err)) {
        mm_add(NULL, PM_REL, "file", "unreadable", err);
        vj_obj_set(o, "checked", vj_new_bool(0));
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
