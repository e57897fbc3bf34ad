/* prepsum: see prepsum.h for the contract and the fields. */
#include "prepsum.h"

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>

#include "util.h"

/* An integer field: -1 when absent; 0, or -1 when it is not an integer (or
 * negative, when counts). */
static int int_field(json_t *j, const char *key, int count, int64_t *v, const char *path, char *err, size_t errlen)
{
    json_t *x = json_object_get(j, key);
    *v = -1;
    if (!x)
        return 0;
    if (!json_is_integer(x) || (count && json_integer_value(x) < 0)) {
        ut_seterr(err, errlen, "%s: %s must be an integer%s", path, key, count ? " >= 0" : "");
        return -1;
    }
    *v = (int64_t)json_integer_value(x);
    return 0;
}

int prepsum_load(const char *path, prepsum *s, char *err, size_t errlen)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j) {
        ut_seterr(err, errlen, "%s: line %d: %s", path, je.line, je.text);
        return -1;
    }
    int rc = -1;
    json_t *d = json_object_get(j, "default_score");
    if (!json_is_object(j) || !json_is_number(d) || !isfinite(json_number_value(d)) ||
        fabs(json_number_value(d)) > FLT_MAX) {
        ut_seterr(err, errlen, "%s: default_score must be a number (a finite 32-bit float)", path);
        goto done;
    }
    s->default_score = (float)json_number_value(d);
    if (int_field(j, "model_seed", 0, &s->model_seed, path, err, errlen) != 0 ||
        int_field(j, "test_rows", 1, &s->test_rows, path, err, errlen) != 0 ||
        int_field(j, "test_rows_with_last_known", 1, &s->test_rows_with_last_known, path, err, errlen) != 0)
        goto done;
    rc = 0;
done:
    json_decref(j);
    return rc;
}
