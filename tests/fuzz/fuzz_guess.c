/* fuzz_guess: the lab side's guess grammar (data/guesses.tsv's predicates,
 * parsed into clauses by their one reader, lab/core/guesstab.c, through
 * collect's read_guesses and loaded by its load_guesses in
 * pipeline/collect/collect.c; the grammar alone: no arm list) and
 * comparisons.tsv's reader, on the same bytes.
 * collect.c is compiled into this harness (its parsers are static) with its
 * main renamed, and the database calls are stubs (pgxstub.h) that read
 * every parameter.  Properties: a refusal names the file; a file accepted
 * gives one row per record after the header, lines as a reader sees them
 * (split at each newline; "#" lines and empty lines, a "\r" before the
 * newline dropped, are no records: lab/base/tsv.h's grammar; a line cut in
 * two by a fixed buffer would give one more row, or a refusal naming the
 * wrong line).
 */
#define main collect_main
#include "../../pipeline/collect/collect.c"
#undef main

#include "fuzzfile.h"
#include "pgxstub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fz_tmpdir();
    char err[UT_ERRLEN] = "";
    opts o = {dir, NULL, dir, dir, NULL, NULL}; /* no arms: the grammar alone */
    size_t lines = 0; /* the lines that are not comments nor empty, the header's too */
    for (size_t i = 0, start = 0; i < size; i++)
        if (data[i] == '\n' || i + 1 == size) {
            size_t end = data[i] == '\n' ? i : i + 1;
            if (end > start && data[end - 1] == '\r')
                end--;
            lines += end > start && data[start] != '#';
            start = i + 1;
        }
    const char *path = fz_file(data, size, "guesses.tsv");
    fz_pg_guesses = fz_pg_comparisons = 0;
    guesstab g;
    if (read_guesses(&o, &g, err, sizeof err) != 0)
        FZ_ASSERT(strstr(err, path) != NULL);
    else {
        FZ_ASSERT(load_guesses(NULL, &g, err, sizeof err) == 0);
        FZ_ASSERT(lines == 0 || fz_pg_guesses == lines - 1);
        guesstab_free(&g);
    }
    err[0] = 0;
    path = fz_file(data, size, "comparisons.tsv");
    if (load_comparisons(NULL, &o, err, sizeof err) != 0)
        FZ_ASSERT(strstr(err, path) != NULL);
    else
        FZ_ASSERT(lines == 0 || fz_pg_comparisons == lines - 1);
    return 0;
}
