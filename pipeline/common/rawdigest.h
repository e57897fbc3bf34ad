/* rawdigest: a measured run's raw files held to the digests recorded when
 * they were written, before anything of them is used: run.json's `files`
 * (lab/RAWFORMAT.md: each event file's sha256, and its size when recorded)
 * and the measure manifest, OUT/provenance/manifest-measure.tsv (path size
 * sha256, one line per file under results/raw/, results/attempts/ and
 * results/reference/, paths relative to OUT; written by make measure only
 * when every run is complete, so a study still being measured has none).
 * collect calls it on every run and kept attempt before the database is
 * touched (pipeline/README.md, "PostgreSQL and make collect").
 *
 * rawdigest_manifest_load reads the manifest whole (lab/base/tsv.h's
 * grammar, header "path size sha256", a size a whole number, a sha256 64
 * lowercase hex digits, a path given once); a manifest that is not there
 * is no error (*out NULL: nothing to hold the files to but run.json).
 *
 * rawdigest_check_run hashes each file of the folder OUT/REL (REL e.g.
 * results/raw/H3-fb25-r1) once, streaming it: run.json, then the event
 * files tester, service, store, machine, events and store2 (store2 when it
 * is there or run.json's `files` names it).  Each event file must be there,
 * run.json's `files` must give its sha256, and the file must have that
 * sha256 and the size recorded beside it (when one is); with a manifest,
 * run.json and each event file must be listed there with their size and
 * sha256.  A mismatch names the file and both digests, e.g.
 *   "OUT/results/raw/H3-fb25-r1/tester.tsv.gz: sha256 9f2c...e1 (41210
 *    bytes), but run.json records 14c6...54 (41207 bytes): not the file
 *    measured"
 * On success fp holds the run's fingerprint, the sha256 of the hex
 * sha256s of run.json and the event files in that order (what collect
 * stores to tell a run loaded already).
 *
 * rawdigest_check_listed holds every file the manifest lists under a path
 * prefix (collect: results/reference/, the reference of the raw files' "="
 * scores) to its size and sha256 there, naming the file and both digests;
 * with no manifest (NULL) there is nothing to hold them to.
 *
 * Ownership: rawdigest_manifest_free frees what the loader allocated (NULL
 * is fine).  0, or -1 with the message in err.
 */
#ifndef PIPELINE_RAWDIGEST_H
#define PIPELINE_RAWDIGEST_H

#include <stddef.h>

#define RAWDIGEST_MANIFEST "manifest-measure.tsv" /* in the provenance folder */

typedef struct rawdigest_manifest rawdigest_manifest;

int rawdigest_manifest_load(const char *path, rawdigest_manifest **out, char *err, size_t errlen);
void rawdigest_manifest_free(rawdigest_manifest *m);
int rawdigest_check_run(const char *root, const char *rel, const rawdigest_manifest *m, char fp[65], char *err,
                        size_t errlen);
int rawdigest_check_listed(const char *root, const rawdigest_manifest *m, const char *prefix, char *err,
                           size_t errlen);

#endif
