/* The layers of verify/src (verify/README.md, "The source by folders"):
 * src/layers.tsv names each folder of src/ and the folders its files may
 * include; the Makefile compiles each folder with -I of those alone and
 * names no folder of src/ itself.  Checked here, from the same file:
 *   - the table: a header, one line per folder, every folder it names in
 *     it, closed (a folder may include what the folders it includes may
 *     include: their headers include those) and without a circle;
 *   - the tree: every folder of src/ in the table and every folder of the
 *     table there, no header name twice (includes are bare names);
 *   - every #include "..." of every .c and .h under src/ names a header of
 *     src/ in its own folder or in one its folder may include;
 *   - no circle of includes between modules (x.c and x.h are module x):
 *     one would also be one between files once a .c includes its .h;
 *   - and the checks catch a planted offender, a planted circle and a
 *     table that is not closed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vutil.h"

#define LT_MAX 16   /* folders */
#define LT_FILES 256
#define LT_INC 64   /* includes of one file */

typedef struct {
    int n;
    char name[LT_MAX][32];
    int may[LT_MAX][LT_MAX]; /* may[a][b]: a's files may include b's headers */
} lt_table;

static int lt_find(const lt_table *t, const char *name)
{
    for (int i = 0; i < t->n; i++) {
        if (!strcmp(t->name[i], name))
            return i;
    }
    return -1;
}

/* layers.tsv's text into t; 0, or -1 with a message */
static int lt_parse(char *text, lt_table *t, char *msg, size_t msglen)
{
    memset(t, 0, sizeof *t);
    char *mays[LT_MAX];
    int header = 0;
    long line = 0;
    for (char *p = text, *e; p && *p; p = e ? e + 1 : NULL) {
        line++;
        e = strchr(p, '\n');
        if (e)
            *e = 0;
        if (*p == '#')
            continue;
        char *f1 = p, *f2 = strchr(f1, '\t'), *f3 = f2 ? strchr(f2 + 1, '\t') : NULL;
        if (!f2 || !f3 || strchr(f3 + 1, '\t')) {
            snprintf(msg, msglen, "layers.tsv:%ld: not three tab-separated fields", line);
            return -1;
        }
        *f2++ = 0;
        *f3++ = 0;
        if (!header) {
            if (strcmp(f1, "folder") || strcmp(f2, "may_include") || strcmp(f3, "holds")) {
                snprintf(msg, msglen, "layers.tsv:%ld: not the header folder may_include holds", line);
                return -1;
            }
            header = 1;
            continue;
        }
        if (t->n == LT_MAX || strlen(f1) >= sizeof t->name[0] || !*f1 || lt_find(t, f1) >= 0 || !*f3) {
            snprintf(msg, msglen, "layers.tsv:%ld: folder %s repeated, empty, too long or too many, or no holds",
                     line, f1);
            return -1;
        }
        strcpy(t->name[t->n], f1);
        mays[t->n++] = f2;
    }
    if (!header || t->n == 0) {
        snprintf(msg, msglen, "layers.tsv: no header or no folder");
        return -1;
    }
    for (int a = 0; a < t->n; a++) {
        if (!strcmp(mays[a], "-"))
            continue;
        for (char *w = strtok(mays[a], " "); w; w = strtok(NULL, " ")) {
            int b = lt_find(t, w);
            if (b < 0 || b == a) {
                snprintf(msg, msglen, "layers.tsv: %s may include %s, %s", t->name[a], w,
                         b < 0 ? "not a folder of the table" : "itself");
                return -1;
            }
            t->may[a][b] = 1;
        }
    }
    return 0;
}

