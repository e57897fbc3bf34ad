#!/usr/bin/env bash
# make bench: the lab's speed figures, printed with the command that measured
# them.  Figures, not pass/fail: this 2-core machine is shared and noisy, so
# compare the numbers printed side by side in one run.
set -euo pipefail
cd "$(dirname "$0")/../.."
core=${BENCH_CORE:-1}
echo "bench: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), pinned to core $core"

echo
echo "== make prepare, full-size generated shop (target: under 60 s), per step"
echo "\$ taskset -c $core build/bin/prepare --prep build/bench/prep --prov build/bench/prov"
rm -rf build/bench && mkdir -p build/bench
taskset -c "$core" build/bin/prepare --prep build/bench/prep --prov build/bench/prov | grep -v registered

echo
echo "== scoring one row: XGBoost's predict vs a tree walker vs the branch-free evaluator"
echo "\$ taskset -c $core build/bin/bench_trees build/bench/prep/model.json"
taskset -c "$core" build/bin/bench_trees build/bench/prep/model.json

echo
echo "== the invariants' assert()s cost the measured build nothing: play built twice from the same sources,"
echo "   with -DNDEBUG (as make build) and without (as the tests' build/tlab), H4-r2 over 200 seeds, best of 3 each"
pf="-std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Ilab/base -Ilab/core -Ilab/play"
psrc=$(ls lab/play/*.c lab/base/*.c lab/core/*.c)
echo "\$ gcc $pf [-DNDEBUG] lab/play/*.c lab/base/*.c lab/core/*.c -o build/bench/play-{ndebug,assert}"
${CC:-gcc} $pf -DNDEBUG $psrc -o build/bench/play-ndebug -ljansson -lcrypto -lz -lm &
${CC:-gcc} $pf $psrc -o build/bench/play-assert -ljansson -lcrypto -lz -lm
wait
echo "\$ taskset -c $core build/bench/play-{ndebug,assert} --arm H4-r2 --seeds 1-200 --summary"
best() { # the best wall time of 3 runs, and the run's figures (the same for both builds or it fails)
  local b=1e9 t0 t1
  for _ in 1 2 3; do
    t0=$(date +%s.%N); taskset -c "$core" "$1" --arm H4-r2 --seeds 1-200 --summary | grep -v '^simulated' > "$1.out"
    t1=$(date +%s.%N); b=$(awk -v a="$t0" -v c="$t1" -v b="$b" 'BEGIN { d = c - a; print (d < b ? d : b) }')
  done
  echo "$b"
}
tn=$(best build/bench/play-ndebug); ta=$(best build/bench/play-assert)
cmp -s build/bench/play-ndebug.out build/bench/play-assert.out || { echo "play: the two builds print different figures"; exit 1; }
[ "$(nm -D build/bench/play-ndebug | grep -c __assert_fail)" = 0 ] || { echo "play-ndebug calls assert()"; exit 1; }
awk -v n="$tn" -v a="$ta" 'BEGIN { printf "play H4-r2, 200 seeds: with -DNDEBUG %.3f s, with the asserts %.3f s (%.2fx); the same figures\n", n, a, a / n }'

echo
echo "== S: the most answers a second, store at no wait (Z-capacity, closed loop, 16 connections),"
echo "   tester, service and store on one core (target: at least 30,000/s)"
echo "\$ build/bin/run --arm Z-capacity --round 1 --seconds 10 --cores $core --gate 1 --raw build/bench/raw"
build/bin/run --arm Z-capacity --round 1 --seconds 10 --cores "$core" --gate "${BENCH_GATE:-1}" --raw build/bench/raw >/dev/null
build/bin/bench_run build/bench/raw/Z-capacity-r1 | tee build/bench/S.txt
echo "   beside it, the floor: the same tester (closed loop, 16 connections, 10 s) against a bare responder"
echo "   on the same core (tests/bench/bench_bare.c: HTTP/1.1 keep-alive, the answer's JSON, no store, no model)"
echo "\$ taskset -c $core build/bin/bench_bare 18556 13 & taskset -c $core build/bin/tester --port 18556 --rate max --seconds 10 ..."
taskset -c "$core" build/bin/bench_bare 18556 13 > build/bench/bare.txt &
bare_pid=$!
sleep 0.5
taskset -c "$core" build/bin/tester --port 18556 --rate max --seconds 10 --seed 1 --rows 1000 --gate 0 --drain-s 1 \
    --out build/bench/bare.tsv.gz --summary build/bench/bare.json > /dev/null
wait "$bare_pid"
bare=$(jq '.answered / .seconds' build/bench/bare.json)
S=$(sed -n 's/.* = \([0-9]*\) answers\/s$/\1/p' build/bench/S.txt)
awk -v s="$S" -v b="$bare" 'BEGIN { printf "S %.0f answers/s against the bare responder %.0f answers/s on the same core: S is %.2f of the floor\n", s, b, s / b }'
echo "   for scale: a re-creation of the lesson's Python service (FastAPI, store in-process) gives about"
echo "   1,150 answers/s on this machine's single core; the design's C prototype about 36,000/s"

echo
echo "== open loop at 450/s with freezes and a 25 ms stand-in (H4-fb25), 20 s, one core:"
echo "   the tester's lateness (target: p99 under 200 us) and the service's memory (target: under 64 MB)"
echo "\$ build/bin/run --arm H4-fb25 --round 1 --seconds 20 --cores $core --gate 1 --raw build/bench/raw"
build/bin/run --arm H4-fb25 --round 1 --seconds 20 --cores "$core" --gate "${BENCH_GATE:-1}" --raw build/bench/raw >/dev/null
build/bin/bench_run build/bench/raw/H4-fb25-r1
echo "   side by side, the floor under it: this machine's own timer lateness on the same core, nothing else running"
echo "\$ taskset -c $core build/bin/bench_sleep 450 20"
taskset -c "$core" build/bin/bench_sleep 450 20

echo
echo "== make collect on a large study (target for a full study of about 1.2 million requests: under 60 s):"
echo "   100 copies of the 20 s H4-fb25 run above (0.9 million requests and as many lookups), loaded with COPY"
rm -rf build/bench/study && mkdir -p build/bench/study/results/raw build/bench/study/results/reference
cp build/prep/scores.tsv build/prep/summary.json build/bench/study/results/reference/   # the runs' reference ("=" scores)
for i in $(seq 1 100); do
  d=build/bench/study/results/raw/H4-fb25-r$i
  cp -r build/bench/raw/H4-fb25-r1 "$d"   # run.json keeps round 1: raw format 4 decodes with its round's schedule
done
# side by side with its floor, COPY of the same rows alone (tests/bench/bench_collect.sh;
# the published study's: make bench-collect)
bash tests/bench/bench_collect.sh build/bench/study build/bench/pg
