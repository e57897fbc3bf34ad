/* readme: README.md's study block, written from results/verified.json
 * through a template (report/front-page.md.in), so that the front page
 * cannot drift from the verified study.
 *
 *   readme [--root DIR] [--template FILE] [--in FILE] [--readme FILE] [--check | --print]
 *
 * The template is Markdown filled by the report's one template engine
 * (src/tpl.h has the grammar): {PATH|KIND} a figure of verified.json, keys
 * joined by dots (arms.H3-fb25.p99_ms.median; ci95.0 an item of a list;
 * odds[arm=H4-r2,event=flooded] the first item with those fields), KIND
 * one of src/fmt.h's (ms, pct, int, x, spp, s, str ...); loops and
 * conditionals as tpl.h says.  A figure that is missing, null or not of its
 * kind refuses the whole block (exit 1, the template's line and the
 * placeholder named), as does verified.json without "ok": true: only
 * confirmed numbers reach the front page.
 *
 * The block is every line from "<!-- study:begin -->" to "<!-- study:end -->"
 * (each once in README.md, on a line of its own), replaced whole: the two
 * marks, a comment naming the source, the rendered template.  README.md is
 * written to a temporary name and renamed: never half-written.
 *
 * Defaults, under --root (.): README.md, report/front-page.md.in and
 * results/verified.json.  The template's design data is design.advice
 * (src/advice.h), from the advice.tsv of the repository readme was built in
 * (report/templates/, as the report's default): the block "What a service
 * should answer".  When there is no results/verified.json (no study
 * committed yet) and --in is not given, the block is rendered from the
 * fixture report/tests/fixture/front.json and headed by a line saying it is
 * not the study.  --check writes nothing: exit 0 when README.md's block is
 * what would be written, else 1 naming the first line that differs.
 * --print writes the block to stdout.  Exit 0 done; 1 refused, failed or
 * different; 2 usage.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advice.h"
#include "fmt.h"
#include "tpl.h"

#define BEGIN "<!-- study:begin -->"
#define END "<!-- study:end -->"
#define FIXTURE "report/tests/fixture/front.json"

/* A growing string. */
typedef struct {
    char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = 2 * (b->n + n + 1);
        if (!(b->p = realloc(b->p, b->cap)))
            exit(1);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void putf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(buf *b, const char *fmt, ...)
{
    char t[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    put(b, t, n < 0 ? 0 : (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    buf b = {0};
    char t[65536];
    size_t n;
    while ((n = fread(t, 1, sizeof t, f)) > 0)
        put(&b, t, n);
    fclose(f);
    if (!b.p)
        put(&b, "", 0);
    return b.p;
}

/* the engine's sink: text and values into a buf; a null or a value not of
 * its kind refuses the block */
typedef struct {
    buf *out;
    const char *in_name;
} sink_ctx;

static void sink_text(void *ctx, const char *s, size_t n)
{
    put(((sink_ctx *)ctx)->out, s, n);
}

static int sink_value(void *ctx, json_t *v, const char *ptr, const char *kind, char *err, size_t el)
{
    sink_ctx *c = ctx;
    char text[256];
    (void)ptr;
    if (json_is_null(v)) {
        snprintf(err, el, "null in %s (not measured)", c->in_name);
        return -1;
    }
    if (fmt_value(v, kind, text, sizeof text) != 0) {
        snprintf(err, el, "in %s not a value of format %s", c->in_name, kind);
        return -1;
    }
    put(c->out, text, strlen(text));
    return 0;
}

static void sink_missing(void *ctx)
{
    put(((sink_ctx *)ctx)->out, "not measured", 12);
}

/* The template filled in from root (src/tpl.h), into out; 0, or -1 with
 * the reason in err (the template's file and line). */
static int render(const char *tpl, const char *tpl_name, json_t *root, const char *in_name, const char *tpl_dir,
                  buf *out, char *err, size_t el)
{
    sink_ctx c = {out, in_name};
    tpl_sink s = {&c, in_name, sink_text, sink_value, sink_missing, NULL};
    /* design.advice: the items of "What a service should answer" (advice.h) */
    json_t *design = json_object();
    if (ad_design(root, design, tpl_dir, err, el) != 0) {
        json_decref(design);
        return -1;
    }
    int rc = tpl_render(tpl, tpl_name, root, design, &s, err, el);
    json_decref(design);
    if (rc != 0)
        return -1;
    if (out->n && out->p[out->n - 1] != '\n')
        put(out, "\n", 1);
    return 0;
}

/* The line starting at p equals s (up to its end or \n). */
static int line_is(const char *p, const char *s)
{
    size_t n = strlen(s);
    return !strncmp(p, s, n) && (p[n] == '\n' || !p[n] || (p[n] == '\r' && p[n + 1] == '\n'));
}

/* The block of readme: its start and the byte after its end line; -1 with err. */
static int find_block(const char *text, const char *name, size_t *from, size_t *to, char *err, size_t el)
{
    int nb = 0, ne = 0;
    for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
        if (line_is(p, BEGIN) && !nb++)
            *from = (size_t)(p - text);
        if (line_is(p, END) && !ne++) {
            const char *e = strchr(p, '\n');
            *to = e ? (size_t)(e + 1 - text) : strlen(text);
        }
    }
    if (nb != 1 || ne != 1 || *to <= *from) {
        snprintf(err, el, "%s: wants one line \"%s\" and, after it, one line \"%s\" (found %d and %d)", name, BEGIN,
                 END, nb, ne);
        return -1;
    }
    return 0;
}

static int write_atomic(const char *path, const char *text, char *err, size_t el)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    int bad = !f || fwrite(text, 1, strlen(text), f) != strlen(text), e = bad ? errno : 0;
    if (f && fclose(f) != 0 && !bad)
        bad = 1, e = errno;
    if (!bad && rename(tmp, path) != 0)
        bad = 1, e = errno;
    if (bad) {
        snprintf(err, el, "%s: cannot write: %s", path, strerror(e));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* --check: 0 when the same, else 1 naming the first README line that differs */
static int compare(const char *readme, const char *rp, size_t from, const char *block, const char *in_name)
{
    const char *a = readme + from, *b = block;
    int line = 1;
    for (const char *p = readme; p < a; p++)
        line += *p == '\n';
    while (*b && *a == *b) {
        line += *a == '\n';
        a++, b++;
    }
    if (!*b)
        return 0;
    while (b > block && b[-1] != '\n') /* both from the start of the line */
        a--, b--;
    fprintf(stderr,
            "readme: %s:%d: the study block differs from what `make readme` writes from %s (README: \"%.*s\", "
            "would be: \"%.*s\"); run `make readme`\n",
            rp, line, in_name, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
    return 1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: readme [--root DIR] [--template FILE] [--in FILE] [--readme FILE] [--check | --print]\n"
               "  README.md's block between \"" BEGIN "\" and \"" END "\", from verified.json\n"
               "  through the template (see report/src/readme.c)\n");
}

int main(int argc, char **argv)
{
    const char *root = ".", *tpl_opt = NULL, *in_opt = NULL, *readme_opt = NULL;
    int check = 0, print = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--root") && more)
            root = argv[++i];
        else if (!strcmp(a, "--template") && more)
            tpl_opt = argv[++i];
        else if (!strcmp(a, "--in") && more)
            in_opt = argv[++i];
        else if (!strcmp(a, "--readme") && more)
            readme_opt = argv[++i];
        else if (!strcmp(a, "--check"))
            check = 1;
        else if (!strcmp(a, "--print"))
            print = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "readme: unknown or incomplete option \"%s\"\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (check && print) {
        fprintf(stderr, "readme: --check or --print, not both\n");
        return 2;
    }
    char tp[4096], ip[4096], rp[4096], err[16384] = "";
    snprintf(tp, sizeof tp, tpl_opt ? "%s" : "%s/report/front-page.md.in", tpl_opt ? tpl_opt : root);
    snprintf(rp, sizeof rp, readme_opt ? "%s" : "%s/README.md", readme_opt ? readme_opt : root);
    snprintf(ip, sizeof ip, in_opt ? "%s" : "%s/results/verified.json", in_opt ? in_opt : root);
    const char *in_name = in_opt ? in_opt : "results/verified.json";
    const char *tpl_name = tpl_opt ? tpl_opt : "report/front-page.md.in";
    int placeholder = !in_opt && access(ip, F_OK) != 0;
    if (placeholder) {
        snprintf(ip, sizeof ip, "%s/" FIXTURE, root);
        in_name = FIXTURE;
    }
    char *tpl = slurp(tp), *readme = print ? NULL : slurp(rp);
    json_error_t je;
    json_t *v = json_load_file(ip, JSON_REJECT_DUPLICATES, &je);
    buf block = {0};
    size_t from = 0, to = 0;
    int rc = 1;
    if (!tpl)
        snprintf(err, sizeof err, "%s: cannot read the template", tp);
    else if (!print && !readme)
        snprintf(err, sizeof err, "%s: cannot read", rp);
    else if (!v)
        snprintf(err, sizeof err, "%s: %s (line %d)", ip, je.text, je.line);
    else if (!json_is_true(json_object_get(v, "ok")))
        snprintf(err, sizeof err, "%s: \"ok\" is not true: only a study the verifier passed reaches the front page",
                 ip);
    else if (readme)
        find_block(readme, rp, &from, &to, err, sizeof err);
    if (!err[0]) {
        putf(&block, "%s\n<!-- written by `make readme` from %s through %s: edit the template, not this block -->\n",
             BEGIN, in_name, tpl_name);
        if (placeholder)
            putf(&block, "> **Not the study.** No study is committed yet: the figures below come from the "
                         "renderer's test fixture (`%s`, from a short trial run). After `make all`, `make readme` "
                         "writes the study's here.\n\n",
                 FIXTURE);
        if (render(tpl, tpl_name, v, in_name, REPO_DIR "/report/templates", &block, err, sizeof err) == 0) {
            put(&block, END "\n", strlen(END) + 1);
            rc = 0;
        }
    }
    if (rc == 0 && print)
        fputs(block.p, stdout);
    else if (rc == 0 && check)
        rc = compare(readme, rp, from, block.p, in_name);
    else if (rc == 0) {
        buf all = {0};
        put(&all, readme, from);
        put(&all, block.p, block.n);
        put(&all, readme + to, strlen(readme + to));
        if (write_atomic(rp, all.p, err, sizeof err) != 0)
            rc = 1;
        free(all.p);
    }
    if (err[0])
        fprintf(stderr, "readme: %s\n", err);
    free(block.p);
    free(tpl);
    free(readme);
    json_decref(v);
    return rc;
}
