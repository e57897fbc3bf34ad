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
 * Host facts hold no host name and no address: only OS, kernel release,
 * architecture, CPU model and count, and memory.
 *
 * Ownership: prov_begin allocates; prov_end frees, whatever it returns.
 */
#ifndef LAB_PROV_H
#define LAB_PROV_H

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

/* Shared pieces other records use (run.json, prereg.json).  Each returns a
 * new jansson object the caller owns. */
void *prov_host_facts(void);
void *prov_build_facts(void);   /* git commit, dirty, compiler, flags */

#endif
