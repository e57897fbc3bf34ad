/* rdata.c: paths into verified.json and the design's arms.  The contract is in rdata.h. */
#include "rdata.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *walk(json_t *root, const char *path)
{
    json_t *n = root;
    const char *p = path;
    while (n && *p) {
        if (*p != '/')
            return NULL;
        p++;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char key[512];
        if (len >= sizeof key)
            return NULL;
        memcpy(key, p, len);
        key[len] = 0;
        if (json_is_object(n)) {
            n = json_object_get(n, key);
        } else if (json_is_array(n)) {
            char *end;
            long i = strtol(key, &end, 10);
            if (!len || *end || i < 0)
                return NULL;
            n = json_array_get(n, (size_t)i);
        } else {
            return NULL;
        }
        p += len;
    }
    return n;
}

json_t *rd_at(json_t *root, const char *fmt, ...)
{
    char path[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    return walk(root, path);
}

int rd_num(json_t *root, double *out, const char *fmt, ...)
{
    char path[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    json_t *n = walk(root, path);
    if (!json_is_number(n))
        return -1;
    *out = json_number_value(n);
    return 0;
}

const char *rd_str(json_t *root, const char *fmt, ...)
{
    char path[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    return json_string_value(walk(root, path));
}

int rd_measured(json_t *root, const char *arm)
{
    return json_is_object(json_object_get(json_object_get(root, "arms"), arm));
}

/* ------------------------------------------------------------ the registered arms */

enum { MAXCOLS = 40 };

typedef struct {
    char name[64], wait[16], rate[16], policy[32], fault[32];
    char cells[MAXCOLS][32]; /* every column, as in the file */
} reg_arm;

static char arm_cols[MAXCOLS][32]; /* the arms file's header */
static int narm_cols;

typedef struct {
    char kind[16], code[64], words[160];
    int family;
} word;

typedef struct {
    char list[64], arm[64], label[160];
} list_item;

static reg_arm *reg;
static size_t nreg;
static list_item *items;
static size_t nitems;
static json_t *fwords; /* figure-words.tsv */
static list_item *cmps; /* comparisons.tsv: list the group, arm a, label "b figure" */
static size_t ncmps;
static word *words;
static size_t nwords;

/* the lines of a tab-separated file without its # comments and header;
 * cols[i] the header's names.  Calls row(cells, ncells, ctx) per line. */
static int read_tsv(const char *path, const char *want_first, int (*row)(char **c, int n, void *ctx), void *ctx,
                    char *err, size_t el)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, el, "%s: cannot read", path);
        return -1;
    }
    char line[4096];
    int header = 0, ln = 0, rc = 0;
    while (fgets(line, sizeof line, f) && !rc) {
        ln++;
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '#' || !line[0])
            continue;
        char *cells[64], *save = NULL;
        int n = 0;
        for (char *c = strtok_r(line, "\t", &save); c && n < 64; c = strtok_r(NULL, "\t", &save))
            cells[n++] = c;
        if (!header) {
            if (n < 1 || strcmp(cells[0], want_first)) {
                snprintf(err, el, "%s:%d: the header wants \"%s\" first", path, ln, want_first);
                rc = -1;
            }
            header = 1;
            if (!strcmp(want_first, "name")) {
                narm_cols = n < MAXCOLS ? n : MAXCOLS;
                for (int i = 0; i < narm_cols; i++)
                    snprintf(arm_cols[i], sizeof arm_cols[i], "%s", cells[i]);
            }
            continue;
        }
        if (row(cells, n, ctx) != 0) {
            snprintf(err, el, "%s:%d: a line with too few columns", path, ln);
            rc = -1;
        }
    }
    fclose(f);
    if (!rc && !header) {
        snprintf(err, el, "%s: no header line", path);
        rc = -1;
    }
    return rc;
}