/* the table closed and without a circle: 0, or -1 with a message */
static int lt_sound(const lt_table *t, char *msg, size_t msglen)
{
    for (int a = 0; a < t->n; a++) {
        for (int b = 0; b < t->n; b++) {
            if (!t->may[a][b])
                continue;
            if (t->may[b][a]) {
                snprintf(msg, msglen, "layers.tsv: %s and %s may include each other", t->name[a], t->name[b]);
                return -1;
            }
            for (int c = 0; c < t->n; c++) {
                if (t->may[b][c] && !t->may[a][c]) {
                    snprintf(msg, msglen, "layers.tsv: %s may include %s, which may include %s, but %s may not",
                             t->name[a], t->name[b], t->name[c], t->name[a]);
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* one file of src/: its folder, name and the headers it includes */
typedef struct {
    int folder;
    char name[64];
    int ninc;
    char inc[LT_INC][64];
    long incline[LT_INC];
} lt_file;

/* the `#include "x"` names of a text (not <x>) */
static void lt_includes(char *text, lt_file *f)
{
    long line = 0;
    for (char *p = text, *e; p && *p; p = e ? e + 1 : NULL) {
        line++;
        e = strchr(p, '\n');
        if (e)
            *e = 0;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '#')
            continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, "include", 7))
            continue;
        p += 7;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '"')
            continue;
        char *q = strchr(p + 1, '"');
        if (!q || f->ninc == LT_INC || (size_t)(q - p - 1) >= sizeof f->inc[0])
            continue;
        snprintf(f->inc[f->ninc], sizeof f->inc[0], "%.*s", (int)(q - p - 1), p + 1);
        f->incline[f->ninc++] = line;
    }
}

/* the file of files that defines header h (NULL when none) */
static const lt_file *lt_header(const lt_file *fs, int n, const char *h)
{
    for (int i = 0; i < n; i++) {
        if (!strcmp(fs[i].name, h))
            return &fs[i];
    }
    return NULL;
}

/* every include of fs against t: the number of offences, the last in msg */
static int lt_offences(const lt_table *t, const lt_file *fs, int n, char *msg, size_t msglen)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < fs[i].ninc; k++) {
            const lt_file *h = lt_header(fs, n, fs[i].inc[k]);
            const char *from = t->name[fs[i].folder];
            if (!h) {
                bad++;
                snprintf(msg, msglen, "%s/%s:%ld includes \"%s\", no header of src/", from, fs[i].name,
                         fs[i].incline[k], fs[i].inc[k]);
            } else if (h->folder != fs[i].folder && !t->may[fs[i].folder][h->folder]) {
                bad++;
                snprintf(msg, msglen, "%s/%s:%ld includes \"%s\" of %s/, which %s/ may not include", from,
                         fs[i].name, fs[i].incline[k], fs[i].inc[k], t->name[h->folder], from);
            }
        }
    }
    return bad;
}

/* modules: x.c and x.h of one folder are module x */
static int lt_module(const lt_file *fs, int n, const lt_file *f, int *mods, int *nmods)
{
    size_t l = strcspn(f->name, ".");
    for (int m = 0; m < *nmods; m++) {
        const lt_file *g = &fs[mods[m]];
        if (g->folder == f->folder && strcspn(g->name, ".") == l && !strncmp(g->name, f->name, l))
            return m;
    }
    (void)n;
    mods[*nmods] = (int)(f - fs);
    return (*nmods)++;
}

/* a circle of includes between modules: 1 and the circle in msg, or 0 */
static int lt_dfs(int m, int nm, const int (*edge)[LT_FILES], int *state, int *stack, int depth,
                  const lt_file *fs, const int *mods, char *msg, size_t msglen)
{
    state[m] = 1;
    stack[depth] = m;
    for (int w = 0; w < nm; w++) {
        if (!edge[m][w])
            continue;
        if (state[w] == 1) {
            size_t o = 0;
            int from = depth;
            while (stack[from] != w)
                from--;
            for (int i = from; i <= depth && o < msglen; i++)
                o += (size_t)snprintf(msg + o, msglen - o, "%.*s -> ", (int)strcspn(fs[mods[stack[i]]].name, "."),
                                      fs[mods[stack[i]]].name);
            if (o < msglen)
                snprintf(msg + o, msglen - o, "%.*s", (int)strcspn(fs[mods[w]].name, "."), fs[mods[w]].name);
            return 1;
        }
        if (state[w] == 0 && lt_dfs(w, nm, edge, state, stack, depth + 1, fs, mods, msg, msglen))
            return 1;
    }
    state[m] = 2;
    return 0;
}

