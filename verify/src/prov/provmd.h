/* provmd: results/provenance.md, the provenance for people, written again
 * from provenance/ by the rules of pipeline/RESULTS.md ("results/
 * provenance.md: the provenance for people") and compared byte for byte.
 *
 * Contract.  pm_render writes the whole text the rules give for the files
 * under <root>/provenance/ into *out (a vu_buf the caller frees): the
 * stage records provenance/stage-<s>.json (read here), prereg.json (read
 * here) and the run records recs (records.h: every file of
 * provenance/runs/, the attempt- records included).  A null or missing
 * field is written "—" wherever a value goes; a list or object the rules
 * walk that is missing or null counts as empty.  It returns 0, or -1 when
 * a record is malformed by the rules (not a JSON object, a value of
 * another JSON type than its rule needs, a run record without an integer
 * k, an earlier_attempts entry naming no file of the folder): then *bad
 * names the first such file and field and *out is to be ignored.
 *
 * pm_check renders, reads <root>/results/provenance.md and compares: a
 * difference is one mismatch naming the first line that differs (its
 * number, the file's text and the expected text); a malformed record is
 * one mismatch naming its file and field, and nothing is compared.  A
 * missing file is a mismatch with enforce 1 (every profile but tiny), a
 * NOTE with 0.  Returns checks.study's member "provenance_md" (the caller
 * owns it): present, checked, lines (of the expected text), equal, and
 * malformed ("<file> <field>") when a record is.
 */
#ifndef PROVMD_H
#define PROVMD_H

#include "records.h"
#include "vjson.h"
#include "vutil.h"

#define PM_REL "results/provenance.md"

/* the first malformed value met: its file (relative to the root), field
 * (a dotted path, "[i]" for a list entry), value as the file has it, and
 * what the rules need there */
typedef struct {
    char file[320];
    char field[200];
    char value[200];
    char need[120];
} pm_bad;

int pm_render(const char *root, const pv_records *recs, vu_buf *out, pm_bad *bad);
vj_node *pm_check(const char *root, const pv_records *recs, int enforce);

#endif
