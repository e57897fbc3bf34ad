/* fuzz_quiet: data/quiet.tsv's reader (quiet_load, lab/watch/quiet.c).
 * Properties: limits loaded are numbers (no NaN); a refusal names the
 * file; a file accepted holds, read line by line by a plain reference
 * reader here (split at each newline, '#' and empty lines skipped, the
 * header, then rule<TAB>limit), exactly the limits loaded.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "fuzzfile.h"
#include "quiet.h"
#include "util.h"

/* The reference: 0 when every rule line of the text gives the limit q has. */
static int reference(const uint8_t *d, size_t n, const quiet_limits *q)
{
    static const struct {
        const char *name;
        size_t off;
    } R[] = {{"steal_run_max", offsetof(quiet_limits, steal_run_max)},
             {"steal_second_max", offsetof(quiet_limits, steal_second_max)},
             {"late_p99_max_ms", offsetof(quiet_limits, late_p99_max_ms)},
             {"late_max_max_ms", offsetof(quiet_limits, late_max_max_ms)},
             {"other_idle_min", offsetof(quiet_limits, other_idle_min)},
             {"foreign_second_max", offsetof(quiet_limits, foreign_second_max)}};
    char *text = malloc(n + 1), *save = NULL;
    memcpy(text, d, n);
    text[n] = 0;
    int header = 0, bad = 0, seen = 0;
    for (char *l = text; l && !bad;) {
        char *nl = memchr(l, '\n', (size_t)(text + n - l));
        if (nl)
            *nl = 0;
        l[strcspn(l, "\r")] = 0;
        if (l[0] && l[0] != '#') {
            char *tab = strchr(l, '\t');
            if (!header)
                bad = strcmp(l, "rule\tlimit") != 0, header = 1;
            else if (!tab)
                bad = 1;
            else {
                *tab = 0;
                size_t k = 0;
                while (k < 6 && strcmp(R[k].name, l))
                    k++;
                bad = k == 6 || strtod(tab + 1, &save) != *(const double *)((const char *)q + R[k].off) ||
                      *save != 0;
                seen++;
            }
        }
        l = nl ? nl + 1 : NULL;
    }
    free(text);
    return bad || seen != 6 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_file(data, size, "quiet.tsv");
    quiet_limits q;
    char err[UT_ERRLEN] = "";
    if (quiet_load(path, &q, err, sizeof err) != 0) {
        FZ_ASSERT(strstr(err, path) != NULL);
        return 0;
    }
    FZ_ASSERT(!isnan(q.steal_run_max) && !isnan(q.steal_second_max) && !isnan(q.late_p99_max_ms) &&
              !isnan(q.late_max_max_ms) && !isnan(q.other_idle_min) && !isnan(q.foreign_second_max));
    FZ_ASSERT(reference(data, size, &q) == 0);
    return 0;
}
