/* fuzz_schedule: results/schedule.tsv's reader (schedule.c), both formats.
 * The input is the file; every line read is looked up again by its run,
 * and its length asked (format 1: S without an arms file; format 2: the
 * line's own, above 0), and each arm's run length and rounds. */
#include "mism.h"
#include "fuzzhelp.h"
#include "schedule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_mism();
    fz_write(SD_REL, data, size);
    sd_schedule s;
    sd_load(fz_dir(), &s);
    if (!s.present)
        abort();
    if (!s.ok && s.n)
        abort(); /* a line 1 or header it cannot read: no lines */
    for (size_t i = 0; i < s.n; i++) {
        const sd_line *l = sd_find(&s, s.v[i].run);
        if (!l || strcmp(l->run, s.v[i].run))
            abort();
    }
    (void)sd_tiny(&s);
    /* without an arms file no arm is the closed-loop arm: every run lasts S */
    am_file none;
    memset(&none, 0, sizeof none);
    if (s.ok && s.format == 1 && s.n && sd_run_seconds(&s, &none, s.v[0].arm, NULL, NULL) != s.seconds)
        abort();
    for (size_t i = 0; s.ok && s.format == 2 && i < s.n; i++)
        if (!(sd_line_seconds(&s, &none, &s.v[i], NULL, NULL) > 0))
            abort();
    for (size_t i = 0; i < s.n; i++) {
        int rounds = -1;
        (void)sd_arm_seconds(&s, &none, s.v[i].arm, &rounds);
        if (rounds < 1 || !sd_has_round(&s, s.v[i].arm, s.v[i].round))
            abort();
    }
    if (s.ok && s.closed_seconds < 0)
        abort();
    sd_free(&s);
    return 0;
}