/* lab/arms.tsv's columns: name wait rate policy ... fault (the 15th) */
static int arm_row(char **c, int n, void *ctx)
{
    (void)ctx;
    if (n < 15)
        return -1;
    reg = realloc(reg, (nreg + 1) * sizeof *reg);
    if (!reg)
        exit(1);
    reg_arm *a = &reg[nreg++];
    snprintf(a->name, sizeof a->name, "%s", c[0]);
    snprintf(a->wait, sizeof a->wait, "%s", c[1]);
    snprintf(a->rate, sizeof a->rate, "%s", c[2]);
    snprintf(a->policy, sizeof a->policy, "%s", c[3]);
    snprintf(a->fault, sizeof a->fault, "%s", c[14]);
    memset(a->cells, 0, sizeof a->cells);
    for (int i = 0; i < n && i < MAXCOLS; i++)
        snprintf(a->cells[i], sizeof a->cells[i], "%s", c[i]);
    return 0;
}

static int word_row(char **c, int n, void *ctx)
{
    (void)ctx;
    if (n < 4)
        return -1;
    words = realloc(words, (nwords + 1) * sizeof *words);
    if (!words)
        exit(1);
    word *w = &words[nwords++];
    snprintf(w->kind, sizeof w->kind, "%s", c[0]);
    snprintf(w->code, sizeof w->code, "%s", c[1]);
    snprintf(w->words, sizeof w->words, "%s", c[3]);
    w->family = c[2][0] >= '0' && c[2][0] <= '9' ? atoi(c[2]) : -1;
    return 0;
}

static int list_row(char **c, int n, void *ctx)
{
    (void)ctx;
    if (n < 2)
        return -1;
    items = realloc(items, (nitems + 1) * sizeof *items);
    if (!items)
        exit(1);
    list_item *it = &items[nitems++];
    snprintf(it->list, sizeof it->list, "%s", c[0]);
    snprintf(it->arm, sizeof it->arm, "%s", c[1]);
    snprintf(it->label, sizeof it->label, "%s", n > 2 && strcmp(c[2], "-") ? c[2] : "");
    return 0;
}

static const reg_arm *registered(const char *arm)
{
    for (size_t i = 0; i < nreg; i++)
        if (!strcmp(reg[i].name, arm))
            return &reg[i];
    return NULL;
}

static int cmp_row(char **c, int n, void *ctx)
{
    (void)ctx;
    if (n < 4)
        return -1;
    cmps = realloc(cmps, (ncmps + 1) * sizeof *cmps);
    if (!cmps)
        exit(1);
    list_item *it = &cmps[ncmps++];
    snprintf(it->list, sizeof it->list, "%s", c[0]);
    snprintf(it->arm, sizeof it->arm, "%s", c[1]);
    snprintf(it->label, sizeof it->label, "%s\t%s", c[2], c[3]);
    return 0;
}

int rd_design_load(const char *arms_tsv, const char *dir, char *err, size_t el)
{
    char p[4200];
    free(reg);
    free(words);
    free(items);
    free(cmps);
    reg = NULL, words = NULL, items = NULL, cmps = NULL, nreg = nwords = nitems = ncmps = 0;
    if (read_tsv(arms_tsv, "name", arm_row, NULL, err, el) != 0)
        return -1;
    snprintf(p, sizeof p, "%s/arm-words.tsv", dir);
    if (read_tsv(p, "kind", word_row, NULL, err, el) != 0)
        return -1;
    snprintf(p, sizeof p, "%s/arm-lists.tsv", dir);
    if (read_tsv(p, "list", list_row, NULL, err, el) != 0)
        return -1;
    snprintf(p, sizeof p, "%s/comparisons.tsv", dir);
    if (read_tsv(p, "group", cmp_row, NULL, err, el) != 0)
        return -1;
    json_decref(fwords);
    snprintf(p, sizeof p, "%s/figure-words.tsv", dir);
    fwords = rd_table(p, err, el);
    return fwords ? 0 : -1;
}

size_t rd_list(const char *list, const char **arms, const char **labels, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < nitems; i++) {
        if (strcmp(items[i].list, list))
            continue;
        if (n < max) {
            arms[n] = items[i].arm;
            if (labels)
                labels[n] = items[i].label;
        }
        n++;
    }
    if (!n) {
        fprintf(stderr, "report: arm-lists.tsv has no list \"%s\"\n", list);
        exit(1);
    }
    if (n < max)
        arms[n] = NULL;
    return n < max ? n : max;
}

