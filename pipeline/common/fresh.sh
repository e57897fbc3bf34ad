#!/usr/bin/env bash
# make all, in place: start a new study when results/ and provenance/ hold
# the published study exactly as committed.
#
# measure continues a study (it keeps every run folder already there), which
# is what a rerun of an interrupted `make all` needs. On a fresh clone,
# though, the folders hold the published study, and continuing it would
# measure nothing. So: when every committed file under results/ and
# provenance/ is unchanged and nothing new is there, the published study is
# set aside (removed from the work tree; git keeps it) and the study starts
# anew. Once the rerun has written anything, the folders differ from the
# commit and a later `make all` continues the rerun.
#
# `git checkout -- results/ provenance/ README.md && git clean -fdq results/
# provenance/` brings the published study back.
set -euo pipefail

git rev-parse --git-dir > /dev/null 2>&1 || exit 0              # not a clone
[[ -n $(git ls-files -- results/raw | head -1) ]] || exit 0      # no study committed
git diff --quiet HEAD -- results provenance || exit 0            # a rerun under way
[[ -z $(git ls-files --others --exclude-standard -- results provenance | head -1) ]] || exit 0

n=$(git ls-files -- results/raw | sed -n 's,^results/raw/\([^/]*\)/.*,\1,p' | sort -u | wc -l)
echo "make all: results/ holds the published study as committed ($n run folders); measuring anew in place"
echo "  (git checkout -- results/ provenance/ README.md && git clean -fdq results/ provenance/ brings it back)"
find results provenance -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
