/* fuzz_apfiles: the AP reference files' reader (apfiles.c, APCOST.md 1.10).
 * The input is cut at "\n====\n" lines into ap_scores.tsv.gz,
 * ap_prev_scores.tsv.gz and ap_resamples.tsv.gz, and optionally
 * manifest-ap.tsv; a part that starts with gzip's magic is written as it
 * is, any other is gzipped by the harness.  Without a fourth part the
 * harness writes the manifest right (sizes and sha256), so the readers
 * past it are reached.  The table they are checked against is a fixed
 * scores.tsv of three rows (two cutoffs). */
#include "mism.h"
#include "fuzzhelp.h"
#include "apfiles.h"
#include "vutil.h"

static const char SCORES[] = "customer\tcutoff\tlabel\tscore\tlast_known\n"
                             "c1\t2020-01-31\t1\t0.5\t0.25\n"
                             "c2\t2020-01-31\t0\t0.125\t0.75\n"
                             "c1\t2020-02-29\t0\t0.375\t0.5\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ap_table t;
    static int made;
    char err[512];
    if (!made) {
        const char *p = fz_write("results/reference/scores.tsv", SCORES, sizeof SCORES - 1);
        if (ap_table_load(p, &t, err, sizeof err)) {
            fprintf(stderr, "fuzz_apfiles: %s\n", err);
            abort();
        }
        fz_write(APF_JSON, "{}\n", 3);
        made = 1;
    }
    fz_mism();
    const uint8_t *part[4];
    size_t len[4];
    size_t np = fz_split(data, size, part, len, 4);
    static const char *const names[3] = {APF_SCORES, APF_PREV, APF_RESAMPLES};
    vu_buf man = {0};
    vu_buf_puts(&man, "path\tsize\tsha256\n");
    for (size_t k = 0; k < 3; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", fz_dir(), names[k]);
        if (k >= np) {
            unlink(path);
            continue;
        }
        int raw = len[k] >= 2 && part[k][0] == 0x1f && part[k][1] == 0x8b;
        size_t n = len[k];
        unsigned char *gz = raw ? NULL : fz_gzip(part[k], len[k], &n);
        const unsigned char *b = raw ? part[k] : gz;
        fz_write(names[k], b, n);
        char sha[65];
        vu_sha256_hex(b, n, sha);
        vu_buf_printf(&man, "%s\t%zu\t%s\n", names[k], n, sha);
        free(gz);
    }
    char sha[65];
    vu_sha256_hex("{}\n", 3, sha);
    vu_buf_printf(&man, "%s\t3\t%s\n", APF_JSON, sha);
    if (np == 4)
        fz_write(APF_MANIFEST, part[3], len[3]);
    else
        fz_write(APF_MANIFEST, man.p, man.len);
    vu_buf_free(&man);

    apf_data d;
    apf_read(fz_dir(), &t, &d);
    if (d.scores_ok) {
        if (d.S == 0)
            abort();
        for (size_t s = 0; s < d.S; s++)
            for (size_t k = 0; k < t.n; k++)
                (void)(d.live[s][k] + d.lastk[s][k]);
    }
    if (d.prev_ok)
        for (size_t i = 0; i < d.nprev; i++)
            if (d.prev_row[i] >= t.n)
                abort();
    if (d.res_ok)
        for (size_t i = 0; i < d.nres; i++)
            if (d.res[i].kind < 0 || d.res[i].kind > 2 || !d.res[i].arm)
                abort();
    apf_free(&d);
    return 0;
}
