/* fuzz_schedule: results/schedule.tsv's reader (schedule.c).  The input is
 * the file; every line read is looked up again by its run. */
#include "mism.h"
#include "fuzzhelp.h"
#include "schedule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_mism();
    fz_write(SD_REL, data, size);
    sd_schedule s;
    sd_load(fz_dir(), &s);
    if (!s.present) abort();
    if (!s.ok && s.n) abort();   /* a line 1 or header it cannot read: no lines */
    for (size_t i = 0; i < s.n; i++) {
        const sd_line *l = sd_find(&s, s.v[i].run);
        if (!l || strcmp(l->run, s.v[i].run)) abort();
    }
    (void)sd_tiny(&s);
    sd_free(&s);
    return 0;
}
