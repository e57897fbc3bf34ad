#!/usr/bin/env bash
# Make a tiny study with the lab and verify it: the report tests' fixture.
#
#   bash report/tests/make_study.sh DIR [SECONDS]     (from the repository root)
#
# Runs 20 arms (8 of the first lesson, 6 whose store fails, 6 of the defences:
# the breaker with the store down, the second store with and without a
# bulkhead, and at 450/s the retry budget, retries with the deadline passed
# down and asking twice) x 2 rounds of SECONDS (default 3) s each into DIR/results/raw,
# loads them with the lab's collect (a private PostgreSQL cluster), copies the
# reference scores, writes DIR/provenance/manifest-measure.tsv and runs the
# verifier, which writes DIR/results/verified.json.  Needs `make build` and
# `make prepare` done, and verify/build/verify built.  About 3 minutes.
#
# One run is disturbed on purpose, so that the report has a disturbed run to
# list and draw: H3-t25's round 2 has its tester stopped for 100 ms (SIGSTOP,
# then SIGCONT) 0.8 s into its run, so requests go out up to 100 ms late.
# The study's rules (DIR/data/quiet.tsv, below) limit only the tester's
# lateness (p99 20 ms, maximum 40 ms): that stop breaks both, and the other
# runs stay quiet however busy the machine's other cores are.  Collect and
# the verifier judge by the same file.
#
# The fixture checked in under report/tests/fixture/verified.json is this
# script's DIR/results/verified.json (regenerate it when verify's exports
# change: bash report/tests/make_study.sh build/rstudy && cp
# build/rstudy/results/verified.json report/tests/fixture/).
set -euo pipefail
dir=${1:?usage: make_study.sh DIR [SECONDS]}
secs=${2:-3}
arms=(H3-none H3-t25 H3-fb25 H3-dl H3-dldown H4-r2 L3-hedge L3-t25 H3-none-down H3-fb25-down H3-r2-down H3-fb25-reset H3-r2-missing H3-fb25-missing
      H3-brk-down H3-bulk-hang H3-pool-hang H4-r2bud H4-r2dl H4-hedge)
disturb=H3-t25-r2
mkdir -p "$dir/results/raw" "$dir/results/reference" "$dir/provenance" "$dir/data"
dir=$(cd "$dir" && pwd)
rules=$dir/data/quiet.tsv
cat > "$rules" <<'RULES'
# the report fixture's rules: only the tester's lateness is limited
rule	limit
steal_run_max	1
steal_second_max	1
late_p99_max_ms	20
late_max_max_ms	40
other_idle_min	0
foreign_second_max	1
RULES

# the pid of this study's tester (its command line names $dir), or nothing
tester_pid() {
  local p
  for p in /proc/[0-9]*; do
    if tr '\0' ' ' < "$p/cmdline" 2>/dev/null | grep -q "^build/bin/tester .*$dir/results/raw"; then
      echo "${p#/proc/}"; return
    fi
  done
}

for a in "${arms[@]}"; do
  for r in 1 2; do
    [[ -d $dir/results/raw/$a-r$r ]] && continue
    echo "make_study: $a round $r" >&2
    build/bin/run --arm "$a" --round "$r" --seconds "$secs" --gate 0 --raw "$dir/results/raw" --quiet "$rules" >/dev/null &
    run_pid=$!
    if [[ $a-r$r == "$disturb" ]]; then
      t=
      for _ in $(seq 1 1000); do t=$(tester_pid); [[ -n $t ]] && break; sleep 0.01; done
      [[ -n $t ]] || { echo "make_study: no tester for $disturb" >&2; exit 1; }
      sleep 0.8
      kill -STOP "$t"; sleep 0.1; kill -CONT "$t"
      echo "make_study: $disturb: tester $t stopped for 100 ms" >&2
    fi
    wait "$run_pid"
  done
done
cp build/prep/scores.tsv build/prep/summary.json "$dir/results/reference/"
url=$(bash pipeline/common/pg.sh start build/pgrep)
rc=0
build/bin/collect --root "$dir" --pgurl "$url" --quiet "$rules" >/dev/null || rc=$?
bash pipeline/common/pg.sh stop build/pgrep
[[ $rc -eq 0 ]] || { echo "make_study: collect failed ($rc)" >&2; exit 1; }
{
  printf 'path\tsize\tsha256\n'
  (cd "$dir" && find results/raw results/reference -type f | LC_ALL=C sort | while read -r f; do
     printf '%s\t%s\t%s\n' "$f" "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -d' ' -f1)"
   done)
} > "$dir/provenance/manifest-measure.tsv"
verify/build/verify --root "$dir" --guesses data/guesses.tsv --comparisons pipeline/comparisons.tsv --quiet "$rules" | tail -4
