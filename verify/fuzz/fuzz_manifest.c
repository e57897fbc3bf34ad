/* fuzz_manifest: the fingerprint manifest's reader (manifest.c).  The input
 * is provenance/manifest-measure.tsv, then (after a "\n====\n" line, when
 * there is one) provenance/manifest-ap.tsv, in a study root that also
 * holds a raw file and two reference files, so that a manifest line can
 * name a real file, a folder, a missing one or the manifest itself. */
#include "mism.h"
#include "fuzzhelp.h"
#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int made;
    if (!made) {
        fz_write("results/raw/H1-r1/tester.tsv.gz", "abc", 3);
        fz_write("results/reference/scores.tsv", "customer\tcutoff\n", 16);
        fz_write("results/reference/ap_scores.tsv.gz", "", 0);
        made = 1;
    }
    fz_mism();
    const uint8_t *part[2];
    size_t len[2];
    size_t np = fz_split(data, size, part, len, 2);
    fz_write("provenance/manifest-measure.tsv", part[0], len[0]);
    char ap[1024];
    snprintf(ap, sizeof ap, "%s/provenance/manifest-ap.tsv", fz_dir());
    if (np > 1)
        fz_write("provenance/manifest-ap.tsv", part[1], len[1]);
    else
        unlink(ap);
    long nfiles = -1;
    char err[512] = "";
    int rc = mf_check(fz_dir(), &nfiles, err, sizeof err);
    if (rc != 0 && rc != 2)
        abort();
    if (rc == 2 && !err[0])
        abort();
    if (nfiles < 0)
        abort();
    return 0;
}
