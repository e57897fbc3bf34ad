/* fuzz_quiet: data/quiet.tsv's reader (quiet_load, lab/quiet.c).
 * Properties: limits loaded are numbers (no NaN); a refusal names the file.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzzfile.h"
#include "quiet.h"
#include "util.h"

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
    return 0;
}
