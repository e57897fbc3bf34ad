/* verify/ must build alone: no file here includes a path into the lab's
 * folders, and the Makefile names none of them. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vutil.h"

/* built from pieces so that this file does not match its own search */
static const char *forbidden_dir(const char *s)
{
    static char lab[8], pipe[16];
    snprintf(lab, sizeof lab, "%s%s", "la", "b/");
    snprintf(pipe, sizeof pipe, "%s%s", "pipe", "line/");
    if (strstr(s, lab))
        return "lab";
    if (strstr(s, pipe))
        return "pipeline";
    return NULL;
}

static int bad_include_line(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line != '#')
        return 0;
    line++;
    while (*line == ' ' || *line == '\t')
        line++;
    if (strncmp(line, "include", 7))
        return 0;
    return forbidden_dir(line) != NULL || strstr(line, "..") != NULL;
}

static void check_file(const char *path, const char *name, int *bad, char *msg, size_t msglen)
{
    unsigned char *b;
    size_t len;
    char err[256];
    if (vu_read_file(path, &b, &len, err, sizeof err))
        return;
    int is_make = !strcmp(name, "Makefile");
    char *p = (char *)b;
    long line = 0;
    while (p && *p) {
        line++;
        char *e = strchr(p, '\n');
        if (e)
            *e = 0;
        if (bad_include_line(p)) {
            (*bad)++;
            snprintf(msg, msglen, "%s:%ld includes from outside verify/: %s", path, line, p);
        }
        if (is_make) {
            const char *q = p;
            while (*q == ' ' || *q == '\t')
                q++;
            char dd[16];
            snprintf(dd, sizeof dd, "%s%s", "..", "/");
            if (*q != '#' && (forbidden_dir(p) || strstr(p, dd))) {
                (*bad)++;
                snprintf(msg, msglen, "%s:%ld names a folder outside verify/: %s", path, line, p);
            }
        }
        p = e ? e + 1 : NULL;
    }
    free(b);
}

static void walk(const char *dir, int *bad, int *files, char *msg, size_t msglen)
{
    char **names;
    size_t n;
    char err[256];
    if (vu_list_dir(dir, &names, &n, err, sizeof err))
        return;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(names[i], "build") || names[i][0] == '.')
            continue;
        char *p = vu_xasprintf("%s/%s", dir, names[i]);
        if (vu_is_dir(p)) {
            walk(p, bad, files, msg, msglen);
        } else {
            (*files)++;
            check_file(p, names[i], bad, msg, msglen);
        }
        free(p);
    }
    vu_free_names(names, n);
}

Test(independence, nothing_from_lab_or_pipeline)
{
    int bad = 0, files = 0;
    char msg[1024] = "";
    walk(VERIFY_DIR, &bad, &files, msg, sizeof msg);
    cr_expect_geq(files, 20, "only %d files found under %s", files, VERIFY_DIR);
    cr_expect_eq(bad, 0, "%d offending lines; the last: %s", bad, msg);
}

Test(independence, the_check_itself_catches_offenders)
{
    char line[64];
    snprintf(line, sizeof line, "#include \"../%s%s\"", "la", "b/rawlog.h");
    cr_expect(bad_include_line(line));
    snprintf(line, sizeof line, "  #  include <%s%s>", "pipe", "line/collect.h");
    cr_expect(bad_include_line(line));
    cr_expect(!bad_include_line("#include \"vjson.h\""));
    cr_expect(!bad_include_line("#include <zlib.h>"));
}

/* the documents verify/ is written from: all inside the repository */
static const char *const SOURCES[] = {"lab/RAWFORMAT.md", "pipeline/RESULTS.md", "pipeline/APCOST.md",
                                      "data/README.md", "docs/DESIGN.md", NULL};

/* the first `...` name of README.md ending in ".md" that is not one of
 * SOURCES (NULL when none), or a "../" anywhere: an auditor with only the
 * repository must be able to open every document the README cites */
static const char *outside_citation(const char *text, char *buf, size_t buflen)
{
    char up[8];
    snprintf(up, sizeof up, "%s%s", "..", "/");
    const char *u = strstr(text, up);
    if (u) {
        snprintf(buf, buflen, "%.60s", u);
        return buf;
    }
    for (const char *p = strchr(text, '`'); p; p = strchr(p, '`')) {
        const char *e = strchr(p + 1, '`');
        if (!e)
            break;
        size_t l = (size_t)(e - p - 1);
        if (l > 3 && !memcmp(e - 3, ".md", 3)) {
            int known = 0;
            for (int i = 0; SOURCES[i] && !known; i++)
                known = strlen(SOURCES[i]) == l && !memcmp(p + 1, SOURCES[i], l);
            if (!known) {
                snprintf(buf, buflen, "%.*s", (int)(l > 60 ? 60 : l), p + 1);
                return buf;
            }
        }
        p = e + 1;
    }
    return NULL;
}

Test(independence, readme_cites_only_documents_in_the_repository)
{
    char *path = vu_xasprintf("%s/README.md", VERIFY_DIR);
    unsigned char *b;
    size_t len;
    char err[256], buf[128];
    cr_assert_eq(vu_read_file(path, &b, &len, err, sizeof err), 0, "%s", err);
    const char *bad = outside_citation((char *)b, buf, sizeof buf);
    cr_expect(!bad, "README.md cites \"%s\", outside the documents verify/ is written from", bad ? bad : "");
    for (int i = 0; SOURCES[i]; i++)
        cr_expect(strstr((char *)b, SOURCES[i]), "README.md does not name %s among its sources", SOURCES[i]);
    free(b);
    free(path);
    /* and the check catches a citation outside */
    char up[64];
    snprintf(up, sizeof up, "see `%s%s/DESIGN.md` section 7", "../sha", "red"); /* in pieces: grep stays clean */
    cr_expect(outside_citation(up, buf, sizeof buf));
    cr_expect(outside_citation("see `notes/DESIGN.md`", buf, sizeof buf));
    cr_expect(!outside_citation("see `docs/DESIGN.md`, \"The verifier\"", buf, sizeof buf));
}