static int lt_circle(const lt_file *fs, int n, char *msg, size_t msglen)
{
    static int mods[LT_FILES], modof[LT_FILES], edge[LT_FILES][LT_FILES], state[LT_FILES], stack[LT_FILES];
    int nm = 0;
    for (int i = 0; i < n; i++)
        modof[i] = lt_module(fs, n, &fs[i], mods, &nm);
    memset(edge, 0, sizeof edge);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < fs[i].ninc; k++) {
            const lt_file *h = lt_header(fs, n, fs[i].inc[k]);
            if (h && modof[h - fs] != modof[i])
                edge[modof[i]][modof[h - fs]] = 1;
        }
    }
    memset(state, 0, sizeof state);
    for (int m = 0; m < nm; m++) {
        if (state[m] == 0 && lt_dfs(m, nm, (const int (*)[LT_FILES])edge, state, stack, 0, fs, mods, msg, msglen))
            return 1;
    }
    return 0;
}

static char *read_text(const char *path)
{
    unsigned char *b;
    size_t len;
    char err[256];
    cr_assert_eq(vu_read_file(path, &b, &len, err, sizeof err), 0, "%s", err);
    return (char *)b;
}

static lt_table TABLE;
static lt_file FILES[LT_FILES];
static int NFILES;

/* layers.tsv, and every .c and .h of src/ and its folders */
static void load_tree(void)
{
    char msg[512] = "";
    char *path = vu_xasprintf("%s/src/layers.tsv", VERIFY_DIR);
    char *text = read_text(path);
    cr_assert_eq(lt_parse(text, &TABLE, msg, sizeof msg), 0, "%s", msg);
    free(text);
    free(path);
    int dot = lt_find(&TABLE, ".");
    cr_assert_geq(dot, 0, "layers.tsv has no line for src/ itself (.)");
    char **names;
    size_t nn;
    char err[256];
    char *src = vu_xasprintf("%s/src", VERIFY_DIR);
    cr_assert_eq(vu_list_dir(src, &names, &nn, err, sizeof err), 0, "%s", err);
    NFILES = 0;
    int seen[LT_MAX] = {0};
    seen[dot] = 1;
    for (size_t i = 0; i <= nn; i++) {
        /* i < nn: an entry of src/; i == nn: src/ itself, its own files */
        char *dir = i < nn ? vu_xasprintf("%s/%s", src, names[i]) : vu_xstrdup(src);
        if (i < nn && !vu_is_dir(dir)) {
            free(dir);
            continue;
        }
        int folder = i < nn ? lt_find(&TABLE, names[i]) : dot;
        cr_assert_geq(folder, 0, "src/%s/ is not in layers.tsv", names[i]);
        seen[folder] = 1;
        char **fn;
        size_t nf;
        cr_assert_eq(vu_list_dir(dir, &fn, &nf, err, sizeof err), 0, "%s", err);
        for (size_t j = 0; j < nf; j++) {
            size_t l = strlen(fn[j]);
            if (l < 3 || fn[j][l - 2] != '.' || (fn[j][l - 1] != 'c' && fn[j][l - 1] != 'h'))
                continue;
            cr_assert_lt(NFILES, LT_FILES);
            cr_assert_lt(l, sizeof FILES[0].name);
            const lt_file *twice = fn[j][l - 1] == 'h' ? lt_header(FILES, NFILES, fn[j]) : NULL;
            cr_assert_null(twice, "header %s in two folders: %s/ and %s/", fn[j],
                           twice ? TABLE.name[twice->folder] : "", TABLE.name[folder]);
            lt_file *f = &FILES[NFILES++];
            memset(f, 0, sizeof *f);
            f->folder = folder;
            strcpy(f->name, fn[j]);
            char *fp = vu_xasprintf("%s/%s", dir, fn[j]);
            char *t = read_text(fp);
            lt_includes(t, f);
            free(t);
            free(fp);
        }
        vu_free_names(fn, nf);
        free(dir);
    }
    vu_free_names(names, nn);
    free(src);
    for (int k = 0; k < TABLE.n; k++)
        cr_assert(seen[k], "layers.tsv names %s, not a folder of src/", TABLE.name[k]);
}

