#!/usr/bin/env bash
# collect against its floor, COPY of the same rows alone (issue 32, item 6):
#
#   tests/bench/bench_collect.sh ROOT PGDIR
#
# ROOT a study (results/raw/ and what collect reads; collect writes its
# results.json and stage record there, so never the published checkout
# itself: make bench-collect links the published study's files into a
# scratch folder), PGDIR a private cluster made afresh (pipeline/common/pg.sh).
# In one run, side by side:
# - build/bin/collect on an empty database (its loading: up to its last
#   "loaded" line; then the statistics and results.json), then again with
#   every run loaded (the statistics alone);
# - the floor: the very rows collect loaded into its raw tables (requests,
#   service_requests, lookups, machine, events, syslog, runs), dumped to
#   files and COPied back by psql's \copy into the same tables, empty and
#   made by the same schema.sql in a second database of the same cluster,
#   one \copy per table over one connection; no statistics, no decoding.
# Prints each time and collect's time as a multiple of the floor's.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=${1:?usage: bench_collect.sh ROOT PGDIR}
pg=${2:?usage: bench_collect.sh ROOT PGDIR}
tables="requests service_requests lookups machine events syslog runs"
bash pipeline/common/pg.sh stop "$pg" >/dev/null 2>&1 || true
rm -rf "$pg"
url=$(bash pipeline/common/pg.sh start "$pg")
# the cluster stopped whatever happens (a failed collect or psql included)
trap 'bash pipeline/common/pg.sh stop "$pg" >/dev/null 2>&1 || true' EXIT
dump=$pg/copy
mkdir -p "$dump"
stamp() { while IFS= read -r l; do echo "$(date +%s.%N) $l"; done; }
echo "\$ build/bin/collect --root $root --pgurl '$url'   (empty database, then a rerun)"
t0=$(date +%s.%N)
stdbuf -oL build/bin/collect --root "$root" --pgurl "$url" | stamp > "$pg/collect1.out"
t1=$(date +%s.%N)
build/bin/collect --root "$root" --pgurl "$url" > "$pg/collect2.out"
t2=$(date +%s.%N)
tail -1 "$pg/collect1.out" | cut -d' ' -f2-
tl=$(grep ' collect: loaded ' "$pg/collect1.out" | tail -1 | cut -d' ' -f1)
tl=${tl:-$t0}
rows=0
for t in $tables; do
  psql -X -q "$url" -c "\\copy $t TO '$dump/$t.tsv'"
  rows=$((rows + $(wc -l < "$dump/$t.tsv")))
done
psql -X -q "$url" -c "DROP DATABASE IF EXISTS floor" -c "CREATE DATABASE floor"
furl="$url dbname=floor"
psql -X -q "$furl" -c "SET client_min_messages = warning" -f pipeline/collect/schema.sql >/dev/null
echo "\$ psql '$furl' -c '\\copy TABLE FROM $dump/TABLE.tsv'   (each of: $tables)"
cmds=()
for t in $tables; do cmds+=(-c "\\copy $t FROM '$dump/$t.tsv'"); done
t3=$(date +%s.%N)
psql -X -q "$furl" "${cmds[@]}"
t4=$(date +%s.%N)
rm -rf "$dump"
awk -v a="$t0" -v l="$tl" -v b="$t1" -v c="$t2" -v f0="$t3" -v f1="$t4" -v n="$rows" 'BEGIN {
  printf "collect: first %.1f s (loading %.1f s, statistics and results.json %.1f s), rerun %.1f s (statistics only)\n", b - a, l - a, b - l, c - b
  printf "COPY alone of the same %.1f million rows into the same empty tables: %.1f s\n", n / 1e6, f1 - f0
  printf "collect is %.2f times its floor (its loading %.2f times)\n", (b - a) / (f1 - f0), (l - a) / (f1 - f0) }'
