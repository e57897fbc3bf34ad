#!/bin/bash
# make fuzz: every harness for SECONDS seconds, one after another, pinned to
# one core (taskset, when there is one) and niced.
#   run.sh SECONDS CORE BUILD_FUZZ_DIR NAME...
# New inputs go to BUILD/<name>/corpus (the committed seeds in
# tests/fuzz/corpus/<name> are read, never written; tests/fuzz/dict/<name>.dict
# is given when there is one); a crash, leak or
# sanitizer report is written to BUILD/<name>/ (crash-*, leak-*, ...) and
# named at the end.  Each harness's last libFuzzer line (executions, cov:,
# ft:, exec/s) is printed in a table.  Exit 1 when any harness failed.
set -u
secs=$1 core=$2 out=$3
shift 3
pin=()
if command -v taskset >/dev/null && taskset -c "$core" true 2>/dev/null; then
    pin=(taskset -c "$core")
fi
failed=()
summary=()
for name in "$@"; do
    dir=$out/$name
    mkdir -p "$dir/corpus"
    echo "fuzz: $name for $secs s${pin:+ on core $core}" >&2
    dict=()
    [ -f "tests/fuzz/dict/$name.dict" ] && dict=(-dict="tests/fuzz/dict/$name.dict")
    nice -n 10 "${pin[@]}" "$out/bin/fuzz_$name" "$dir/corpus" "tests/fuzz/corpus/$name" "${dict[@]}" \
        -max_total_time="$secs" -artifact_prefix="$dir/" -print_final_stats=1 >"$dir/log" 2>&1
    rc=$?
    last=$(grep -E '^#[0-9]+' "$dir/log" | tail -1)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log")
    cov=$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\) .*/\1/p' <<<"$last")
    summary+=("$(printf '%-12s %8s %12s %10s %8s %8s' "$name" "$secs" "${runs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}")")
    if [ $rc -ne 0 ]; then
        failed+=("$name")
        echo "fuzz: $name FAILED (exit $rc): $(ls "$dir" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | tr '\n' ' ')" >&2
        grep -E 'ERROR|SUMMARY|property failed' "$dir/log" | head -5 >&2
    fi
done
printf '%-12s %8s %12s %10s %8s %8s\n' harness seconds executions exec/s cov ft
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: failed: ${failed[*]} (inputs and logs in $out/<name>/)"
    exit 1
fi
echo "fuzz: no crash in $# harnesses"