Test(layers, the_table_is_closed_and_without_a_circle)
{
    char msg[512] = "";
    load_tree();
    cr_expect_eq(lt_sound(&TABLE, msg, sizeof msg), 0, "%s", msg);
    cr_expect_geq(TABLE.n, 5, "only %d folders in layers.tsv", TABLE.n);
}

Test(layers, every_include_stays_in_its_layers)
{
    char msg[512] = "";
    load_tree();
    cr_expect_geq(NFILES, 80, "only %d files found under %s/src", NFILES, VERIFY_DIR);
    int includes = 0;
    for (int i = 0; i < NFILES; i++)
        includes += FILES[i].ninc;
    cr_expect_geq(includes, 200, "only %d includes found", includes);
    int bad = lt_offences(&TABLE, FILES, NFILES, msg, sizeof msg);
    cr_expect_eq(bad, 0, "%d includes outside their layers; the last: %s", bad, msg);
}

Test(layers, no_circle_of_includes)
{
    char msg[1024] = "";
    load_tree();
    cr_expect_eq(lt_circle(FILES, NFILES, msg, sizeof msg), 0, "a circle of includes: %s", msg);
}

/* the Makefile takes its include paths from layers.tsv and names no folder
 * of src/ itself (a -Isrc/<folder> of its own would bypass the table) */
Test(layers, the_makefile_reads_the_table)
{
    load_tree();
    char *path = vu_xasprintf("%s/Makefile", VERIFY_DIR);
    char *text = read_text(path);
    cr_expect(strstr(text, "LAYERS  := src/layers.tsv"), "the Makefile does not read src/layers.tsv");
    long line = 0;
    for (char *p = text, *e; p && *p; p = e ? e + 1 : NULL) {
        line++;
        e = strchr(p, '\n');
        if (e)
            *e = 0;
        for (const char *q = strstr(p, "-Isrc"); q; q = strstr(q + 1, "-Isrc"))
            cr_expect(!strncmp(q, "-Isrc/%", 7) || !strncmp(q, "-Isrc/$(", 8),
                      "Makefile:%ld names an include path of its own: %s", line, p);
    }
    free(text);
    free(path);
}

/* README.md's table says what layers.tsv says: one row per folder, its
 * last cell the folders it may include */
Test(layers, the_readme_states_the_same_table)
{
    load_tree();
    char *path = vu_xasprintf("%s/README.md", VERIFY_DIR);
    char *text = read_text(path);
    char *tpath = vu_xasprintf("%s/src/layers.tsv", VERIFY_DIR);
    char *tsv = read_text(tpath);
    for (char *p = tsv, *e; p && *p; p = e ? e + 1 : NULL) {
        e = strchr(p, '\n');
        if (e)
            *e = 0;
        char *f2 = strchr(p, '\t');
        if (*p == '#' || !f2 || !strncmp(p, "folder\t", 7))
            continue;
        *f2++ = 0;
        *strchr(f2, '\t') = 0;
        char *row = !strcmp(p, ".") ? vu_xstrdup("| `src/main.c` |") : vu_xasprintf("| `src/%s/` |", p);
        char *r = strstr(text, row);
        cr_expect(r, "README.md has no row %s", row);
        if (r) {
            char *end = strchr(r, '\n');
            char *want = vu_xasprintf("| %s |", f2);
            size_t wl = strlen(want);
            cr_expect(end && (size_t)(end - r) > wl && !strncmp(end - wl, want, wl),
                      "README.md's row %s does not end in %s", row, want);
            free(want);
        }
        free(row);
    }
    free(tsv);
    free(tpath);
    free(text);
    free(path);
}

