/* compare: the lab's results.json against the verifier's own numbers.
 *
 * Contract: cmp_results walks both trees and records every difference with
 * mm_add (mism.h): a member the lab lacks, a member RESULTS.md does not
 * define, a count that differs at all, a time that differs by 1 ns or more
 * (1e-6 in *_ms, 1e-3 in *_us), a ratio (shares, lookups_per_request,
 * answers_per_s) that differs by more than 1e-12 relative, a per-second mean
 * (busy_slots, line_length) that differs by 1e-9 or more, a string or truth
 * value that differs, an end of an odds interval (sim_wilson95, cp95) that
 * differs by more than 1e-11.  Verdict differences use the tolerance of their
 * figure, doubled for times (a difference of two values), and for ratios
 * 1e-12 of the larger operand.  `attempts` is compared like `runs` when
 * results.json has it or the study has attempt folders (absent counts as
 * {} in a study older than the member).  Each verdict's error rate (n,
 * false_positive_rate, sizing_q, power, decidable) and verdict_family are
 * demanded, all of them, once results.json has any (an older results.json
 * has none): n and the counts exactly, the rates to 1e-12 relative.
 * predicted.twin is not asked of a results.json without a top-level
 * "twin" (older than the member) while the verifier's is null; the
 * top-level twin itself is compared by twin.h (tw_compare), the map by
 * floodmap.h (fm_compare).  Figures added after the published study, in
 * groups (healthy_timeouts and healthy_timeout_share; during_standin_share,
 * during_p99_ms, store1_during_busy and store2_during_busy), are demanded
 * in every run, attempt and arm once results.json has any member of the
 * group in any of them, and not asked of a results.json that has none of
 * the group anywhere (older than the members).  It owns nothing.
 */
#ifndef COMPARE_H
#define COMPARE_H

#include "study.h"
#include "vjson.h"

void cmp_results(const vj_node *lab, const study *s);
/* 1 when two numbers of a figure class agree */
int cmp_num_equal(rf_class c, double lab, double mine);

/* A member of results.json recomputed whole (twin.h's `twin`, floodmap.h's
 * `map`), compared node by node: cmp_tree records with mm_add every node
 * the lab lacks or has of another type, every member of the lab's that the
 * verifier's lacks ("a member RESULTS.md does not define"), a list of
 * another length, a string or truth value that differs, and a number for
 * which num_equal(field, lab, mine) is 0 (field: the member's name, or the
 * list's for its entries); entry names entry i of the list at path for the
 * messages (a malloc'd string). */
typedef struct {
    char *(*entry)(const char *path, const vj_node *entry, size_t i);
    int (*num_equal)(const char *field, double lab, double mine);
} cmp_tree_rules;
void cmp_tree(const char *path, const char *field, const vj_node *lab, const vj_node *mine, const cmp_tree_rules *r);

#endif
