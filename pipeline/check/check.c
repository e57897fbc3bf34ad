/* check: re-hash every file named in the fingerprint manifests and compare.
 *
 *   check [--prov DIR] [--root OUT]
 *
 * Reads every DIR/manifest-*.tsv (path, size, sha256).  The paths of
 * manifest-prepare.tsv are relative to the repository (the current folder);
 * those of every other manifest (measure's) relative to OUT, the folder that
 * holds results/ and provenance/.  Each file whose size
 * or sha256 differs, or that is missing, is named on stderr; the exit code
 * is 1 when any is, 2 when there is no manifest or one is malformed.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "paths.h"
#include "util.h"

static int check_manifest(const char *path, const char *base, size_t *nfiles, size_t *nbad)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        ut_err("%s: cannot open", path);
        return -1;
    }
    char line[8192];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (lineno == 1) {
            if (strcmp(line, "path\tsize\tsha256") != 0) {
                ut_err("%s:1: header is not \"path<TAB>size<TAB>sha256\"", path);
                rc = -1;
                break;
            }
            continue;
        }
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t1 || !t2 || strlen(t2 + 1) != 64) {
            ut_err("%s:%d: malformed line", path, lineno);
            rc = -1;
            break;
        }
        *t1 = *t2 = 0;
        int64_t want;
        char sha[65], err[UT_ERRLEN] = "";
        if (opt_i64(t1 + 1, 0, INT64_MAX, &want, err, sizeof err) != 0) {
            ut_err("%s:%d: field size \"%s\": %s", path, lineno, t1 + 1, err);
            rc = -1;
            break;
        }
        uint64_t size = 0;
        (*nfiles)++;
        char full[8400];
        if (base && strcmp(base, ".") != 0)
            snprintf(full, sizeof full, "%s/%s", base, line);
        else
            snprintf(full, sizeof full, "%s", line);
        if (ut_sha256_file(full, sha, &size, err, sizeof err) != 0) {
            ut_err("CHANGED %s: %s", line, err);
            (*nbad)++;
        } else if (size != (uint64_t)want || strcmp(sha, t2 + 1) != 0) {
            ut_err("CHANGED %s: size %" PRIu64 " (manifest %" PRId64 "), sha256 %.12s... (manifest %.12s...)", line,
                   size, want, sha, t2 + 1);
            (*nbad)++;
        }
    }
    fclose(f);
    return rc;
}

int main(int argc, char **argv)
{
    ut_set_prog("check");
    const char *dir = PATH_PROV_DIR, *root = ".";
    const opt_spec spec[] = {{"--prov", OPT_STR, &dir, 0, 0, "DIR", "the manifests (" PATH_PROV_DIR ")"},
                             {"--root", OPT_STR, &root, 0, 0, "OUT", "the folder measure's paths are under (.)"},
                             {0}};
    int orc = opt_parse(argc, argv, spec, "check: re-hash every file of every manifest", NULL);
    if (orc != OPT_OK)
        return orc == OPT_HELP ? 0 : 2;
    DIR *d = opendir(dir);
    if (!d) {
        ut_err("%s: no provenance folder: run `make prepare` first", dir);
        return 2;
    }
    struct dirent *e;
    char *names[64];
    int nm = 0;
    while ((e = readdir(d)) && nm < 64) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "manifest-", 9) == 0 && l > 4 && strcmp(e->d_name + l - 4, ".tsv") == 0)
            names[nm++] = strdup(e->d_name);
    }
    closedir(d);
    if (nm == 0) {
        ut_err("%s: no manifest-*.tsv: run `make prepare` first", dir);
        return 2;
    }
    size_t nfiles = 0, nbad = 0;
    int bad = 0;
    for (int i = 0; i < nm; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        const char *base = strcmp(names[i], "manifest-prepare.tsv") == 0 ? "." : root;
        if (check_manifest(path, base, &nfiles, &nbad) != 0)
            bad = 1;
        free(names[i]);
    }
    if (bad)
        return 2;
    if (nbad) {
        ut_err("%zu of %zu files differ from the manifest", nbad, nfiles);
        return 1;
    }
    printf("check: %zu files match the manifest (%d manifest%s in %s)\n", nfiles, nm, nm == 1 ? "" : "s",
           dir);
    return 0;
}
