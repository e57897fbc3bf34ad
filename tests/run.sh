#!/usr/bin/env bash
# The runner of build/bin/tests for make test: every test exactly once, the
# ones that must be alone alone, the rest on lanes side by side.
#
#   tests/run.sh [--beside CMD] [TESTS_BIN]  (default build/bin/tests)
#   tests/run.sh --plan [TESTS_BIN] each test's part (lane1 ... laneN, alone), nothing run
#
# The rule.  A test that measures time, load or a quiet machine (a real
# store, service, tester, run or measure whose timing, lateness, timeouts or
# quiet rules it asserts; a machine-wide probe such as nice or /proc/stat)
# is marked in tests/alone.tsv and runs alone: nothing else of make test runs
# beside it, so no neighbour of ours disturbs what it measures.  Every other
# test is run on one of the lanes, which run side by side; each lane is one
# `build/bin/tests --jobs 1`, so the tests of one lane never overlap.  The
# lane tests mostly wait (a tiny study's runs last their seconds, a fake
# machine answers over ssh, the aws client starts): one used a third of a
# core or less (measure/tiny_runs_...: 10 s of CPU in 30 s; a cloud walk:
# about half a core), so there are more lanes than the 2 cores (N, below).
# tests/lanes.tsv names the lane (1 ... N-1) of some tests; lane N runs
# everything else, the complement, so a new test is always run (on lane N
# unless it is marked).  A suite whose tests share a fixed resource among
# their own tests (a PostgreSQL cluster under build/, a login user) is kept
# whole on one lane, so that those run one after another.  A new test that
# measures time must be added to tests/alone.tsv.
#
# The lanes first (side by side), then the alone tests one after another.
# --beside CMD runs the shell command CMD beside the lanes, as one more part
# (make test's phases that measure no time and that no test here needs:
# the Makefile's test-beside); the alone tests start only once it has ended
# too, so nothing runs beside them either.
# A pattern of either list that matches no test is refused (the lists
# cannot rot); a test that alone.tsv and a lane name runs alone, one that
# two lanes name runs on the first of them.  Each part's output is
# printed when it ends (the lanes' after all of them), with its wall time;
# then the slowest tests (their times from Criterion's --xml, in
# build/tests-run/).
# Exit 0 when every part passed.
set -uo pipefail
plan=0 beside=
while :; do
    case ${1:-} in
        --plan) plan=1; shift ;;
        --beside) beside=${2:?tests/run.sh: --beside needs a command}; shift 2 ;;
        *) break ;;
    esac
done
bin=${1:-build/bin/tests}
here=$(cd "$(dirname "$0")" && pwd)
log=$(dirname "$bin")/../tests-run
mkdir -p "$log"

