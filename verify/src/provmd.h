/* provmd: results/provenance.md, the provenance for people, written again
 * from provenance/ by the rules of pipeline/RESULTS.md ("results/
 * provenance.md: the provenance for people") and compared byte for byte.
 *
 * Contract.  pm_render writes the whole text the rules give for the files
 * under <root>/provenance/ into *out (a vu_buf the caller frees): the
 * stage records provenance/stage-<s>.json (read here), prereg.json (read
 * here) and the run records recs (records.h: every file of
 * provenance/runs/, the attempt- records included; a record that is not a
 * JSON object counts as one without fields).  A null or missing field is
 * written "—" wherever a value goes.  An earlier attempt that
 * `earlier_attempts` names but the folder does not hold is a mismatch
 * (mm_add) and is rendered without fields.
 *
 * pm_check renders, reads <root>/results/provenance.md and compares: a
 * difference is one mismatch naming the first line that differs (its
 * number, the file's text and the expected text).  A missing file is a
 * mismatch with enforce 1 (every profile but tiny), a NOTE with 0.
 * Returns checks.study's member "provenance_md" (the caller owns it):
 * present, checked, lines (of the expected text), equal.
 */
#ifndef PROVMD_H
#define PROVMD_H

#include "records.h"
#include "vjson.h"
#include "vutil.h"

#define PM_REL "results/provenance.md"

void pm_render(const char *root, const pv_records *recs, vu_buf *out);
vj_node *pm_check(const char *root, const pv_records *recs, int enforce);

#endif
