/* The layers (suite layers): docs/layers.tsv says which folder of C code
 * may include which; the Makefile compiles each folder with exactly those
 * include paths.  Here every `#include "..."` of lab/, pipeline/ and tests/
 * is resolved to the folder whose header it names and held against the
 * table: an include that reaches up or sideways, a header no folder has, a
 * path in an include (`"../x.h"`; only a harness of tests/ may include the
 * .c file it tests by its path, from a folder it may include), a folder of
 * C code the table does not name, and a cycle in the table itself each fail.  The same check runs on
 * a planted tree, to show it catches what it should.
 */
#pragma GCC diagnostic ignored "-Wformat-truncation" /* names are short; cut is fine */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

#define MAXF 64
#define MAXH 1024

typedef struct {
    char dir[MAXF][64];
    char may[MAXF][MAXF]; /* may[i][j]: dir i may include dir j */
    int n;
    /* every header: its name and folder */
    char hname[MAXH][64];
    int hdir[MAXH];
    int nh;
} layers;

static int dir_index(const layers *L, const char *d)
{
    for (int i = 0; i < L->n; i++)
        if (!strcmp(L->dir[i], d))
            return i;
    return -1;
}

/* docs/layers.tsv (or a planted one): 0, or -1 with why. */
static int load_layers(const char *path, layers *L, char *why, size_t n)
{
    memset(L, 0, sizeof *L);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, n, "%s: cannot be read", path);
        return -1;
    }
    char line[2048], allow[MAXF][1024];
    int lineno = 0, header = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = 0;
        if (line[0] == '#' || !line[0])
            continue;
        char *tab = strchr(line, '\t');
        if (!tab || strchr(tab + 1, '\t')) {
            snprintf(why, n, "%s:%d: not two tab-separated fields", path, lineno);
            fclose(f);
            return -1;
        }
        *tab = 0;
        if (!header) {
            header = 1;
            if (strcmp(line, "folder") != 0) {
                snprintf(why, n, "%s:%d: the header is not `folder\tmay include`", path, lineno);
                fclose(f);
                return -1;
            }
            continue;
        }
        if (L->n == MAXF || dir_index(L, line) >= 0) {
            snprintf(why, n, "%s:%d: %s named twice, or too many folders", path, lineno, line);
            fclose(f);
            return -1;
        }
        snprintf(L->dir[L->n], sizeof L->dir[0], "%s", line);
        snprintf(allow[L->n], sizeof allow[0], "%s", tab + 1);
        L->n++;
    }
    fclose(f);
    for (int i = 0; i < L->n; i++) {
        L->may[i][i] = 1;
        if (!strcmp(allow[i], "-"))
            continue;
        for (char *save = NULL, *t = strtok_r(allow[i], " ", &save); t; t = strtok_r(NULL, " ", &save)) {
            int j = dir_index(L, t);
            if (j < 0) {
                snprintf(why, n, "%s: %s may include %s, a folder it does not name", path, L->dir[i], t);
                return -1;
            }
            L->may[i][j] = 1;
        }
    }
    return 0;
}

/* 1 when the table has a cycle (a folder that may include itself through others). */
static int has_cycle(const layers *L, char *why, size_t n)
{
    int reach[MAXF][MAXF];
    for (int i = 0; i < L->n; i++)
        for (int j = 0; j < L->n; j++)
            reach[i][j] = i != j && L->may[i][j];
    for (int k = 0; k < L->n; k++)
        for (int i = 0; i < L->n; i++)
            for (int j = 0; j < L->n; j++)
                if (reach[i][k] && reach[k][j])
                    reach[i][j] = 1;
    for (int i = 0; i < L->n; i++)
        if (reach[i][i]) {
            snprintf(why, n, "%s may include itself through other folders", L->dir[i]);
            return 1;
        }
    return 0;
}

/* ------------------------------------------------------------ the walk */

