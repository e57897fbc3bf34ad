/* apcmp: comparing one number, string or member list of results/ap.json
 * with the verifier's own (pipeline/APCOST.md 1.13), for apcheck.c and
 * apfull.c.
 *
 * Contract.  Each function records a difference with mm_add as
 *     MISMATCH ap.json <path>: lab <ap.json's value>, verify <mine>
 * and returns nothing; a NULL `lab` node is an absent member.  Nothing is
 * allocated that outlives a call.
 */
#ifndef APCMP_H
#define APCMP_H

#include <stddef.h>

#include "vjson.h"

#define APCMP_AP_TOL 1e-12    /* APs, changes, intervals: absolute (APCOST.md 1.13) */
#define APCMP_SHARE_TOL 1e-12 /* shares: relative */

/* one mismatch at path with ap.json's node and the verifier's text */
void apcmp_mm(const char *path, const vj_node *lab, const char *mine);
int apcmp_is_num(const vj_node *n);
void apcmp_count(const char *path, const vj_node *lab, long long mine);
/* tol < 0: relative |tol|; tol == 0: exactly; else absolute.  A NaN `mine`
 * wants a JSON null.  why: said after the verifier's value (or NULL) */
void apcmp_num(const char *path, const vj_node *lab, double mine, double tol, const char *why);
void apcmp_str(const char *path, const vj_node *lab, const char *mine);
/* every member of the object lab must be one of allowed (NULL-terminated) */
void apcmp_members(const char *path, const vj_node *lab, const char *const *allowed);
/* parent's member key when it has that type (VJ_OBJ or VJ_ARR), else a mismatch and NULL */
const vj_node *apcmp_need(const char *path, const vj_node *parent, const char *key, vj_type type);
/* <prefix>.<name> in q (for the paths of mismatches) */
const char *apcmp_at(char *q, size_t qn, const char *prefix, const char *name);

#endif
