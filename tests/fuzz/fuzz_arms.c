/* fuzz_arms: lab/arms.tsv's reader (arms_load, lab/core/arms.c) on any file.
 * Properties: a table loaded holds arms that each keep every rule
 * (arms_check) and are found by their names; a refusal names the file.
 */
#include <stdint.h>
#include <string.h>

#include "arms.h"
#include "fuzzfile.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_file(data, size, "arms.tsv");
    arm_table t;
    char err[UT_ERRLEN] = "", why[256];
    if (arms_load(path, &t, err, sizeof err) != 0) {
        FZ_ASSERT(strstr(err, path) != NULL);
        return 0;
    }
    for (size_t i = 0; i < t.n; i++) {
        FZ_ASSERT(arms_check(&t.v[i], why, sizeof why) == 0);
        FZ_ASSERT(arms_find(&t, t.v[i].name) != NULL);
    }
    arms_free(&t);
    return 0;
}