static layers *W;
static const char *W_root;
static char W_files[4096][256];
static int W_nfiles, W_overflow; /* W_overflow: a file or header left out (the arrays are full) */

static int skip(const char *rel)
{
    return strstr(rel, "/corpus/") != NULL || strstr(rel, "/dict/") != NULL;
}

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type != FTW_F)
        return 0;
    const char *rel = path + strlen(W_root) + 1;
    size_t len = strlen(rel);
    int is_c = len > 2 && rel[len - 2] == '.' && (rel[len - 1] == 'c' || rel[len - 1] == 'h');
    if (!is_c || skip(rel))
        return 0;
    if (W_nfiles == 4096 || (rel[len - 1] == 'h' && W->nh == MAXH)) {
        W_overflow = 1;
        return 0;
    }
    snprintf(W_files[W_nfiles++], sizeof W_files[0], "%s", rel);
    if (rel[len - 1] == 'h') {
        const char *base = strrchr(rel, '/');
        char d[256];
        snprintf(d, sizeof d, "%.*s", (int)(base - rel), rel);
        snprintf(W->hname[W->nh], sizeof W->hname[0], "%s", base + 1);
        W->hdir[W->nh++] = dir_index(W, d);
    }
    return 0;
}

/* Every breach under root (lab/, pipeline/, tests/), one line each, into
 * out; the number of breaches. */
static int check_tree(const char *root, layers *L, char *out, size_t outlen)
{
    W = L;
    W_root = root;
    W_nfiles = 0;
    W_overflow = 0;
    L->nh = 0;
    const char *tops[] = {"lab", "pipeline", "tests"};
    char p[512];
    for (int t = 0; t < 3; t++) {
        snprintf(p, sizeof p, "%s/%s", root, tops[t]);
        struct stat st;
        if (stat(p, &st) == 0)
            nftw(p, collect, 16, FTW_PHYS);
    }
    int bad = 0;
    size_t o = 0;
    out[0] = 0;
#define SAY(...)                                                             \
    do {                                                                     \
        bad++;                                                               \
        if (o < outlen)                                                      \
            o += (size_t)snprintf(out + o, outlen - o, __VA_ARGS__);         \
    } while (0)
    for (int i = 0; i < W_nfiles; i++) {
        const char *rel = W_files[i], *slash = strrchr(rel, '/');
        char d[256];
        snprintf(d, sizeof d, "%.*s", (int)(slash - rel), rel);
        int me = dir_index(L, d);
        if (me < 0) {
            SAY("%s: its folder %s is not in the layers table\n", rel, d);
            continue;
        }
        snprintf(p, sizeof p, "%s/%s", root, rel);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        char line[1024];
        for (int ln = 1; fgets(line, sizeof line, f); ln++) {
            const char *c = line;
            while (*c == ' ' || *c == '\t')
                c++;
            if (*c++ != '#')
                continue;
            while (*c == ' ' || *c == '\t')
                c++;
            if (strncmp(c, "include", 7) != 0)
                continue;
            c += 7;
            while (*c == ' ' || *c == '\t')
                c++;
            if (*c != '"')
                continue; /* <system> headers */
            char name[256];
            size_t k = strcspn(c + 1, "\"");
            snprintf(name, sizeof name, "%.*s", (int)k, c + 1);
            if (strchr(name, '/') && !strncmp(rel, "tests/", 6) && strlen(name) > 2 &&
                !strcmp(name + strlen(name) - 2, ".c")) {
                /* a harness of tests/ including the very unit it tests, by its path */
                char full[600], *q;
                snprintf(full, sizeof full, "%s/%s", d, name);
                while ((q = strstr(full, "/../"))) { /* a/b/../c -> a/c */
                    char *s0 = q;
                    while (s0 > full && s0[-1] != '/')
                        s0--;
                    memmove(s0, q + 4, strlen(q + 4) + 1);
                }
                *strrchr(full, '/') = 0;
                int j = dir_index(L, full);
                if (j < 0 || !L->may[me][j])
                    SAY("%s:%d: \"%s\": %s may not include %s\n", rel, ln, name, d, full);
                continue;
            }
            if (strchr(name, '/')) {
                SAY("%s:%d: \"%s\": a path in an include (name the header; the layers give the folders)\n", rel,
                    ln, name);
                continue;
            }
            int found = 0, allowed = 0;
            for (int h = 0; h < L->nh; h++)
                if (!strcmp(L->hname[h], name)) {
                    found = 1;
                    allowed |= L->hdir[h] >= 0 && L->may[me][L->hdir[h]];
                }
            if (!found)
                SAY("%s:%d: \"%s\": no folder has this header\n", rel, ln, name);
            else if (!allowed)
                SAY("%s:%d: \"%s\": %s may not include it (docs/layers.tsv)\n", rel, ln, name, d);
        }
        fclose(f);
    }
    return bad;
}