const char *rd_word(const char *key)
{
    const char *t = json_string_value(json_object_get(json_object_get(fwords, key), "text"));
    if (!t) {
        fprintf(stderr, "report: figure-words.tsv has no \"%s\"\n", key);
        exit(1);
    }
    return t;
}

const char *rd_arm_rate(const char *arm)
{
    const reg_arm *r = registered(arm);
    return r ? r->rate : "";
}

const char *rd_arm_col(const char *arm, const char *col)
{
    const reg_arm *r = registered(arm);
    for (int i = 0; r && i < narm_cols; i++)
        if (!strcmp(arm_cols[i], col))
            return r->cells[i];
    return "";
}


static const word *word_of(const char *kind, const char *code)
{
    for (size_t i = 0; i < nwords; i++)
        if (!strcmp(words[i].kind, kind) && !strcmp(words[i].code, code))
            return &words[i];
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t rd_arms(json_t *root, rd_arm **out)
{
    json_t *arms = json_object_get(root, "arms");
    size_t extra_n = 0, cap = nreg + json_object_size(arms) + 1;
    rd_arm *a = calloc(cap, sizeof *a);
    const char **others = calloc(json_object_size(arms) + 1, sizeof *others);
    if (!a || !others) {
        fprintf(stderr, "report: out of memory\n");
        exit(1);
    }
    size_t n = 0;
    for (size_t i = 0; i < nreg; i++) {
        snprintf(a[n].name, sizeof a[n].name, "%s", reg[i].name);
        a[n].measured = rd_measured(root, reg[i].name);
        n++;
    }
    const char *key;
    json_t *v;
    json_object_foreach(arms, key, v)
    {
        if (!registered(key))
            others[extra_n++] = key;
    }
    qsort(others, extra_n, sizeof *others, cmp_str);
    for (size_t i = 0; i < extra_n; i++) {
        snprintf(a[n].name, sizeof a[n].name, "%s", others[i]);
        a[n].measured = 1;
        n++;
    }
    free(others);
    *out = a;
    return n;
}

void rd_arms_free(rd_arm *a)
{
    free(a);
}

const char *rd_arm_fault(const char *arm)
{
    const reg_arm *r = registered(arm);
    return r ? r->fault : "none";
}

void rd_arm_words(const char *arm, char *out, size_t n)
{
    const word *whole = word_of("arm", arm);
    const reg_arm *r = registered(arm);
    if (whole) {
        snprintf(out, n, "%s", whole->words);
        return;
    }
    if (!r) {
        snprintf(out, n, "%s: not in the registered arms", arm);
        return;
    }
    const word *w = word_of("wait", r->wait), *t = word_of("rate", r->rate), *p = word_of("policy", r->policy);
    const word *f = strcmp(r->fault, "none") ? word_of("fault", r->fault) : NULL;
    /* a rate without its own words is its number of requests a second (the map's confirmation loads) */
    char rate[64];
    int numeric = r->rate[0] && strspn(r->rate, "0123456789") == strlen(r->rate);
    snprintf(rate, sizeof rate, t ? "%s" : numeric ? "%s/s" : "rate %s ?", t ? t->words : r->rate);
    char pol[512];
    snprintf(pol, sizeof pol, "%s, %s, %s", w ? w->words : "wait ?", rate, p ? p->words : "policy ?");
    if (strcmp(r->fault, "none"))
        snprintf(out, n, "%s; %s", pol, f ? f->words : r->fault);
    else
        snprintf(out, n, "%s", pol);
}

int rd_arm_family(const char *arm)
{
    const word *whole = word_of("arm", arm);
    const reg_arm *r = registered(arm);
    const word *p = r ? word_of("policy", r->policy) : NULL;
    if (whole && whole->family >= 0)
        return whole->family;
    return p && p->family >= 0 ? p->family : 7;
}

json_t *rd_design(json_t *root)
{
    json_t *d = json_object(), *list = json_array();
    rd_arm *arms;
    size_t na = rd_arms(root, &arms);
    for (size_t i = 0; i < na; i++) {
        char w[256];
        rd_arm_words(arms[i].name, w, sizeof w);
        const reg_arm *r = registered(arms[i].name);
        json_array_append_new(list, json_pack("{s:s, s:s, s:b, s:s, s:s, s:s, s:s, s:i}", "name", arms[i].name,
                                              "words", w, "measured", arms[i].measured, "wait", r ? r->wait : "",
                                              "rate", r ? r->rate : "", "policy", r ? r->policy : "", "fault",
                                              rd_arm_fault(arms[i].name), "family", rd_arm_family(arms[i].name)));
    }
    rd_arms_free(arms);
    json_object_set_new(d, "arms", list);
    /* the lists of arm-lists.tsv: {"NAME": [{"name": ARM, "label": ...}]} */
    json_t *lists = json_object();
    for (size_t i = 0; i < nitems; i++) {
        json_t *l = json_object_get(lists, items[i].list);
        if (!l) {
            l = json_array();
            json_object_set_new(lists, items[i].list, l);
        }
        json_array_append_new(l, json_pack("{s:s, s:s}", "name", items[i].arm, "label", items[i].label));
    }
    json_object_set_new(d, "lists", lists);
    /* the comparisons of each group the study has a verdict with rounds on:
     * {"GROUP": [{"name": its index in verdicts, "a", "b", "figure"}]} */
    json_t *groups = json_object(), *vs = json_object_get(root, "verdicts");
    for (size_t i = 0; i < ncmps; i++) {
        char b[64], fig[96];
        const char *tab = strchr(cmps[i].label, '\t');
        snprintf(b, sizeof b, "%.*s", (int)(tab - cmps[i].label), cmps[i].label);
        snprintf(fig, sizeof fig, "%s", tab + 1);
        json_t *g = json_object_get(groups, cmps[i].list);
        if (!g) {
            g = json_array();
            json_object_set_new(groups, cmps[i].list, g);
        }
        for (size_t k = 0; k < json_array_size(vs); k++) {
            json_t *v = json_array_get(vs, k);
            const char *va = json_string_value(json_object_get(v, "a"));
            const char *vb = json_string_value(json_object_get(v, "b"));
            const char *vf = json_string_value(json_object_get(v, "figure"));
            if (!va || !vb || !vf || strcmp(va, cmps[i].arm) || strcmp(vb, b) || strcmp(vf, fig))
                continue;
            if (json_array_size(json_object_get(v, "rounds"))) {
                char idx[32];
                snprintf(idx, sizeof idx, "%zu", k);
                json_array_append_new(g, json_pack("{s:s, s:s, s:s, s:s}", "name", idx, "a", va, "b", vb, "figure",
                                                   vf));
            }
            break;
        }
    }
    json_object_set_new(d, "comparisons", groups);
    json_object_set(d, "figure_words", fwords);
    return d;
}

size_t rd_rounds(json_t *root, const char *arm, int *out, size_t max)
{
    json_t *r = rd_at(root, "/arms/%s/rounds", arm);
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(r) && n < max; i++)
        if (json_is_integer(json_array_get(r, i)))
            out[n++] = (int)json_integer_value(json_array_get(r, i));
    return n;
}

json_t *rd_table(const char *path, char *err, size_t el)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, el, "%s: cannot read", path);
        return NULL;
    }
    json_t *t = json_object();
    char line[4096], head[MAXCOLS][64];
    int nh = 0, ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '#' || !line[0])
            continue;
        char *cells[MAXCOLS], *save = NULL;
        int n = 0;
        for (char *c = strtok_r(line, "\t", &save); c && n < MAXCOLS; c = strtok_r(NULL, "\t", &save))
            cells[n++] = c;
        if (!nh) {
            for (int i = 0; i < n; i++)
                snprintf(head[i], sizeof head[i], "%s", cells[i]);
            nh = n;
            continue;
        }
        if (n != nh) {
            snprintf(err, el, "%s:%d: %d columns, the header has %d", path, ln, n, nh);
            fclose(f);
            json_decref(t);
            return NULL;
        }
        json_t *row = json_object();
        for (int i = 1; i < n; i++)
            json_object_set_new(row, head[i], json_string(cells[i]));
        json_object_set_new(t, cells[0], row);
    }
    fclose(f);
    return t;
}

int rd_arm_closed(const char *arm)
{
    const char *r = rd_arm_rate(arm);
    return r && !strcmp(r, "max");
}
