/* fuzz_prediction: collect's reader of results/prediction.json
 * (collectpred_read, pipeline/collect/collectpred.c).  Property: a refusal names
 * the file and leaves no prediction.
 */
#include <stdint.h>
#include <string.h>

#include "collectpred.h"
#include "fuzzfile.h"
#include "pgxstub.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_file(data, size, "prediction.json");
    collectpred *p = (collectpred *)1;
    char err[UT_ERRLEN] = "";
    if (collectpred_read(path, &p, err, sizeof err) != 0) {
        FZ_ASSERT(p == NULL);
        FZ_ASSERT(strstr(err, path) != NULL);
        return 0;
    }
    FZ_ASSERT(p != NULL);
    collectpred_free(p);
    return 0;
}
