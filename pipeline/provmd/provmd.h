/* provmd: results/provenance.md, the provenance for people, rendered from a
 * study's provenance folder by the exact rules of pipeline/RESULTS.md
 * ("results/provenance.md: the provenance for people").  The verifier
 * renders the same file from the same rules on its own and compares byte
 * for byte, so this module follows the text literally: nothing here is
 * chosen for looks that the rules do not say.
 *
 * It reads DIR/stage-<s>.json, DIR/prereg.json and DIR/runs/ (run records
 * and their attempt-<n> files); it writes nothing.  A record that is not
 * JSON or holds a value of the wrong type is refused with one message
 * naming the file and the field ("DIR/runs/X.json: quiet.late_p99_ms: not
 * a number"), and no text is returned.
 *
 * Ownership: on success *md is a malloc'd, NUL-terminated text of *len
 * bytes that the caller frees; on failure *md is NULL.
 */
#ifndef PIPELINE_PROVMD_H
#define PIPELINE_PROVMD_H

#include <stddef.h>

/* 0, or -1 with the message in err. */
int provmd_render(const char *provdir, char **md, size_t *len, char *err, size_t errlen);

#endif
