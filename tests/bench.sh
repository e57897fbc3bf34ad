#!/usr/bin/env bash
# make bench: the lab's speed figures, printed with the command that measured
# them.  Figures, not pass/fail: this 2-core machine is shared and noisy, so
# compare the numbers printed side by side in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
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
