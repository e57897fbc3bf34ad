#!/usr/bin/env bash
# The published study and the stages a user runs in place: the one owner of
# the rule "results/ and provenance/ hold the published study exactly as
# committed" (every committed file under them unchanged, nothing new).
#
#   fresh.sh STAGE      (make all, make measure) when the rule holds, set the
#                       published study aside (removed from the work tree; git
#                       keeps it), saying so, so that the study starts anew
#   fresh.sh --is-published
#                       exit 0 when the rule holds, 1 when not, silently
#                       (make prepare and make check then keep their record
#                       under build/, leaving the published study as committed)
#
# measure continues a study (it keeps every run folder already there), which
# is what a rerun of an interrupted `make all` needs. On a fresh clone,
# though, the folders hold the published study, and continuing it would
# measure nothing. Once the rerun has written anything, the folders differ
# from the commit and a later `make all` continues the rerun.
#
# `git checkout -- results/ provenance/ README.md && git clean -fdq results/
# provenance/` brings the published study back.
set -euo pipefail

published() {
    git rev-parse --git-dir > /dev/null 2>&1 || return 1              # not a clone
    [[ -n $(git ls-files -- results/raw | head -1) ]] || return 1      # no study committed
    git diff --quiet HEAD -- results provenance || return 1            # a rerun under way
    [[ -z $(git ls-files --others --exclude-standard -- results provenance | head -1) ]] || return 1
}

if [[ ${1:-} == --is-published ]]; then
    published
    exit
fi
stage=${1:-all}
published || exit 0

n=$(git ls-files -- results/raw | sed -n 's,^results/raw/\([^/]*\)/.*,\1,p' | sort -u | wc -l)
echo "make $stage: results/ holds the published study as committed ($n run folders); measuring anew in place"
echo "  (git checkout -- results/ provenance/ README.md && git clean -fdq results/ provenance/ brings it back)"
find results provenance -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
