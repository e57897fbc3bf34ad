#!/usr/bin/env bash
# make bench-raw: raw format 4's size, side by side with the processes' ns
# logs it is rewritten from (format 3's encoding), per run of a few arms;
# figures, not pass/fail.  Each run prints one line (lab/run/run.c): its
# requests, the bytes of the tester's, service's and store's logs and of
# their format 4 files, and the rewrite's wall time.  The idle gate is off
# by default (BENCH_GATE=1 to switch it on): sizes, not speeds.
set -euo pipefail
cd "$(dirname "$0")/../.."
core=${BENCH_CORE:-1}
secs=${BENCH_RAW_SECONDS:-15}
cap_secs=${BENCH_RAW_CAPACITY_SECONDS:-2}
out=build/bench/raw4
rm -rf "$out" && mkdir -p "$out"
echo "bench-raw: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), pinned to core $core"
printf '%-14s %5s %9s | %11s %7s | %11s %7s | %6s | %9s %7s | %8s\n' arm s requests "logs B" "B/req" "format 4 B" \
  "B/req" "ratio" "+other B" "B/req" "rewrite"
for spec in "H3-none $secs" "H4-r2 $secs" "H3-r2-down $secs" "Z-capacity $cap_secs"; do
  set -- $spec
  arm=$1 s=$2
  line=$(build/bin/run --arm "$arm" --round 1 --seconds "$s" --cores "$core" --gate "${BENCH_GATE:-0}" \
           --raw "$out" | grep 'raw format 4:')
  # run: NAME raw format 4: N requests, logs X B (..), files Y B (..), rewrite Z s
  read -r n lb ob rw < <(echo "$line" | sed -E 's/.*: ([0-9]+) requests, logs ([0-9]+) B .*files ([0-9]+) B .*rewrite ([0-9.]+) s/\1 \2 \3 \4/')
  other=$(stat -c %s "$out/$arm-r1/events.tsv.gz" "$out/$arm-r1/machine.tsv.gz" | awk '{ t += $1 } END { print t }')
  awk -v a="$arm" -v s="$s" -v n="$n" -v lb="$lb" -v ob="$ob" -v o="$other" -v rw="$rw" 'BEGIN {
    printf "%-14s %5s %9d | %11d %7.1f | %11d %7.1f | %6.2f | %9d %7.1f | %7.3fs\n", a, s, n, lb, lb / n, ob, ob / n,
      ob / lb, ob + o, (ob + o) / n, rw }'
done
echo "(logs: the processes' own files, gzip 6, every instant in ns; format 4: gzip 9, what the run keeps;"
echo " +other: format 4 with events.tsv.gz and machine.tsv.gz, the run's whole raw data)"
