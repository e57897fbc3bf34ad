#!/usr/bin/env bash
# The runner of build/bin/tests for make test: every test exactly once, the
# ones that must be alone alone, the rest on two lanes at once.
#
#   tests/run.sh [TESTS_BIN]        (default build/bin/tests)
#   tests/run.sh --plan [TESTS_BIN] each test's part (lane1, lane2, alone), nothing run
#
# The rule.  A test that measures time, load or a quiet machine (a real
# store, service, tester, run or measure whose timing, lateness, timeouts or
# quiet rules it asserts; a machine-wide probe such as nice or /proc/stat)
# is marked in tests/alone.tsv and runs alone: nothing else of make test runs
# beside it, so no neighbour of ours disturbs what it measures.  Every other
# test is run on one of two lanes that run side by side on the 2 cores; each
# lane is one `build/bin/tests --jobs 1`, so the tests of one lane never
# overlap.  tests/lanes.tsv puts whole suites that share a fixed resource
# among their own tests (a PostgreSQL cluster under build/, a login user)
# on lane 1, together, so that those run one after another; lane 2 runs
# everything else, the complement, so a new test is always run (on lane 2
# unless it is marked).  A new test that measures time must be added to
# tests/alone.tsv.
#
# The lanes first (side by side), then the alone tests one after another.
# A pattern of either list that matches no test is refused (the lists
# cannot rot).  Each part's output is printed when it ends (the lanes'
# after both), with its wall time; then the slowest tests (their times
# from Criterion's --xml, in build/tests-run/).
# Exit 0 when every part passed.
set -uo pipefail
plan=0
[[ ${1:-} == --plan ]] && { plan=1; shift; }
bin=${1:-build/bin/tests}
here=$(cd "$(dirname "$0")" && pwd)
log=$(dirname "$bin")/../tests-run
mkdir -p "$log"

# every test's full name, suite/test (Criterion's list, in ASCII)
names=$(LC_ALL=C "$bin" --list 2>&1 | awk '/^[a-z0-9_]+: [0-9]+ tests?$/ { s = $1; sub(/:$/, "", s); next }
    /^[|`]-- / { print s "/" substr($0, 5) }')
[[ -n $names ]] || { echo "tests/run.sh: $bin --list gave no test" >&2; exit 1; }

# the patterns of a list (first column; # comments and empty lines skipped)
patterns() { awk -F'\t' '!/^#/ && NF && $1 != "pattern" { print $1 }' "$1"; }

# the names matching any pattern of a list (bash glob, as Criterion's)
match() {
    local list=$1 p n bad=0
    local -a pats
    mapfile -t pats < <(patterns "$list")
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

alone=$(match "$here/alone.tsv" | LC_ALL=C sort -u) || exit 1
lane1=$(match "$here/lanes.tsv" | LC_ALL=C sort -u) || exit 1
lane1=$(LC_ALL=C comm -23 <(echo "$lane1") <(echo "$alone")) # alone wins
# a Criterion filter naming these tests: @(a|b|...)
filt() { [[ -n $1 ]] && echo "@($(paste -sd'|' <<< "$1"))" || echo "@()"; }
f_alone=$(filt "$alone")
f_lane1=$(filt "$lane1")
f_lane2="!($(filt "$(printf '%s\n%s\n' "$alone" "$lane1" | sed '/^$/d')"))"
n_all=$(wc -l <<< "$names")
n_alone=$(sed '/^$/d' <<< "$alone" | wc -l)
n_lane1=$(sed '/^$/d' <<< "$lane1" | wc -l)

if ((plan)); then
    sed '/^$/d; s/^/alone /' <<< "$alone"
    sed '/^$/d; s/^/lane1 /' <<< "$lane1"
    LC_ALL=C comm -23 <(LC_ALL=C sort <<< "$names") <(printf '%s\n%s\n' "$alone" "$lane1" | sed '/^$/d' | LC_ALL=C sort) | sed 's/^/lane2 /'
    exit 0
fi

echo "tests/run.sh: $n_all tests: $n_lane1 on lane 1 and $((n_all - n_alone - n_lane1)) on lane 2 side by side," \
    "then $n_alone alone (tests/alone.tsv)"

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
t0=$SECONDS
part lane1 "$f_lane1" &
p1=$!
part lane2 "$f_lane2" &
p2=$!
wait $p1 $p2
echo "tests/run.sh: the two lanes in $((SECONDS - t0)) s"
part alone "$f_alone"
bad=0
for n in lane1 lane2 alone; do show $n || bad=1; done
echo "tests/run.sh: the slowest tests (s):"
cat "$log"/*.xml | awk '/<testsuite / { match($0, /name="[^"]*"/); s = substr($0, RSTART + 6, RLENGTH - 7) }
    /<testcase / && !/SKIPPED/ { match($0, /name="[^"]*"/); n = substr($0, RSTART + 6, RLENGTH - 7)
        match($0, /time="[^"]*"/); print substr($0, RSTART + 6, RLENGTH - 7), s "/" n }' | sort -rn | head -15
echo "tests/run.sh: every test in $((SECONDS - t0)) s (each test's time: $log/*.log)"
exit $bad
