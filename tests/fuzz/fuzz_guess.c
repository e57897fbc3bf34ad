/* fuzz_guess: the lab side's guess grammar (data/guesses.tsv's predicates,
 * parsed by collect into clauses: load_guesses and parse_clause in
 * pipeline/collect.c) and comparisons.tsv's reader, on the same bytes.
 * collect.c is compiled into this harness (its parsers are static) with its
 * main renamed, and the database calls are stubs (pgxstub.h) that read
 * every parameter.  Property: a refusal names the file.
 */
#define main collect_main
#include "../../pipeline/collect.c"
#undef main

#include "fuzzfile.h"
#include "pgxstub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fz_tmpdir();
    char err[UT_ERRLEN] = "";
    opts o = {dir, NULL, dir, dir, NULL};
    const char *path = fz_file(data, size, "guesses.tsv");
    if (load_guesses(NULL, &o, err, sizeof err) != 0)
        FZ_ASSERT(strstr(err, path) != NULL);
    err[0] = 0;
    path = fz_file(data, size, "comparisons.tsv");
    if (load_comparisons(NULL, &o, err, sizeof err) != 0)
        FZ_ASSERT(strstr(err, path) != NULL);
    return 0;
}
