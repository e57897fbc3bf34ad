/* provmd: `make provenance`, results/provenance.md from provenance/ (the
 * rules: pipeline/RESULTS.md, "results/provenance.md"; the rendering:
 * pipeline/provmd/provmd.h).
 *
 *   provmd --root OUT
 *
 * Reads OUT/provenance/ only; writes OUT/results/provenance.md atomically
 * (a temporary name, then rename).  It writes no stage record of its own:
 * the file is a view of the records, and a record of it would change what
 * it shows.
 *
 * Exit 0 done; 1 a record malformed or a file not written (one message
 * naming the file and the field; nothing written); 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>

#include "opt.h"
#include "paths.h"
#include "provmd.h"
#include "util.h"

static const char ABOUT[] = "provmd: " PATH_PROVENANCE_MD ", the provenance for people (pipeline/RESULTS.md)\n"
                            "usage: provmd --root OUT";

int main(int argc, char **argv)
{
    ut_set_prog("provmd");
    const char *root = NULL;
    const opt_spec spec[] = {
        {"--root", OPT_STR, &root, 0, 0, "OUT", "reads OUT/" PATH_PROV_DIR "; writes OUT/" PATH_PROVENANCE_MD}, {0}};
    int prc = opt_parse(argc, argv, spec, ABOUT, NULL);
    if (prc != OPT_OK)
        return prc == OPT_HELP ? 0 : 2;
    if (!root || !root[0]) {
        ut_err("--root is required (try --help)");
        return 2;
    }
    char prov[4200], dir[4200], path[4200], err[UT_ERRLEN] = "";
    snprintf(prov, sizeof prov, "%s/" PATH_PROV_DIR, root);
    snprintf(dir, sizeof dir, "%s/" PATH_RESULTS_DIR, root);
    snprintf(path, sizeof path, "%s/" PATH_PROVENANCE_MD, root);
    char *md = NULL;
    size_t n = 0;
    if (provmd_render(prov, &md, &n, err, sizeof err) != 0 || ut_mkdir_p(dir, err, sizeof err) != 0 ||
        ut_write_file(path, md, n, err, sizeof err) != 0) {
        ut_err("%s", err);
        free(md);
        return 1;
    }
    free(md);
    printf("provmd: wrote %s (%zu bytes)\n", path, n);
    return 0;
}
