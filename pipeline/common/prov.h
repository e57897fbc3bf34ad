/* prov: the provenance record of one stage run, and the fingerprint manifest.
 *
 * A stage calls prov_begin, names its inputs and outputs as it goes (each is
 * hashed when named: inputs before use, outputs after they are complete),
 * and prov_end writes <dir>/stage-<name>.json atomically: argv, UTC start
 * and end, exit code, wall and CPU seconds, git commit and dirty flag,
 * compiler and flags, library versions, host facts, and the sha256 and size
 * of every input and output.  prov_manifest writes a TSV
 * (path, size, sha256) of the same files, which `check` re-hashes.
 *
 * Host and build facts: lab/base/facts.h (no host name, no address).
 *
 * Secrets (pipeline/RESULTS.md, "Secrets in the records"): prov_mask is the
 * lab's one definition of a masked password; every string of a stage record
 * goes through it (prov_end), and so do measure's run records and every log
 * line kept (pipeline/common/redact.c).  It replaces
 *   the password of scheme://user:PASSWORD@host  by ***  (the user part ends
 *     at the last '@' before the first '/', '?', '#', space or quote after
 *     "://"; a user part without ':' has no password), and
 *   the value of password=VALUE (any case, spaces allowed around '=', as in
 *     a libpq connection string, a URL query or PGPASSWORD=) by ***: the
 *     value ends at a space, '&', '#' or a quote, or is a quoted '...' or
 *     "..." whole.
 * Masking twice changes nothing more.  prov_mask_json also writes the
 * absolute path of the current folder as "." where it begins a path (no
 * path of this machine in a published record).
 *
 * The preregistration (provenance/prereg.json, pipeline/RESULTS.md): the
 * seven registered files, in their order, are PROV_PREREG_FILES (paths
 * relative to the repository, as registered; a study registered before
 * 2026-12-02 lists the first six); prov_prereg_compare holds each file, read
 * from wherever its stage was told, against its entry (found by that path).
 * The copies that travel with the study, <prov>/registered/<path>
 * (PATH_REGISTERED, pipeline/common/paths.h): prov_prereg_copies_match
 * says whether each copy holds the bytes of its file;
 * prov_prereg_stage_copies writes every copy into <prov>/.registered.tmp/
 * (each file whole, or none: the folder is removed on failure),
 * prov_prereg_commit_copies then puts that folder in the place of
 * <prov>/registered/ (renames), prov_prereg_drop_copies removes it: a
 * failed stage leaves no half-written copy.
 *
 * Ownership: prov_begin allocates; prov_end frees, whatever it returns.
 */
#ifndef PIPE_PROV_H
#define PIPE_PROV_H

#include <stddef.h>

typedef struct prov prov;

prov *prov_begin(const char *stage, int argc, char **argv);
int prov_input(prov *p, const char *path, char *err, size_t errlen);
int prov_output(prov *p, const char *path, char *err, size_t errlen);
void prov_lib(prov *p, const char *name, const char *version);
/* Extra facts: a JSON object (jansson json_t *, stolen) stored as "facts". */
void prov_facts(prov *p, void *json_object);
int prov_manifest(const prov *p, const char *path, char *err, size_t errlen);
int prov_end(prov *p, int exit_code, const char *dir, char *err, size_t errlen);

/* The machine and build facts a record carries: lab/base/facts.h. */

/* in masked into out (at most outlen bytes, always NUL-terminated); the
 * number of passwords masked.  PROV_MASK_CAP(strlen(in)) bytes always suffice. */
#define PROV_MASK_CAP(n) (3 * (n) + 1)
int prov_mask(const char *in, char *out, size_t outlen);
/* Every string value inside a jansson value (objects and arrays, deeply)
 * masked in place; the number of passwords masked. */
int prov_mask_json(void *json);

#define PROV_NPREREG 7
extern const char *const PROV_PREREG_FILES[PROV_NPREREG];
enum { PROV_REG_SAME, PROV_REG_CHANGED, PROV_REG_ABSENT };
/* Each registered file i, read from paths[i], against reg (prereg.json as a
 * jansson object; NULL: nothing registered): st[i] is PROV_REG_SAME (the
 * entry of path PROV_PREREG_FILES[i] has the file's sha256 and size),
 * PROV_REG_CHANGED or PROV_REG_ABSENT (no such entry); sha[i] and size[i]
 * are the file's own.  0, or -1 when a file cannot be read (err names it). */
int prov_prereg_compare(const void *reg, const char *const paths[PROV_NPREREG], int st[PROV_NPREREG],
                        char sha[PROV_NPREREG][65], unsigned long long size[PROV_NPREREG], char *err,
                        size_t errlen);

/* 1 when <provdir>/registered/<PROV_PREREG_FILES[i]> holds exactly the bytes
 * of paths[i] for every i; else 0. */
int prov_prereg_copies_match(const char *provdir, const char *const paths[PROV_NPREREG]);
/* 0, or -1 (err; nothing left behind). */
int prov_prereg_stage_copies(const char *provdir, const char *const paths[PROV_NPREREG], char *err, size_t errlen);
int prov_prereg_commit_copies(const char *provdir, char *err, size_t errlen);
void prov_prereg_drop_copies(const char *provdir);

#endif
