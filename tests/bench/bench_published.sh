#!/usr/bin/env bash
# make bench-published: the committed study as an auditor meets it (issue 33,
# item 5).  Two figures, printed with how they were measured:
# - the verifier alone on this checkout (`verify/build/verify --root .`, every
#   core, the scan included; its verified.json under build/bench/, so the
#   committed one is left as it is) against two floors of merely
#   decompressing the study's raw files, side by side twice, as ratios of
#   the sums of wall times (target: at most 2): the issues' own floor (`for
#   f in results/raw/*/*.gz; do gzip -dc "$f"; done | wc -c`, a gzip process
#   a file, as issue 32 defines it) and a stricter one (one gzip process for
#   every .gz under results/raw/ and results/attempts/, which the verifier
#   reads too);
# - the committed raw files' bytes per open-loop request: the .gz files of the
#   open-loop runs (run.json's rate above 0) over those runs' requests
#   (run.json's `requests`), target at most 20; and all raw bytes committed
#   (every run, the closed-loop capacity arm and the kept attempts included).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -f results/verified.json ]; then
  echo "bench-published: skipped, no study committed (results/verified.json absent)"
  exit 0
fi
make -s -C verify >/dev/null
mkdir -p build/bench
TIMEFORMAT='%R %U %S'
floor_each() { for f in results/raw/*/*.gz; do gzip -dc "$f"; done | wc -c >/dev/null; }
floor_one() { find results/raw results/attempts -name '*.gz' -print0 | sort -z | xargs -0 gzip -dc | wc -c >/dev/null; }
audit() { verify/build/verify --root . --out build/bench/verified-published.json > build/bench/verify-published.out 2>&1; }
echo "\$ for f in results/raw/*/*.gz; do gzip -dc \"\$f\"; done | wc -c   beside   find results/raw results/attempts -name '*.gz' | xargs gzip -dc | wc -c   beside   verify/build/verify --root . --out build/bench/verified-published.json"
e1=$( { time floor_each; } 2>&1 )
f1=$( { time floor_one; } 2>&1 )
w1=$( { time audit; } 2>&1 ) || { tail -5 build/bench/verify-published.out; exit 1; }
e2=$( { time floor_each; } 2>&1 )
f2=$( { time floor_one; } 2>&1 )
w2=$( { time audit; } 2>&1 ) || { tail -5 build/bench/verify-published.out; exit 1; }
tail -1 build/bench/verify-published.out | sed 's/^/verify: /'
printf '%s\n%s\n%s\n%s\n%s\n%s\n' "$e1" "$f1" "$w1" "$e2" "$f2" "$w2" | awk '
  { w[NR] = $1; c[NR] = $2 + $3 }
  END { printf "the published study: verify %.2f, %.2f s wall (%.2f, %.2f s CPU)\n", w[3], w[6], c[3], c[6]
        printf "  against the issues'"'"' floor (a gzip a file, results/raw/) %.2f, %.2f s wall: ratio %.2f (target <= 2)\n",
               w[1], w[4], (w[3] + w[6]) / (w[1] + w[4])
        printf "  against one gzip for every raw and attempt file %.2f, %.2f s wall: ratio %.2f\n",
               w[2], w[5], (w[3] + w[6]) / (w[2] + w[5]) }'
# bytes per open-loop request, from each run's own record
open_bytes=0 open_req=0 open_runs=0
for d in results/raw/*/; do
  rq=$(jq -r 'if .rate > 0 then .requests else 0 end' "$d/run.json")
  [ "$rq" -gt 0 ] || continue
  b=$(find "$d" -name '*.gz' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  open_bytes=$((open_bytes + b)); open_req=$((open_req + rq)); open_runs=$((open_runs + 1))
done
all=$(find results/raw results/attempts -name '*.gz' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
awk -v b="$open_bytes" -v q="$open_req" -v n="$open_runs" -v a="$all" 'BEGIN {
  printf "the published study: raw files of its %d open-loop runs %.1f MB for %d requests: %.1f bytes a request (target <= 20); all raw files committed (runs, capacity arm, kept attempts) %.1f MB\n",
         n, b / 1e6, q, (q ? b / q : 0), a / 1e6 }'