Test(layers, every_include_keeps_to_the_table)
{
    static layers L;
    char why[512], out[8192];
    cr_assert_eq(load_layers("docs/layers.tsv", &L, why, sizeof why), 0, "%s", why);
    cr_assert_geq(L.n, 20);
    cr_assert_not(has_cycle(&L, why, sizeof why), "%s", why);
    int bad = check_tree(".", &L, out, sizeof out);
    cr_assert_geq(W_nfiles, 150, "only %d C files found", W_nfiles);
    cr_assert_not(W_overflow, "more files or headers than the check holds (raise MAXH or W_files)");
    cr_assert_eq(bad, 0, "%d includes break the layers:\n%s", bad, out);
}

/* lab knows no stage: no lab folder may include a pipeline or tests folder. */
Test(layers, lab_includes_only_lab)
{
    static layers L;
    char why[512];
    cr_assert_eq(load_layers("docs/layers.tsv", &L, why, sizeof why), 0, "%s", why);
    for (int i = 0; i < L.n; i++)
        for (int j = 0; j < L.n; j++)
            if (!strncmp(L.dir[i], "lab/", 4) && L.may[i][j])
                cr_expect(!strncmp(L.dir[j], "lab/", 4), "%s may include %s", L.dir[i], L.dir[j]);
}

/* Every folder of the table is drawn in docs/DESIGN.md's section 2. */
Test(layers, design_names_every_folder)
{
    static layers L;
    char why[512];
    cr_assert_eq(load_layers("docs/layers.tsv", &L, why, sizeof why), 0, "%s", why);
    size_t len;
    char err[UT_ERRLEN];
    char *d = NULL;
    cr_assert_eq(ut_read_file("docs/DESIGN.md", &d, &len, err, sizeof err), 0, "%s", err);
    for (int i = 0; i < L.n; i++) {
        char name[80];
        snprintf(name, sizeof name, "`%s/`", L.dir[i]);
        cr_expect(strstr(d, name), "docs/DESIGN.md does not name %s", name);
    }
    free(d);
}

/* A planted tree: lab/core reaching up into pipeline/common, sideways into
 * lab/store, by path, and to a header nobody has; and a table with a cycle. */
