/* manifest: the raw files against the fingerprint manifest.
 *
 * Contract: mf_check reads <root>/provenance/manifest-measure.tsv (header
 * "path size sha256", paths relative to root) and records with mm_add every
 * listed file that is missing or whose size or sha256 differs, every path
 * that is not a plain relative path inside root, and every file under
 * results/raw/, results/attempts/ and results/reference/ that the manifest
 * does not list
 * (a file under results/reference/ that provenance/manifest-ap.tsv lists
 * instead is fine; one both list is a mismatch).
 * Returns 0 (the check ran; *nfiles = files hashed) or 2 when the manifest
 * is missing or unreadable (message in err).  Owns nothing afterwards.
 */
#ifndef MANIFEST_H
#define MANIFEST_H

#include <stddef.h>

int mf_check(const char *root, long *nfiles, char *err, size_t errlen);

#endif
