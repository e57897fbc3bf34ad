/* scanwalk: the scanner over files, folders and what they contain (scan.h) */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scan.h"
#include "scanpack.h"
#include "scanpath.h"
#include "scantext.h"
#include "vfiles.h"
#include "vutil.h"

typedef struct {
    const scan_opts *o;
    scan_stats *st;
    size_t used;     /* decompressed bytes of the current file given */
    size_t budget;   /* its bound (scan.h) */
    int study;       /* scan_tree: chains are paths relative to the root */
} walker;

/* what the next stream may inflate to */
static size_t room(const walker *w)
{
    size_t left = w->budget > w->used ? w->budget - w->used : 0;
    return left < SCAN_MAX_STREAM ? left : SCAN_MAX_STREAM;
}

void scan_opts_default(scan_opts *o, FILE *out, scan_style style, long max_print)
{
    o->out = out;
    o->style = style;
    o->max_print = max_print;
    o->max_bytes = SCAN_MAX_BYTES;
    o->max_ratio = SCAN_MAX_RATIO;
    o->max_depth = SCAN_MAX_DEPTH;
}

/* ---- printing ---- */

/* a finding about a whole file or member: what could not be looked into */
static void problem(walker *w, const char *chain, size_t off, const char *rule, const char *fmt, const char *what)
{
    w->st->findings++;
    if (w->o->style == SCAN_STUDY)
        fprintf(w->o->out, "FINDING %s offset %zu %s: ", chain, off, rule);
    else
        fprintf(w->o->out, "%s:0: %s: ", chain, rule);
    fprintf(w->o->out, fmt, what);
    fputc('\n', w->o->out);
}

typedef struct {
    walker *w;
    const char *chain;
    const unsigned char *b;
    int inflated, utf16;
    size_t line, upto;    /* the line number of offset upto */
    long printed, total;
} leaf_ctx;