Test(layers, the_check_catches_planted_breaches)
{
    char root[] = "/tmp/layersXXXXXX", p[512], err[UT_ERRLEN];
    cr_assert_not_null(mkdtemp(root));
    const char *files[][2] = {
        {"docs/layers.tsv", "folder\tmay include\nlab/base\t-\nlab/core\tlab/base\nlab/store\tlab/base lab/core\n"
                            "pipeline/common\tlab/base\n"},
        {"lab/base/util.h", "\n"},
        {"lab/core/arms.h", "#include \"util.h\"\n"},
        {"lab/store/storetab.h", "\n"},
        {"pipeline/common/prov.h", "#include \"util.h\"\n"},
        {"lab/core/arms.c", "#include \"arms.h\"\n#include \"prov.h\"\n  #  include \"storetab.h\"\n"
                            "#include \"../base/util.h\"\n#include \"nowhere.h\"\n#include <stdio.h>\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", root, files[i][0]);
        char *slash = strrchr(p, '/');
        *slash = 0;
        cr_assert_eq(ut_mkdir_p(p, err, sizeof err), 0, "%s", err);
        *slash = '/';
        cr_assert_eq(ut_write_file(p, files[i][1], strlen(files[i][1]), err, sizeof err), 0, "%s", err);
    }
    static layers L;
    char why[512], out[4096];
    snprintf(p, sizeof p, "%s/docs/layers.tsv", root);
    cr_assert_eq(load_layers(p, &L, why, sizeof why), 0, "%s", why);
    cr_assert_not(has_cycle(&L, why, sizeof why));
    int bad = check_tree(root, &L, out, sizeof out);
    cr_expect_eq(bad, 4, "%s", out);
    cr_expect(strstr(out, "lab/core/arms.c:2: \"prov.h\": lab/core may not include it"), "%s", out);
    cr_expect(strstr(out, "lab/core/arms.c:3: \"storetab.h\": lab/core may not include it"), "%s", out);
    cr_expect(strstr(out, "lab/core/arms.c:4: \"../base/util.h\": a path in an include"), "%s", out);
    cr_expect(strstr(out, "lab/core/arms.c:5: \"nowhere.h\": no folder has this header"), "%s", out);
    /* a folder of C code the table does not name */
    snprintf(p, sizeof p, "%s/lab/extra", root);
    cr_assert_eq(ut_mkdir_p(p, err, sizeof err), 0, "%s", err);
    snprintf(p, sizeof p, "%s/lab/extra/x.c", root);
    cr_assert_eq(ut_write_file(p, "\n", 1, err, sizeof err), 0, "%s", err);
    check_tree(root, &L, out, sizeof out);
    cr_expect(strstr(out, "lab/extra/x.c: its folder lab/extra is not in the layers table"), "%s", out);
    /* a cycle: core may include store, store core */
    const char *cyc = "folder\tmay include\nlab/core\tlab/store\nlab/store\tlab/core\n";
    snprintf(p, sizeof p, "%s/docs/layers.tsv", root);
    cr_assert_eq(ut_write_file(p, cyc, strlen(cyc), err, sizeof err), 0, "%s", err);
    cr_assert_eq(load_layers(p, &L, why, sizeof why), 0, "%s", why);
    cr_expect(has_cycle(&L, why, sizeof why));
    cr_expect(strstr(why, "may include itself"), "%s", why);
    cr_assert_eq(ut_rm_tree(root), 0);
}

/* The build holds the same line: a planted file of lab/core that includes
 * pipeline's prov.h does not compile with lab/core's include paths (the
 * Makefile's, printed by `make -s print-incs DIR=lab/core`). */
Test(layers, the_build_refuses_a_planted_include)
{
    FILE *p = popen("make -s --no-print-directory print-incs DIR=lab/core", "r");
    cr_assert_not_null(p);
    char incs[1024] = "";
    cr_assert_not_null(fgets(incs, sizeof incs, p));
    cr_assert_eq(pclose(p), 0);
    incs[strcspn(incs, "\n")] = 0;
    cr_assert(strstr(incs, "-Ilab/core") && strstr(incs, "-Ilab/base"), "%s", incs);
    cr_assert_null(strstr(incs, "pipeline"), "%s", incs);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "printf '#include \"arms.h\"\\n' | gcc -std=c11 -D_GNU_SOURCE %s -fsyntax-only -x c - 2>/dev/null", incs);
    cr_assert_eq(system(cmd), 0, "lab/core's own header does not compile with its paths: %s", cmd);
    snprintf(cmd, sizeof cmd,
             "printf '#include \"prov.h\"\\n' | gcc -std=c11 -D_GNU_SOURCE %s -fsyntax-only -x c - 2>/dev/null", incs);
    cr_assert_neq(system(cmd), 0, "a lab/core file including pipeline's prov.h compiled: %s", cmd);
}
