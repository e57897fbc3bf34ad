/* shopgen: the seeded shop generator: a file of invoice lines in the layout
 * of shop.h (SHOP_HEADER, then one row per invoice line), from the model
 * data/README.md ("The generated shop") gives with all its parameters.
 * shop_load (shop.h) reads it back like the real file.
 *
 * Contract
 * - shop_generate writes the file atomically (temporary name, then rename):
 *   a failed run leaves no file behind.  The same seed gives the same bytes;
 *   all randomness comes from ut_rng streams seeded from `seed`.
 * - Errors: 0 on success, -1 with one message in err.
 */
#ifndef PIPELINE_SHOPGEN_H
#define PIPELINE_SHOPGEN_H

#include <stddef.h>
#include <stdint.h>

/* Writes the generated shop for `seed` to `path` (atomically). */
int shop_generate(uint64_t seed, const char *path, char *err, size_t errlen);

#endif
