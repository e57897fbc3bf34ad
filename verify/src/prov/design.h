/* design: the schedule held to the registered design (pipeline/RESULTS.md,
 * "The schedule is the design as run", "data/profiles.tsv: the registered
 * design", "results/deviations.tsv").
 *
 * Contract: dg_check reads provenance/prereg.json.  When its `files` do
 * not list data/profiles.tsv (a study registered before 2026-12-02) the
 * study cannot be held to a design: one NOTE line, and checks.design
 * {"registered": false, "profile": the schedule's or null, "runs_planned":
 * null, "deviations": [], "mismatches": 0}.  Otherwise, in every profile
 * (tiny too: "whatever the hashes say"), each of these is a mismatch
 * (mm_add) naming the file and line:
 *   - when the rules a study must meet are not enforced (profile tiny;
 *     prereg.h holds the files to their registration otherwise), the
 *     profiles file and the arms file as read differing from their
 *     registered sha256 and size (the design would not be the registered
 *     one);
 *   - every fault of data/profiles.tsv (profiles.h) and of
 *     results/deviations.tsv (deviations.h); a deviation whose group the
 *     profile lacks, or whose `registered` is not the value the profile
 *     gives that group's field;
 *   - the schedule's profile not in data/profiles.tsv;
 *   - the design as run (the profile's groups, each deviation applied:
 *     for every group and arm one run in each round 1 .. rounds lasting
 *     seconds) against the schedule's (arm, round, seconds): a line whose
 *     arm no group has (an arm added), whose round is beyond its group's
 *     rounds (a round more), whose seconds differ (sd_line_seconds); a run
 *     of the design no line plans (a round dropped, an arm missing);
 *   - results/prediction.json's odds and sizing entries (and its map) whose `seeds`
 *     differ from the profile's odds_seeds.
 * Returns checks.design (the caller owns it): {"registered", "profile",
 * "runs_planned" (the design as run's), "deviations": [{"group", "field",
 * "registered", "ran", "reason"}, ...] (the lines applied), "mismatches"}.
 */
#ifndef DESIGN_H
#define DESIGN_H

#include "arms.h"
#include "schedule.h"
#include "vjson.h"

vj_node *dg_check(const char *root, const sd_schedule *sd, const am_file *arms, const char *profiles_path,
                  int rules_enforced);

#endif
