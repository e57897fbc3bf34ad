/* fuzz_rawread: the raw-file reader (rawread.c with rawcols.c's five kinds)
 * and format 4's decoder (rawdec.c).  An input that starts with gzip's
 * magic (1f 8b) is the file itself; anything else is its text, which the
 * harness gzips (so the fuzzer mutates rows, not deflate blocks and
 * checksums).  The file is read as each of the five kinds in turn (the
 * wrong ones stop at line 1), every row to the end or to the first error;
 * then decoded as a tester, a service and a store file of one made-up run
 * (open loop, then closed loop: the kinds it is not stop at line 1);
 * rr_gunzip inflates it too. */
#include "fuzzhelp.h"
#include "rawcols.h"
#include "rawdec.h"
#include "rawread.h"
#include "vjson.h"

/* the input as the tester, service and store file of one run */
static void decode(const unsigned char *in, size_t n, const char *run)
{
    char err[1024];
    vj_node *rj = NULL;
    if (vj_parse(run, strlen(run), "run.json", &rj, err, sizeof err))
        abort();
    static float score[7] = {0.5f, 0.25f, 0.125f, 1, 0, 0.75f, 0.375f};
    ref_data ref;
    memset(&ref, 0, sizeof ref);
    ref.rows = 7;
    ref.score = ref.last_known = score;
    ref.default_score = 0.25f;
    rx_run x;
    rx_init(&x, rj, 1, 4, 1000000000, &ref);
    for (int kind = RX_TESTER; kind <= RX_STORE; kind++) {
        rx_file f;
        rr_row row;
        int r = rx_open(&f, &x, kind, "fuzz.tsv.gz", in, n, err, sizeof err);
        while (!r && rx_next(&f, &row, err, sizeof err) == 1)
            if (kind == RX_TESTER && row.has[T_SCORE] == 2 && row.c[T_KIND] == 'E')
                abort(); /* = needs L K D */
        rx_close(&f);
    }
    rx_free(&x);
    vj_free(rj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const kinds[5] = {"tester", "service", "store", "events", "machine"};
    static const rr_col *const cols[5] = {tester_cols, service_cols, store_cols, events_cols, machine_cols};
    static const int ncol[5] = {TW_NCOL, VW_NCOL, SW_NCOL, E_NCOL, M_NCOL};
    int raw = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    size_t gzn = size;
    unsigned char *gz = raw ? NULL : fz_gzip(data, size, &gzn);
    const unsigned char *in = raw ? data : gz;
    char err[512];

    for (int k = 0; k < 5; k++) {
        rr_file f;
        rr_row row;
        if (rr_open(&f, "fuzz.tsv.gz", in, gzn, kinds[k], cols[k], ncol[k], err, sizeof err) == 0) {
            long rows = 0;
            int r;
            while ((r = rr_next(&f, &row, err, sizeof err)) == 1) {
                rows++;
                for (int c = 0; c < ncol[k]; c++)
                    if (row.has[c] > 2 || (row.has[c] == 2 && !cols[k][c].eq) || (row.has[c] && cols[k][c].type == RR_CODE && cols[k][c].codes &&
                                           !strchr(cols[k][c].codes, row.c[c])))
                        abort();
            }
            if (r != 0 && r != -1)
                abort();
            if (f.line < rows)
                abort(); /* every row is a line */
        }
        rr_close(&f);
    }

    decode(in, gzn, "{\"rate\": 300, \"requests\": 40, \"test_rows\": 7, \"freeze_share\": 0.01, "
                    "\"arm_spec\": {\"wait\": \"H\"}}");
    decode(in, gzn, "{\"rate\": 0, \"test_rows\": 7, \"arm_spec\": {\"wait\": \"F\"}}");

    unsigned char *out = NULL;
    size_t outn = 0;
    rr_gunzip(in, gzn, &out, &outn, err, sizeof err);
    if (!raw && (outn != size || (size && memcmp(out, data, size))))
        abort(); /* inflates back whole */
    free(out);
    free(gz);
    return 0;
}
