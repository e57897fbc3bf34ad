/* records: provenance/runs/<run>.json, each run as make measure saw it
 * (pipeline/RESULTS.md, "provenance/runs/<run>.json").
 *
 * Contract: pv_load reads every file of <root>/provenance/runs/ whose name
 * ends in ".json"; name is the file name without ".json", and the records
 * are in byte order of name.
 * A file that is not a JSON object is a mismatch (mm_add) and is kept with
 * tree NULL.  A missing folder is no records.  pv_find looks a record up
 * by name (NULL when absent); pv_exit_code gives a record's exit_code (0
 * and *code, or -1 when it has none that is an integer); pv_free releases
 * the trees.
 */
#ifndef RECORDS_H
#define RECORDS_H

#include <stddef.h>

#include "vjson.h"

#define PV_DIR "provenance/runs"

typedef struct {
    char name[256];
    vj_node *tree;      /* owned; NULL when unreadable */
} pv_record;

typedef struct {
    pv_record *v;
    size_t n;
} pv_records;

void pv_load(const char *root, pv_records *r);
const pv_record *pv_find(const pv_records *r, const char *name);
int pv_exit_code(const pv_record *rec, long long *code);
void pv_free(pv_records *r);

#endif
