/* fuzz_parallel: provenance/parallel.tsv's reader (machines.c: GNU
 * parallel's joblog of the round jobs).  The input is the file; every line
 * read is a round job with a label for Host, and each round's last line is
 * found again. */
#include "mism.h"
#include "fuzzhelp.h"
#include "machines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_mism();
    fz_write(MC_REL, data, size);
    mc_joblog j;
    mc_joblog_load(fz_dir(), &j);
    if (!j.present)
        abort();
    if (!j.header_ok && (j.n || j.lines))
        abort(); /* a header it cannot read: no lines */
    if (j.lines != (long)j.n + j.malformed)
        abort();
    for (size_t i = 0; i < j.n; i++) {
        const mc_job *b = &j.v[i];
        if (b->seq < 1 || b->round < 1 || b->line < 2 || !mc_label_ok(b->host))
            abort();
        const mc_job *last = mc_joblog_last(&j, b->round);
        if (!last || last->round != b->round || last->seq < b->seq)
            abort();
    }
    mc_joblog_free(&j);
    return 0;
}