static void on_finding(void *ctx, const scan_finding *f)
{
    leaf_ctx *c = ctx;
    c->total++;
    if (c->w->o->max_print > 0 && c->printed >= c->w->o->max_print)
        return;
    c->printed++;
    FILE *o = c->w->o->out;
    if (c->w->o->style == SCAN_STUDY) {
        /* how the bytes were read: " (inflated, utf-16, in base64 at byte 4)" */
        char how[160];
        snprintf(how, sizeof how, "%s%s%s%s%s%s", c->inflated || c->utf16 || f->via[0] ? " (" : "",
                 c->inflated ? "inflated" : "", c->inflated && c->utf16 ? ", " : "", c->utf16 ? "utf-16" : "",
                 (c->inflated || c->utf16) && f->via[0] ? ", " : "", f->via);
        if (how[0])
            strcat(how, ")");
        fprintf(o, "FINDING %s offset %zu%s %s: %s\n", c->chain, f->offset, how, f->rule, f->masked);
        return;
    }
    for (const unsigned char *p = c->b + c->upto, *e = c->b + f->offset;
         p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
        c->line++;
    c->upto = f->offset;
    fprintf(o, "%s:%zu: %s%s%s%s: %s\n", c->chain, c->line, f->rule, f->via[0] ? " (" : "", f->via,
            f->via[0] ? ")" : "", f->masked);
}

/* text (after every container): UTF-16 decoded, then the rules */
static void leaf(walker *w, const char *chain, const unsigned char *b, size_t n, int inflated)
{
    unsigned char *dec = NULL;
    size_t dn = 0;
    int u = st_utf16(b, n);
    if (u) {
        st_utf16_decode(b, n, u == 2, &dec, &dn);
        b = dec;
        n = dn;
    }
    leaf_ctx c = {w, chain, b, inflated, u != 0, 1, 0, 0, 0};
    scan_buffer(b, n, on_finding, &c);
    w->st->bytes += (long long)n;
    w->st->findings += c.total;
    if (c.total > c.printed)
        fprintf(w->o->out, "NOTE %s: %ld more findings not shown (--max-print 0 shows all)\n", chain,
                c.total - c.printed);
    free(dec);
}

/* ---- names ---- */

typedef struct {
    scan_finding v[8];
    size_t n, total;
} name_found;

static void on_name(void *ctx, const scan_finding *f)
{
    name_found *c = ctx;
    if (c->n < sizeof c->v / sizeof c->v[0])
        c->v[c->n++] = *f;
    c->total++;
}

/* scans a name; returns the chain through it (parent, sep unless 0, the
 * name with the middle of each finding masked), malloc'd */
static char *scan_name(walker *w, const char *parent, char sep, const char *name)
{
    name_found c;
    memset(&c, 0, sizeof c);
    scan_buffer((const unsigned char *)name, strlen(name), on_name, &c);
    char *shown = vu_xstrdup(name);
    for (size_t k = 0; k < c.n; k++) {
        const scan_finding *f = &c.v[k];
        size_t keep = f->len / 4;
        if (keep > 4)
            keep = 4;
        if (keep < 1 && f->len > 2)
            keep = 1;
        for (size_t i = f->offset + keep; i + keep < f->offset + f->len; i++)
            shown[i] = '*';
    }
    if (c.total > c.n) {   /* more findings than kept: the whole name masked */
        char m[160];
        scan_mask((const unsigned char *)name, strlen(name), m, sizeof m);
        free(shown);
        shown = vu_xstrdup(m);
    }
    char *chain = !parent || !parent[0] ? vu_xstrdup(shown)
                  : sep ? vu_xasprintf("%s%c%s", parent, sep, shown)
                        : vu_xasprintf("%s%s", parent, shown);
    for (size_t k = 0; k < c.n; k++) {
        const scan_finding *f = &c.v[k];
        const char *o = f->via[0] ? " (" : "", *cl = f->via[0] ? ")" : "";
        if (w->o->style == SCAN_STUDY)
            fprintf(w->o->out, "FINDING %s name%s%s%s %s: %s\n", chain, o, f->via, cl, f->rule, f->masked);
        else
            fprintf(w->o->out, "%s:name: %s%s%s%s: %s\n", chain, f->rule, o, f->via, cl, f->masked);
    }
    w->st->findings += (long)c.total;
    free(shown);
    return chain;
}

/* ---- containers ---- */

static void blob(walker *w, const char *chain, const unsigned char *b, size_t n, int depth, int inflated);

typedef struct {
    walker *w;
    const char *chain;
    int depth, inflated, zip;
} arc_ctx;

/* more than the bound decompressed (a bomb?) */
static void too_large(walker *w, const char *chain, size_t outn, const char *kind)
{
    char msg[256];
    snprintf(msg, sizeof msg, "a %s stream inflating past %zu bytes, the bound left for this file (a bomb?); "
             "what inflated up to it was scanned", kind, outn);
    problem(w, chain, outn, "too-large", "%s", msg);
}

/* a zip member's bytes as stored: inflated when deflated */
static void zip_member(arc_ctx *a, const char *chain, const sp_entry *e)
{
    walker *w = a->w;
    if (e->encrypted) {
        problem(w, chain, 0, "cannot-look-inside", "%s", "an encrypted zip member");
        return;
    }
    if (e->method == 0) {
        blob(w, chain, e->data, e->size, a->depth + 1, a->inflated);
        return;
    }
    if (e->method != 8) {
        char m[64];
        snprintf(m, sizeof m, "%d", e->method);
        problem(w, chain, 0, "cannot-look-inside", "a zip member of compression method %s (read here: 0 and 8)", m);
        return;
    }
    unsigned char *out;
    size_t outn;
    char err[256];
    int rc = sp_inflate_raw(e->data, e->size, room(w), &out, &outn, err, sizeof err);
    w->used += outn;
    if (rc == SP_CAP)
        too_large(w, chain, outn, "deflate");
    if (rc == SP_BAD)
        problem(w, chain, outn, "archive-unreadable", "%s (what inflated was scanned)", err);
    blob(w, chain, out, outn, a->depth + 1, 1);
    free(out);
}

static void on_entry(void *ctx, const sp_entry *e)
{
    arc_ctx *a = ctx;
    walker *w = a->w;
    if (e->kind == SP_META) {   /* a pax header, a comment: text */
        char *chain = vu_xasprintf("%s:%s", a->chain, e->name);
        leaf(w, chain, e->data, e->size, a->inflated);
        free(chain);
        return;
    }
    w->st->members++;
    char *chain = scan_name(w, a->chain, ':', e->name);
    if (e->link) {
        char *lc = vu_xasprintf("%s (link)", chain);
        free(scan_name(w, lc, ' ', e->link));
        free(lc);
    }
    if (e->kind == SP_SPARSE)
        problem(w, chain, 0, "cannot-look-inside", "%s", "a GNU sparse file (its data is not read here)");
    else if (e->kind == SP_FILE && a->zip)
        zip_member(a, chain, e);
    else if (e->kind == SP_FILE)
        blob(w, chain, e->data, e->size, a->depth + 1, a->inflated);
    free(chain);
}

static void decompress(walker *w, const char *chain, sp_kind k, const unsigned char *b, size_t n, int depth,
                       int inflated)
{
    unsigned char *out;
    size_t outn;
    char err[256], msg[512];
    int rc;
    if (k == SP_GZIP) {   /* each member's FEXTRA, FNAME, FCOMMENT: text, as stored */
        w->st->gz_files++;
        arc_ctx a = {w, chain, depth, inflated, 0};
        rc = sp_gunzip(b, n, room(w), &out, &outn, err, sizeof err, on_entry, &a);
    } else {
        rc = sp_decompress(k, b, n, room(w), &out, &outn, err, sizeof err);
    }
    w->used += outn;
    if (rc == SP_NOLIB) {
        snprintf(msg, sizeof msg, "a %s stream: %s", sp_kind_name(k), err);
        problem(w, chain, 0, "cannot-look-inside", "%s", msg);
        free(out);
        return;
    }
    if (rc == SP_CAP)
        too_large(w, chain, outn, sp_kind_name(k));
    if (rc == SP_BAD) {
        snprintf(msg, sizeof msg, "%s (scanned what inflated, and the raw bytes)", err);
        problem(w, chain, outn, k == SP_GZIP ? "gzip-unreadable" : "archive-unreadable", "%s", msg);
        leaf(w, chain, b, n, 0);
    }
    blob(w, chain, out, outn, depth + 1, 1);
    free(out);
}

/* bytes of a file or member: look inside what they hold, else scan them */
static void blob(walker *w, const char *chain, const unsigned char *b, size_t n, int depth, int inflated)
{
    sp_kind k = sp_detect(b, n);
    if (k == SP_PLAIN) {
        leaf(w, chain, b, n, inflated);
        return;
    }
    if (depth >= w->o->max_depth) {
        char msg[160];
        snprintf(msg, sizeof msg, "a %s inside %d containers, the bound: not looked into", sp_kind_name(k), depth);
        problem(w, chain, 0, "too-deep", "%s", msg);
        return;
    }
    if (k != SP_TAR && k != SP_ZIP) {
        decompress(w, chain, k, b, n, depth, inflated);
        return;
    }
    arc_ctx a = {w, chain, depth, inflated, k == SP_ZIP};
    char err[512];
    int rc = k == SP_TAR ? sp_tar(b, n, on_entry, &a, err, sizeof err) : sp_zip(b, n, on_entry, &a, err, sizeof err);
    if (rc != SP_OK)
        problem(w, chain, 0, "archive-unreadable", "%s", err);
}

/* ---- files and folders ---- */

/* the file at path, shown as chain (its name already scanned) */
static void one_file(walker *w, const char *path, const char *chain)
{
    unsigned char *buf;
    size_t len;
    char err[512];
    if (vu_read_file(path, &buf, &len, err, sizeof err)) {
        problem(w, chain, 0, "unreadable", "%s", err);
        return;
    }
    w->st->files++;
    w->used = 0;
    w->budget = len > w->o->max_bytes / w->o->max_ratio ? len * w->o->max_ratio : w->o->max_bytes;
    blob(w, chain, buf, len, 0, 0);
    free(buf);
}

/* the folder at path, shown as chain: every name and file below it */
static void walk(walker *w, const char *path, const char *chain)
{
    char **names;
    size_t n;
    char err[512];
    if (vu_list_dir(path, &names, &n, err, sizeof err)) {
        problem(w, chain, 0, "unreadable", "%s", err);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (w->study) { /* what make report writes from verified.json comes after the verifier (vfiles.h) */
            char *rel = vu_xasprintf("%s/%s", chain, names[i]);
            int after = vf_written_after(rel);
            free(rel);
            if (after)
                continue;
        }
        char *full = vu_xasprintf("%s/%s", path, names[i]);
        char *c = scan_name(w, chain, '/', names[i]);
        struct stat ls;
        int link = lstat(full, &ls) == 0 && S_ISLNK(ls.st_mode);
        if (vu_is_dir(full)) {
            if (!link)
                walk(w, full, c); /* a link to a folder: its name only (no loops) */
        } else if (vu_is_file(full)) {
            one_file(w, full, c);
        }
        free(c);
        free(full);
    }
    vu_free_names(names, n);
}

void scan_file(const char *path, const char *rel, FILE *out, long max_print, scan_stats *st)
{
    scan_opts o;
    scan_opts_default(&o, out, SCAN_STUDY, max_print);
    walker w = {&o, st, 0, 0, 0};
    const char *slash = strrchr(rel, '/');
    char *parent = slash ? vu_xstrndup(rel, (size_t)(slash - rel)) : vu_xstrdup("");
    char *chain = scan_name(&w, parent, '/', slash ? slash + 1 : rel);
    one_file(&w, path, chain);
    free(chain);
    free(parent);
}

int scan_tree(const char *root, FILE *out, long max_print, scan_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    scan_opts o;
    scan_opts_default(&o, out, SCAN_STUDY, max_print);
    walker w = {&o, st, 0, 0, 1};
    int any = 0;
    sp_set_root(root); /* the study's own folder, written into a file, is a machine's path */
    static const char *const sub[] = {"results", "provenance"};
    for (int k = 0; k < 2; k++) {
        char *d = vu_xasprintf("%s/%s", root, sub[k]);
        if (vu_is_dir(d)) {
            any = 1;
            walk(&w, d, sub[k]);
        }
        free(d);
    }
    sp_set_root(NULL);
    if (!any) {
        snprintf(err, errlen, "%s: neither results/ nor provenance/ exists", root);
        return 2;
    }
    return 0;
}

int scan_paths(const char *const *paths, size_t n, const scan_opts *o, scan_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    for (size_t i = 0; i < n; i++) {   /* every path usable before anything is printed */
        const char *p = paths[i];
        char **names;
        size_t nn;
        char e2[512];
        if (vu_is_dir(p)) {
            if (vu_list_dir(p, &names, &nn, e2, sizeof e2)) {
                snprintf(err, errlen, "--scan %s: %s", p, e2);
                return 2;
            }
            vu_free_names(names, nn);
            continue;
        }
        FILE *f = vu_is_file(p) ? fopen(p, "rb") : NULL;
        if (!f) {
            snprintf(err, errlen, "--scan %s: no such file or folder, or not readable", p);
            return 2;
        }
        fclose(f);
    }
    walker w = {o, st, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        /* the names below the path given, and its own last name (the folders
         * above it are the auditor's, not the release's) */
        const char *p = paths[i];
        size_t pl = strlen(p);
        while (pl > 1 && p[pl - 1] == '/')
            pl--;
        char *trim = vu_xstrndup(p, pl);
        const char *slash = strrchr(trim, '/');
        const char *base = slash ? slash + 1 : trim;
        char *chain;
        if (!base[0] || !strcmp(base, ".") || !strcmp(base, "..")) {
            chain = vu_xstrdup(trim);
        } else {
            /* "/x": parent "/" joined as it is; "a/x": parent "a" joined by '/' */
            char *parent = slash ? vu_xstrndup(trim, (size_t)(slash - trim) + (slash == trim)) : vu_xstrdup("");
            chain = scan_name(&w, parent, slash == trim ? 0 : '/', base);
            free(parent);
        }
        if (vu_is_dir(trim))
            walk(&w, trim, chain);
        else
            one_file(&w, trim, chain);
        free(chain);
        free(trim);
    }
    return 0;
}
