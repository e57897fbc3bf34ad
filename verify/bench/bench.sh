#!/bin/bash
# make -C verify bench: a full-size synthetic study under /tmp (the
# published full profile's shape: gen_study.c; BENCH=lessons for the
# lessons' 110 runs of 30 s), then the time of verify (every figure,
# answers, manifest, the whole AP result; no scan) and of the scan alone,
# each on one core, wall and CPU (user + system: the wall time counts the
# other work of a shared machine too); then the AP engine alone on an arm
# of the bench's stand-in share and on a flood.  The goal of the verify's
# speed is the whole verify (checks and scan) within twice the time of
# decompressing the study's raw files (zcat, on the same core): printed as
# a ratio.  SCAN_BEFORE=<another verify binary> times that binary's scan
# too, on the same study, next to this one's (a change's before and after,
# side by side).
set -euo pipefail
B=${1:?usage: bench.sh BUILD_DIR}
D=$(mktemp -d /tmp/verify-bench-XXXXXX)
trap 'rm -rf "$D"' EXIT
PIN=""
if command -v taskset >/dev/null; then PIN="taskset -c 0"; fi
if [ "${BENCH:-}" = lessons ]; then "$B/gen_study" --lessons "$D"; else "$B/gen_study" "$D"; fi
# first pass writes verified.json; it becomes results.json for the timed pass
"$B/verify" --root "$D" --no-scan --max-print 1 >/dev/null || true
"$B/gen_study" --promote "$D"   # also ap.json, ap_resamples.tsv.gz, manifest-ap.tsv
du -sh "$D/results/raw" | sed 's/^/raw files: /'
TIMEFORMAT='%R %U %S'
vt=$( { time $PIN "$B/verify" --root "$D" --no-scan >"$D/verify.out" 2>&1; } 2>&1 )
st=$( { time $PIN "$B/verify" --root "$D" --scan-only >"$D/scan.out" 2>&1; } 2>&1 )
zt=$( { time find "$D/results/raw" -name '*.gz' -exec $PIN zcat {} + >/dev/null; } 2>&1 )
if [ -n "${SCAN_BEFORE:-}" ]; then
  bt=$( { time $PIN "$SCAN_BEFORE" --root "$D" --scan-only >"$D/scan0.out" 2>&1; } 2>&1 )
  st2=$( { time $PIN "$B/verify" --root "$D" --scan-only >/dev/null 2>&1; } 2>&1 )
fi
tail -1 "$D/verify.out"
grep '^ap.json: recomputed' "$D/verify.out" | sed 's/^/bench: /' || true
grep -o '"disturbed_runs": [0-9]*' "$D/results/verified.json" | sed 's/^/verified.json /' || true
tail -2 "$D/scan.out"
runs=$(ls "$D/results/raw" | wc -l)
echo "$vt" | awk -v n="$runs" '{ printf "bench: verify (%d runs, no scan)  %6.2f s wall, %6.2f s CPU   (target < 15 s on one core)\n", n, $1, $2 + $3 }'
echo "$st" | awk '{ printf "bench: scan of results/, provenance/ %6.2f s wall, %6.2f s CPU   (target < 5 s)\n", $1, $2 + $3 }'
echo "$zt" | awk '{ printf "bench: zcat of the raw files          %6.2f s wall, %6.2f s CPU\n", $1, $2 + $3 }'
printf '%s\n%s\n%s\n' "$vt" "$st" "$zt" | awk '{ c[NR] = $2 + $3 } END { printf "bench: (verify + scan) / zcat = %.2f CPU   (goal <= 2)\n", (c[1] + c[2]) / c[3] }'
if [ -n "${SCAN_BEFORE:-}" ]; then
  tail -1 "$D/scan0.out" | sed 's/^/bench: before: /'
  echo "$bt" | awk -v b="$SCAN_BEFORE" '{ printf "bench: scan, before (%s) %6.2f s wall, %6.2f s CPU\n", b, $1, $2 + $3 }'
  echo "$st2" | awk '{ printf "bench: scan, this build, again      %6.2f s wall, %6.2f s CPU\n", $1, $2 + $3 }'
fi
$PIN "$B/ap_flood" 0.015
$PIN "$B/ap_flood" 0.3
