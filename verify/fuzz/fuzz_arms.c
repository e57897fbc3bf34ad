/* fuzz_arms: the registered arms file's reader (arms.c).  The input is the
 * file; every arm read is looked up again by its name, and its arm_spec
 * object is written as JSON. */
#include "arms.h"
#include "fuzzhelp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write("lab/arms.tsv", data, size);
    am_file a;
    char err[512] = "";
    int rc = am_load(path, &a, err, sizeof err);
    if (rc == 0) {
        for (size_t i = 0; i < a.n; i++) {
            const am_arm *m = am_find(&a, a.v[i].name);
            if (m != &a.v[i] || !m->spec || m->spec->type != VJ_OBJ)
                abort();
            vu_buf b = {0};
            vj_write(m->spec, &b);
            vu_buf_free(&b);
        }
    } else if (rc != 2 || !err[0]) {
        abort();
    }
    am_free(&a);
    return 0;
}