/* the checks catch what they are for */
Test(layers, the_check_itself_catches_offenders)
{
    char msg[512] = "";
    char tsv[] = "# a comment\nfolder\tmay_include\tholds\nbase\t-\tx\nraw\tbase\tx\nscan\tbase\tx\n"
                 "figures\tbase raw\tx\n";
    lt_table t;
    cr_assert_eq(lt_parse(tsv, &t, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(lt_sound(&t, msg, sizeof msg), 0, "%s", msg);
    int base = lt_find(&t, "base"), raw = lt_find(&t, "raw"), scan = lt_find(&t, "scan"),
        fig = lt_find(&t, "figures");
    lt_file fs[5];
    memset(fs, 0, sizeof fs);
    fs[0] = (lt_file){.folder = base, .name = "vutil.h"};
    fs[1] = (lt_file){.folder = raw, .name = "rawread.h"};
    fs[2] = (lt_file){.folder = fig, .name = "study.h"};
    fs[3] = (lt_file){.folder = scan, .name = "scan.c"};
    char good[] = "#include <stdio.h>\n#include \"vutil.h\"\n";
    lt_includes(good, &fs[1]);
    char down[] = "  #  include \"rawread.h\"\n#include \"vutil.h\"\n";
    lt_includes(down, &fs[2]);
    cr_expect_eq(lt_offences(&t, fs, 4, msg, sizeof msg), 0, "%s", msg);
    /* up: raw includes a figure's header */
    char up[] = "#include \"study.h\"\n";
    lt_includes(up, &fs[1]);
    cr_expect_eq(lt_offences(&t, fs, 4, msg, sizeof msg), 1);
    cr_expect(strstr(msg, "rawread.h:1 includes \"study.h\" of figures/"), "%s", msg);
    fs[1].ninc = 1;
    /* sideways: the scanner includes a raw header */
    char side[] = "#include \"rawread.h\"\n";
    lt_includes(side, &fs[3]);
    cr_expect_eq(lt_offences(&t, fs, 4, msg, sizeof msg), 1);
    cr_expect(strstr(msg, "scan/scan.c:1"), "%s", msg);
    /* a header that is none of src/ */
    fs[3].ninc = 0;
    char none[] = "#include \"nowhere.h\"\n";
    lt_includes(none, &fs[3]);
    cr_expect_eq(lt_offences(&t, fs, 4, msg, sizeof msg), 1);
    /* a circle: study.c includes rawread.h, which includes study.h */
    cr_expect_eq(lt_circle(fs, 3, msg, sizeof msg), 0, "%s", msg);
    fs[4] = (lt_file){.folder = fig, .name = "study.c"};
    char sc[] = "#include \"study.h\"\n#include \"rawread.h\"\n";
    lt_includes(sc, &fs[4]);
    lt_includes(up, &fs[1]);
    cr_expect_eq(lt_circle(fs, 5, msg, sizeof msg), 1);
    cr_expect(strstr(msg, "study -> rawread -> study") || strstr(msg, "rawread -> study -> rawread"), "%s", msg);
    /* tables that are not sound */
    char open1[] = "folder\tmay_include\tholds\nbase\t-\tx\nraw\tbase\tx\nfigures\traw\tx\n";
    cr_assert_eq(lt_parse(open1, &t, msg, sizeof msg), 0, "%s", msg);
    cr_expect_eq(lt_sound(&t, msg, sizeof msg), -1);
    cr_expect(strstr(msg, "figures may include raw, which may include base"), "%s", msg);
    char circ[] = "folder\tmay_include\tholds\nraw\tfigures\tx\nfigures\traw\tx\n";
    cr_assert_eq(lt_parse(circ, &t, msg, sizeof msg), 0, "%s", msg);
    cr_expect_eq(lt_sound(&t, msg, sizeof msg), -1);
    char unknown[] = "folder\tmay_include\tholds\nraw\tbase\tx\n";
    cr_expect_eq(lt_parse(unknown, &t, msg, sizeof msg), -1);
    char self[] = "folder\tmay_include\tholds\nraw\traw\tx\n";
    cr_expect_eq(lt_parse(self, &t, msg, sizeof msg), -1);
    char noheader[] = "raw\t-\tx\n";
    cr_expect_eq(lt_parse(noheader, &t, msg, sizeof msg), -1);
}
