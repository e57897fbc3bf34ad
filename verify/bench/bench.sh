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
"$B/verify" --root "$D" --no-scan --max-print 1 --out "$D/results/verified.json" >/dev/null || true
"$B/gen_study" --promote "$D"   # also ap.json, ap_resamples.tsv.gz, manifest-ap.tsv
du -sh "$D/results/raw" | sed 's/^/raw files: /'
TIMEFORMAT='%R %U %S'
vt=$( { time $PIN "$B/verify" --root "$D" --no-scan --jobs 1 --out "$D/results/verified.json" >"$D/verify.out" 2>&1; } 2>&1 )
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
printf '%s\n%s\n%s\n' "$vt" "$st" "$zt" | awk '{ c[NR] = $2 + $3 } END { printf "bench: (verify + scan) / zcat = %.2f CPU   (one core, CPU: the goal below is wall time on every core)\n", (c[1] + c[2]) / c[3] }'
if [ -n "${SCAN_BEFORE:-}" ]; then
  tail -1 "$D/scan0.out" | sed 's/^/bench: before: /'
  echo "$bt" | awk -v b="$SCAN_BEFORE" '{ printf "bench: scan, before (%s) %6.2f s wall, %6.2f s CPU\n", b, $1, $2 + $3 }'
  echo "$st2" | awk '{ printf "bench: scan, this build, again      %6.2f s wall, %6.2f s CPU\n", $1, $2 + $3 }'
fi
# issue 32: the whole verification (scan included) on every core (--jobs
# default), against the floor: every raw file merely decompressed, as
#   for f in results/raw/*/*.gz; do gzip -dc "$f"; done | wc -c
# measured side by side (floor, verify, floor, verify: the machine is
# shared), the ratio of the sums of wall times (target <= 2)
floor() { ( cd "$D" && for f in results/raw/*/*.gz; do gzip -dc "$f"; done | wc -c >/dev/null ); }
f1=$( { time floor; } 2>&1 )
w1=$( { time "$B/verify" --root "$D" --out "$D/verified-jobs.json" >"$D/jobs.out" 2>&1; } 2>&1 )
f2=$( { time floor; } 2>&1 )
w2=$( { time "$B/verify" --root "$D" --out "$D/verified-jobs.json" >"$D/jobs.out" 2>&1; } 2>&1 )
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
printf '%s\n%s\n%s\n%s\n' "$f1" "$w1" "$f2" "$w2" | awk -v j="$jobs" '
  { w[NR] = $1; c[NR] = $2 + $3 }
  END { printf "bench: verify (scan included, --jobs %d) %.2f, %.2f s wall (%.2f, %.2f s CPU); decompression floor %.2f, %.2f s wall; ratio %.2f (target <= 2)\n",
               j, w[2], w[4], c[2], c[4], w[1], w[3], (w[2] + w[4]) / (w[1] + w[3]) }'
tail -1 "$D/jobs.out" | sed 's/^/bench: verify --jobs: /'
$PIN "$B/ap_flood" 0.015
$PIN "$B/ap_flood" 0.3
