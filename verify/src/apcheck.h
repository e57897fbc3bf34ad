/* apcheck: results/ap.json, the stand-ins' cost in AP (pipeline/APCOST.md,
 * part 1), checked against the verifier's own recomputation.
 *
 * Contract.  ap_check reads <root>/results/ap.json when it exists and
 * recomputes, for the default model seed (seed 1: the reference's `score`
 * and `last_known`, and its `default_score`), everything APCOST.md defines
 * for one seed, from <root>/results/reference/scores.tsv (customer, cutoff,
 * label; scores and default from ref) and the tester files of the raw runs:
 * the runs of each chosen arm, M (requests per round), each round's set of
 * stand-in rows, the counts and shares, the live AP, the AP with each kind
 * of stand-in and its change per round and over rounds.  Every difference
 * with ap.json is recorded with mm_add ("MISMATCH ap.json <path>: ..."):
 * counts exactly, shares within 1e-12 relative, APs and changes within
 * 1e-12 absolute (APCOST.md 1.7), the promised exact zeros exactly.  What
 * needs the models of seeds 2..20 or the lab's bootstrap generator is only
 * checked for consistency (structure, means of the per-seed lists, seed 1's
 * entries against the recomputation, lo <= hi, the verdict rule, zero
 * changes and [0, 0] for an arm without stand-ins) and copied.
 *
 * The chosen arms come from arms_path (header `arm`, one name per line,
 * blank and `#` lines ignored) when it names a file, else from ap.json
 * itself (its `arms` and `skipped_arms`), with a NOTE.
 *
 * Returns the "checks.ap" object (present, checked, mismatches, ...); sets
 * *member to verified.json's "ap" member (the recomputed seed-1 numbers and
 * the copied ones, see verify/README.md), or to a JSON null when ap.json is
 * absent or unreadable.  Both are the caller's to free (or hand to a tree).
 *
 * The AP code and the test table are aptable.h; one arm's recomputation
 * is aparm.h.
 */
#ifndef APCHECK_H
#define APCHECK_H

#include <stddef.h>

#include "aptable.h"
#include "reference.h"
#include "vjson.h"

vj_node *ap_check(const char *root, const ref_data *ref, const char *arms_path, vj_node **member);
/* 0 when arms_path is absent or a well-formed chosen-arms file; else -1
 * with the file and line in err (the caller exits 2: unusable input) */
int ap_arms_file_check(const char *arms_path, char *err, size_t errlen);

#endif
