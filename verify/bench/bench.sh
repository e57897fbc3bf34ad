#!/bin/bash
# make -C verify bench: a full-size synthetic study under /tmp, then the
# time of verify (every figure, answers, manifest, the whole AP result; no
# scan) and of the scan alone, each on one core; then the AP engine alone on
# an arm of the bench's stand-in share and on a flood.
set -euo pipefail
B=${1:?usage: bench.sh BUILD_DIR}
D=$(mktemp -d /tmp/verify-bench-XXXXXX)
trap 'rm -rf "$D"' EXIT
PIN=""
if command -v taskset >/dev/null; then PIN="taskset -c 0"; fi
"$B/gen_study" "$D"
# first pass writes verified.json; it becomes results.json for the timed pass
"$B/verify" --root "$D" --no-scan --max-print 1 >/dev/null || true
"$B/gen_study" --promote "$D"   # also ap.json, ap_resamples.tsv.gz, manifest-ap.tsv
du -sh "$D/results/raw" | sed 's/^/raw files: /'
t0=$(date +%s.%N)
$PIN "$B/verify" --root "$D" --no-scan >"$D/verify.out"
t1=$(date +%s.%N)
$PIN "$B/verify" --root "$D" --scan-only >"$D/scan.out"
t2=$(date +%s.%N)
tail -1 "$D/verify.out"
grep '^ap.json: recomputed' "$D/verify.out" | sed 's/^/bench: /' || true
grep -o '"disturbed_runs": [0-9]*' "$D/results/verified.json" | sed 's/^/verified.json /' || true
tail -2 "$D/scan.out"
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
  printf "bench: verify (110 runs, no scan)  %6.2f s   (target < 15 s on one core)\n", b - a;
  printf "bench: scan of results/, provenance/ %6.2f s   (target < 5 s)\n", c - b }'
$PIN "$B/ap_flood" 0.015
$PIN "$B/ap_flood" 0.3
