#!/usr/bin/env bash
# Make a tiny study with the lab and verify it: the report tests' fixture.
#
#   bash report/tests/make_study.sh DIR [SECONDS]     (from the repository root)
#
# Runs 8 arms x 2 rounds of SECONDS (default 2) s each into DIR/results/raw,
# loads them with the lab's collect (a private PostgreSQL cluster), copies the
# reference scores, writes DIR/provenance/manifest-measure.tsv and runs the
# verifier, which writes DIR/results/verified.json.  Needs `make build` and
# `make prepare` done, and verify/build/verify built.  About 2 minutes.
#
# The fixture checked in under report/tests/fixture/verified.json is this
# script's DIR/results/verified.json (regenerate it when verify's exports
# change: bash report/tests/make_study.sh /tmp/rstudy && cp
# /tmp/rstudy/results/verified.json report/tests/fixture/).
set -euo pipefail
dir=${1:?usage: make_study.sh DIR [SECONDS]}
secs=${2:-2}
arms=(H3-none H3-t25 H3-fb25 H3-dl H3-dldown H4-r2 L3-hedge L3-t25)
mkdir -p "$dir/results/raw" "$dir/results/reference" "$dir/provenance"
dir=$(cd "$dir" && pwd)
for a in "${arms[@]}"; do
  for r in 1 2; do
    [[ -d $dir/results/raw/$a-r$r ]] && continue
    echo "make_study: $a round $r" >&2
    build/bin/run --arm "$a" --round "$r" --seconds "$secs" --gate 0 --raw "$dir/results/raw" >/dev/null
  done
done
cp build/prep/scores.tsv build/prep/summary.json "$dir/results/reference/"
url=$(bash pipeline/pg.sh start build/pgrep)
rc=0
build/bin/collect --root "$dir" --pgurl "$url" >/dev/null || rc=$?
bash pipeline/pg.sh stop build/pgrep
[[ $rc -eq 0 ]] || { echo "make_study: collect failed ($rc)" >&2; exit 1; }
{
  printf 'path\tsize\tsha256\n'
  (cd "$dir" && find results/raw results/reference -type f | LC_ALL=C sort | while read -r f; do
     printf '%s\t%s\t%s\n' "$f" "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -d' ' -f1)"
   done)
} > "$dir/provenance/manifest-measure.tsv"
verify/build/verify --root "$dir" --guesses data/guesses.tsv --comparisons pipeline/comparisons.tsv | tail -4
