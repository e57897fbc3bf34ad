#!/usr/bin/env bash
# forge_order.sh ROOT [VERIFY-OPTION ...]: issue 31's forgery of the clock
# against a real study: one request of the closed-loop run moved 1 ms
# earlier whole, which only the order checks (verify/README.md, check 2,
# "In order"; src/raw/roworder.[ch]) can catch.
#
# ROOT is copied to a temporary folder (ROOT itself is never written).  In
# the copy, the first run folder whose run.json has rate 0 (the capacity
# arm: lab/RAWFORMAT.md, a closed loop, sched_t = send_t) gets the request
# in the middle of its tester.tsv.gz (line rows / 2 + 3) sent 1000 µs
# earlier: only its send_us changes, and every other instant of it (its
# answer, its service row, its store rows) is written after its sched_t
# and so moves with it; latency and lateness stay as they were, so
# results.json needs no change.  run.json's files entry of tester.tsv.gz
# and the manifest's lines of the two files are rewritten so that the
# fingerprints agree.  The original and the copy are verified
# (build/verify --no-scan, the options given passed on): the original must
# have no order mismatch for that run, the copy must exit 1 with the
# connection's mismatch naming the request.  Prints the copy's order
# mismatches; exit 0 when the forgery is refused, 1 when not, 2 when ROOT
# has no closed-loop run (or a tool is missing).
#
# VERIFY (environment) overrides the verifier's path (default: build/verify
# next to this folder).  Needs bash, jq, awk, gzip, sha256sum, cp.
set -u

die() { echo "forge_order.sh: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: forge_order.sh ROOT [VERIFY-OPTION ...]"
ROOT=$1
shift
HERE=$(cd "$(dirname "$0")" && pwd)
VERIFY=${VERIFY:-$HERE/../build/verify}
for t in jq awk gzip sha256sum cp; do command -v "$t" >/dev/null || die "$t not found"; done
[ -x "$VERIFY" ] || die "$VERIFY not found (make -C verify)"
[ -d "$ROOT/results/raw" ] || die "$ROOT/results/raw not found"

RUN=
for d in "$ROOT"/results/raw/*/; do
    if [ "$(jq -r '.rate' "$d/run.json" 2>/dev/null)" = 0 ]; then RUN=$(basename "$d"); break; fi
done
[ -n "$RUN" ] || die "no run folder of $ROOT/results/raw has rate 0 (a closed loop)"

TMP=$(mktemp -d /tmp/forge-order-XXXXXX) || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
MAN=provenance/manifest-measure.tsv
REL=results/raw/$RUN

order_lines() { # verify output, run: the order checks' mismatches of the run
    printf '%s\n' "$1" | grep -F "MISMATCH $2 " |
        grep -E 'carries one request at a time|in the order the answers were written|in the order the lookups ended|unfinished lookups come last'
}

base=$("$VERIFY" --root "$ROOT" --no-scan --max-print 0 --out "$TMP/verified-original.json" "$@" 2>&1)
if [ -n "$(order_lines "$base" "$RUN")" ]; then
    echo "the original study already breaks an order of $RUN: the forgery would prove nothing"
    order_lines "$base" "$RUN" | head -5 | sed 's/^/    /'
    exit 1
fi
echo "the original study: no order mismatch in $RUN"

C=$TMP/copy
cp -a "$ROOT" "$C" || die "cannot copy $ROOT"
T=$C/$REL/tester.tsv.gz
rows=$(jq -r '.requests' "$C/$REL/run.json")
line=$((rows / 2 + 3))
gzip -dc "$T" | awk -F'\t' -v OFS='\t' -v l="$line" 'NR == l { $1 = $1 - 1000 } { print }' | gzip -6 >"$T.new" &&
    mv "$T.new" "$T" || die "cannot rewrite $T"
size=$(stat -c %s "$T") && sha=$(sha256sum "$T" | cut -d' ' -f1) || die "cannot hash $T"
jq --arg h "$sha" --argjson s "$size" '.files["tester.tsv.gz"].sha256 = $h | .files["tester.tsv.gz"].size = $s' \
    "$C/$REL/run.json" >"$C/$REL/run.json.new" && mv "$C/$REL/run.json.new" "$C/$REL/run.json" || die "cannot rewrite run.json"
for f in tester.tsv.gz run.json; do
    s=$(stat -c %s "$C/$REL/$f") && h=$(sha256sum "$C/$REL/$f" | cut -d' ' -f1) || die "cannot hash $f"
    awk -F'\t' -v OFS='\t' -v p="$REL/$f" -v s="$s" -v h="$h" '$1 == p { print p, s, h; next } { print }' \
        "$C/$MAN" >"$C/$MAN.new" && mv "$C/$MAN.new" "$C/$MAN" || die "cannot rewrite the manifest"
done

out=$("$VERIFY" --root "$C" --no-scan --max-print 0 --out "$TMP/verified-forged.json" "$@" 2>&1)
rc=$?
echo "request $((line - 3)) of $RUN (tester.tsv.gz:$line) sent 1 ms earlier, whole: verify exit $rc, $(printf '%s\n' "$out" | tail -1)"
order_lines "$out" "$RUN" | sed 's/^/    /'
if [ "$rc" = 1 ] && order_lines "$out" "$RUN" | grep -q "tester.tsv.gz:$line send_t: .*(request $((line - 3)), connection"; then
    echo "forgery refused: the connection names it"
    exit 0
fi
echo "forgery NOT refused by the connection's order"
exit 1
