#!/usr/bin/env bash
# forge_design.sh ROOT [VERIFY-OPTION ...]: the three forgeries of issue 27
# against a real study (one made by `make quick`, registered with
# data/profiles.tsv: pipeline/RESULTS.md, "The schedule is the design as
# run"), each of which only the verifier's design check can catch.
#
# ROOT is copied to three temporary folders (ROOT itself is never written).
# In each copy one forgery is made, with the manifest rewritten so that the
# fingerprints agree (the registration, provenance/prereg.json, is not
# touched: the forger has no way to change what was registered):
#   (a) the last round dropped: its lines leave results/schedule.tsv (k
#       numbered again, line 1's R lowered), its run and attempt folders,
#       records and manifest lines go;
#   (b) the first run's seconds doubled in results/schedule.tsv (format 2:
#       the line's seconds), in its run.json and in its record, the
#       manifest's line of run.json rewritten;
#   (c) an arm added: a copy of the first run's folder as FORGED-r<round>
#       (run.json's arm FORGED), a line for it at the end of its round in
#       results/schedule.tsv, its files added to the manifest.
# Each copy is verified (build/verify --root COPY --no-scan, the options
# given passed on; --no-scan is the one option that saves time, the raw
# files are all read) and must be refused with a mismatch counted in
# verified.json's checks.design and naming the run forged.  One line per
# forgery; exit 0 only when all three are refused, 1 otherwise, 2 when ROOT
# is not a study registered with a design (or a tool is missing).
#
# VERIFY (environment) overrides the verifier's path (default: build/verify
# next to this folder).  Needs bash, jq, awk, sha256sum, cp.
set -u