# every test's full name, suite/test (Criterion's list, in ASCII)
names=$(LC_ALL=C "$bin" --list 2>&1 | awk '/^[a-z0-9_]+: [0-9]+ tests?$/ { s = $1; sub(/:$/, "", s); next }
    /^[|`]-- / { print s "/" substr($0, 5) }')
[[ -n $names ]] || { echo "tests/run.sh: $bin --list gave no test" >&2; exit 1; }

# the patterns of a list (first column; # comments and empty lines skipped),
# or of lanes.tsv's lane $2 (its second column)
patterns() { awk -F'\t' -v l="${2:-}" '!/^#/ && NF && $1 != "pattern" && (l == "" || $2 == l) { print $1 }' "$1"; }

# the names matching any pattern of a list (bash glob, as Criterion's)
match() {
    local list=$1 p n bad=0
    local -a pats
    mapfile -t pats < <(patterns "$list" "${2:-}")
    for p in "${pats[@]}"; do
        local hit=0
        while IFS= read -r n; do
            # shellcheck disable=SC2053
            if [[ $n == $p ]]; then echo "$n"; hit=1; fi
        done <<< "$names"
        if ((hit == 0)); then echo "tests/run.sh: $list: '$p' matches no test" >&2; bad=1; fi
    done
    return $bad
}

lanes_tsv=$here/lanes.tsv
# the lanes: lanes.tsv's lane column names 1 ... N-1 (whole numbers), lane N the rest
nl=$(awk -F'\t' '!/^#/ && NF && $1 != "pattern" { if ($2 !~ /^[1-9][0-9]*$/) { bad = 1; print "tests/run.sh: lanes.tsv: " $1 ": lane \"" $2 "\" is not 1, 2, ..." > "/dev/stderr" }
    if ($2 + 0 > m) m = $2 + 0 } END { if (bad) exit 1; print m + 1 }' "$lanes_tsv") || exit 1
alone=$(match "$here/alone.tsv" | LC_ALL=C sort -u) || exit 1
# a Criterion filter naming these tests: @(a|b|...), a suite whose every
# test is named written once as suite/* (Criterion's extended glob takes at
# most 99 alternatives: it aborts or crashes at 100; refused here)
filt() {
    [[ -n $1 ]] || { echo "@()"; return; }
    local alts
    alts=$(awk -F/ 'NR == FNR { all[$1]++; next } NF { s[$1]++; n[$1, s[$1]] = $0 }
        END { for (k in s) if (s[k] == all[k]) print k "/*"; else for (i = 1; i <= s[k]; i++) print n[k, i] }' \
        <(echo "$names") <(echo "$1") | LC_ALL=C sort)
    if (($(wc -l <<< "$alts") > 99)); then
        echo "tests/run.sh: a part of $(wc -l <<< "$alts") suites and single tests: Criterion's --filter takes at most 99" >&2
        return 1
    fi
    echo "@($(paste -sd'|' <<< "$alts"))"
}
declare -a lane f_lane n_lane
taken=$alone # the tests of alone and of the lanes so far
for ((i = 1; i < nl; i++)); do
    l=$(match "$lanes_tsv" "$i" | LC_ALL=C sort -u) || exit 1
    # alone wins, then the first lane that names a test (a glob may name the rest of a suite)
    l=$(LC_ALL=C comm -23 <(echo "$l") <(echo "$taken") | sed '/^$/d')
    lane[i]=$l
    taken=$(printf '%s\n%s\n' "$taken" "$l" | sed '/^$/d' | LC_ALL=C sort -u)
done
lane[nl]=$(LC_ALL=C comm -23 <(LC_ALL=C sort <<< "$names") <(echo "$taken"))
f_alone=$(filt "$alone") || exit 1
for ((i = 1; i <= nl; i++)); do
    f_lane[i]=$(filt "${lane[i]}") || exit 1
    n_lane[i]=$(sed '/^$/d' <<< "${lane[i]}" | wc -l)
done
n_all=$(wc -l <<< "$names")
n_alone=$(sed '/^$/d' <<< "$alone" | wc -l)

if ((plan)); then
    sed '/^$/d; s/^/alone /' <<< "$alone"
    for ((i = 1; i <= nl; i++)); do sed "/^\$/d; s/^/lane$i /" <<< "${lane[i]}"; done
    exit 0
fi

echo "tests/run.sh: $n_all tests: $(for ((i = 1; i <= nl; i++)); do printf '%s on lane %d, ' "${n_lane[i]}" "$i"; done)" \
    "the $nl lanes side by side${beside:+ (beside them: $beside)}, then $n_alone alone (tests/alone.tsv)"

part() { # name filter: one serial Criterion run, its output in $log/name.log, its times in $log/name.xml
    local name=$1 t0=$SECONDS rc
    "$bin" --jobs 1 --xml="$log/$name.xml" --filter "$2" > "$log/$name.log" 2>&1
    rc=$?
    echo "$rc $((SECONDS - t0))" > "$log/$name.rc"
}
show() { # name: the part's whole output (the tests' own lines, failures, synthesis) and its wall time
    local name=$1 rc s
    read -r rc s < "$log/$name.rc"
    echo "==== $name ($s s, exit $rc)"
    cat "$log/$name.log"
    return "$rc"
}
rm -f "$log"/lane[0-9]*.* "$log"/alone.* "$log"/beside.* # an earlier run's parts (another number of lanes) are not this run's
t0=$SECONDS
declare -a pids
for ((i = 1; i <= nl; i++)); do
    part "lane$i" "${f_lane[i]}" &
    pids[i]=$!
done
if [[ -n $beside ]]; then
    (
        tb=$SECONDS
        bash -c "$beside" > "$log/beside.log" 2>&1
        echo "$? $((SECONDS - tb))" > "$log/beside.rc"
    ) &
    pids+=($!)
fi
wait "${pids[@]}"
echo "tests/run.sh: the $nl lanes${beside:+ and the part beside them} in $((SECONDS - t0)) s"
part alone "$f_alone"
bad=0
for ((i = 1; i <= nl; i++)); do show "lane$i" || bad=1; done
[[ -z $beside ]] || show beside || bad=1
show alone || bad=1
echo "tests/run.sh: the slowest tests (s):"
cat "$log"/*.xml | awk '/<testsuite / { match($0, /name="[^"]*"/); s = substr($0, RSTART + 6, RLENGTH - 7) }
    /<testcase / && !/SKIPPED/ { match($0, /name="[^"]*"/); n = substr($0, RSTART + 6, RLENGTH - 7)
        match($0, /time="[^"]*"/); print substr($0, RSTART + 6, RLENGTH - 7), s "/" n }' | sort -rn | head -15
echo "tests/run.sh: every test in $((SECONDS - t0)) s (each test's time: $log/*.log)"
exit $bad
