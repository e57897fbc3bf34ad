/* fuzz_shop: the shop CSV's loader (shop_load, pipeline/model/shop.c).
 * Properties: every data row is either kept or a guest's; a refusal names
 * the file and leaves *out zeroed (nothing allocated).
 */
#include <stdint.h>
#include <string.h>

#include "fuzzfile.h"
#include "shop.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_file(data, size, "shop.csv");
    shop_data s;
    char err[UT_ERRLEN] = "";
    if (shop_load(path, &s, err, sizeof err) != 0) {
        FZ_ASSERT(strstr(err, path) != NULL);
        FZ_ASSERT(s.lines == NULL && s.n == 0);
        return 0;
    }
    FZ_ASSERT(s.n + s.guests == s.rows);
    FZ_ASSERT(s.cancels <= s.rows);
    for (size_t i = 0; i < s.n; i++)
        FZ_ASSERT(s.lines[i].kind == 'N' || s.lines[i].kind == 'C' || s.lines[i].kind == 'A');
    shop_free(&s);
    return 0;
}