die() { echo "forge_design.sh: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: forge_design.sh ROOT [VERIFY-OPTION ...]"
ROOT=$1
shift
HERE=$(cd "$(dirname "$0")" && pwd)
VERIFY=${VERIFY:-$HERE/../build/verify}
for t in jq awk sha256sum cp; do command -v "$t" >/dev/null || die "$t not found"; done
[ -x "$VERIFY" ] || die "$VERIFY not found (make -C verify)"
[ -f "$ROOT/results/schedule.tsv" ] || die "$ROOT/results/schedule.tsv not found"
[ -f "$ROOT/provenance/prereg.json" ] || die "$ROOT/provenance/prereg.json not found"
jq -e '[.files[].path] | index("data/profiles.tsv") != null' "$ROOT/provenance/prereg.json" >/dev/null ||
    die "$ROOT/provenance/prereg.json does not list data/profiles.tsv: a study registered before the design cannot be held to one"

TMP=$(mktemp -d /tmp/forge-design-XXXXXX) || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT

SCHED=results/schedule.tsv
MAN=provenance/manifest-measure.tsv
FORMAT=$(head -1 "$ROOT/$SCHED" | sed -n 's/^# lab-schedule \([0-9]\): .*/\1/p')
[ -n "$FORMAT" ] || die "$ROOT/$SCHED: line 1 is not a lab-schedule line"
R=$(head -1 "$ROOT/$SCHED" | sed -n 's/^# lab-schedule [0-9]: profile [^,]*, \([0-9]*\) rounds.*/\1/p')
[ -n "$R" ] || die "$ROOT/$SCHED: line 1 names no rounds"

copy() { cp -a "$ROOT" "$TMP/$1" || die "cannot copy $ROOT"; echo "$TMP/$1"; }

# the manifest line of one file, rewritten to its size and sha256 now
manifest_set() { # root relpath
    local size sha
    size=$(stat -c %s "$1/$2") && sha=$(sha256sum "$1/$2" | cut -d' ' -f1) || return 1
    awk -F'\t' -v OFS='\t' -v p="$2" -v s="$size" -v h="$sha" '
        NR == 1 { print; next }
        $1 == p { print p, s, h; done = 1; next }
        { print }
        END { if (!done) print p, s, h }' "$1/$MAN" >"$1/$MAN.new" && mv "$1/$MAN.new" "$1/$MAN"
}

# a JSON file's member set to a JSON value
json_set() { # file key value
    jq --argjson v "$3" ".$2 = \$v" "$1" >"$1.new" && mv "$1.new" "$1"
}

# k numbered again 1, 2, ... in file order
renumber() { # file
    awk -F'\t' -v OFS='\t' 'NR <= 2 { print; next } { $1 = ++k; print }' "$1" >"$1.new" && mv "$1.new" "$1"
}

# verify one copy: "refused" when checks.design counts a mismatch and a
# MISMATCH line names the run; prints the line of the forgery
FAILED=0
judge() { # label dir run
    local out rc design line
    out=$("$VERIFY" --root "$2" --no-scan --max-print 0 --out "$2/verified-forged.json" "${@:4}" 2>&1)
    rc=$?
    design=$(jq -r '.checks.design.mismatches // "null"' "$2/verified-forged.json" 2>/dev/null || echo null)
    line=$(printf '%s\n' "$out" | grep '^MISMATCH results/schedule.tsv' | grep -F -- "$3" | head -1)
    if [ "$rc" = 1 ] && [ "$design" != null ] && [ "$design" -gt 0 ] && [ -n "$line" ]; then
        echo "forgery $1: refused (verify exit $rc, checks.design.mismatches $design): $line"
    else
        echo "forgery $1: NOT refused by the design check (verify exit $rc, checks.design.mismatches $design)"
        printf '%s\n' "$out" | grep -E '^(MISMATCH|NOTE|verify:)' | head -5 | sed 's/^/    /'
        FAILED=1
    fi
}

# the original first: the design check passes there (else proving nothing)
base=$("$VERIFY" --root "$ROOT" --no-scan --max-print 0 --out "$TMP/verified-original.json" "$@" 2>&1)
bd=$(jq -r '.checks.design.mismatches // "null"' "$TMP/verified-original.json" 2>/dev/null || echo null)
if [ "$bd" != 0 ]; then
    echo "the original study: checks.design.mismatches $bd (not 0): the forgeries would prove nothing"
    printf '%s\n' "$base" | grep '^MISMATCH' | head -5 | sed 's/^/    /'
    exit 1
fi
echo "the original study: checks.design.mismatches 0"

# (a) the last round dropped
A=$(copy a)
gone=$(awk -F'\t' -v r="$R" 'NR > 2 && $2 == r { print $4 "-r" $2 }' "$A/$SCHED")
first_gone=$(printf '%s\n' "$gone" | head -1)
awk -F'\t' -v r="$R" 'NR > 2 && $2 == r { next } { print }' "$A/$SCHED" >"$A/$SCHED.new" && mv "$A/$SCHED.new" "$A/$SCHED"
renumber "$A/$SCHED"
sed -i "1s/, $R rounds/, $((R - 1)) rounds/" "$A/$SCHED"
for run in $gone; do
    rm -rf "$A/results/raw/$run" "$A/results/attempts/$run"-a* "$A/provenance/runs/$run.json" \
        "$A/provenance/runs/$run".attempt-*.json
done
awk -F'\t' -v list="$(echo $gone)" '
    BEGIN { n = split(list, g, " "); for (i = 1; i <= n; i++) drop["results/raw/" g[i] "/"] = 1 }
    NR == 1 { print; next }
    { p = $1; sub(/[^\/]*$/, "", p); q = p; sub(/-a[0-9]+\/$/, "/", q); sub(/^results\/attempts\//, "results/raw/", q)
      if (!(p in drop) && !(q in drop)) print }' "$A/$MAN" >"$A/$MAN.new" && mv "$A/$MAN.new" "$A/$MAN"
judge "(a) round $R dropped" "$A" "$first_gone" "$@"

# (b) the first run's seconds doubled
B=$(copy b)
read -r brun bsec < <(awk -F'\t' 'NR == 3 { print $4 "-r" $2, (NF >= 5 ? $5 : "") }' "$B/$SCHED")
if [ "$FORMAT" != 2 ] || [ -z "$bsec" ]; then
    echo "forgery (b): NOT made: results/schedule.tsv is format $FORMAT (a run's own seconds are format 2's)"
    FAILED=1
else
    nsec=$(awk -v s="$bsec" 'BEGIN { printf "%.15g", 2 * s }')
    awk -F'\t' -v OFS='\t' -v n="$nsec" 'NR == 3 { $5 = n } { print }' "$B/$SCHED" >"$B/$SCHED.new" &&
        mv "$B/$SCHED.new" "$B/$SCHED"
    json_set "$B/results/raw/$brun/run.json" seconds "$nsec"
    [ -f "$B/provenance/runs/$brun.json" ] && json_set "$B/provenance/runs/$brun.json" seconds "$nsec"
    manifest_set "$B" "results/raw/$brun/run.json"
    judge "(b) $brun's seconds $bsec -> $nsec" "$B" "$brun" "$@"
fi

# (c) an arm added: FORGED in the first run's round
C=$(copy c)
read -r crun cround < <(awk -F'\t' 'NR == 3 { print $4 "-r" $2, $2 }' "$C/$SCHED")
new="FORGED-r$cround"
cp -a "$C/results/raw/$crun" "$C/results/raw/$new"
json_set "$C/results/raw/$new/run.json" arm '"FORGED"'
awk -F'\t' -v OFS='\t' -v r="$cround" -v f="$FORMAT" '
    NR <= 2 { print; next }
    { if ($2 == r) { last = $0; pos = $3 > pos ? $3 : pos }
      else if (last != "" && !done) { emit(); done = 1 }
      print }
    END { if (!done) emit() }
    function emit(  l) { l = "0" OFS r OFS (pos + 1) OFS "FORGED"; if (f == 2) { split(last, x, "\t"); l = l OFS x[5] } print l }' \
    "$C/$SCHED" >"$C/$SCHED.new" && mv "$C/$SCHED.new" "$C/$SCHED"
renumber "$C/$SCHED"
for f in "$C/results/raw/$new"/*; do manifest_set "$C" "results/raw/$new/$(basename "$f")"; done
judge "(c) arm FORGED added ($new)" "$C" "$new" "$@"

exit $FAILED
