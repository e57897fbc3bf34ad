#!/usr/bin/env bash
# mkseeds.sh SEEDS_BIN: (re)writes the generated part of the seed corpora
# under fuzz/corpus/: the valid examples of a small synthetic study
# (fuzz/seeds.c) and the bad-input cases of verify/tests made into files
# (each one a copy of a valid file with the one fault the test gave it).
# Hand-written seeds (fuzz/corpus/*/hand-*) are left alone.
set -euo pipefail
cd "$(dirname "$0")"
bin=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" "$tmp/study"
raw=$tmp/study/results/raw/H3-fb25-r1
C=corpus

# ---- rawread: each kind as text (the harness gzips it) and as gzip
mkdir -p $C/rawread
for k in tester service store events machine; do
  zcat "$raw/$k.tsv.gz" > $C/rawread/ok-$k.tsv
  cp "$raw/$k.tsv.gz" $C/rawread/ok-$k.tsv.gz
done
t=$C/rawread/ok-tester.tsv
v=$C/rawread/ok-service.tsv
s=$C/rawread/ok-store.tsv
e=$C/rawread/ok-events.tsv
# the malformed rows of tests/test_units.c, test_parse.c and test_rawdec.c, in format 4 files
# (line 3 of the tester: "0	1069	200	L	=	0	0"; line 9, request 6, is the E)
rm -f $C/rawread/bad-*
awk 'NR==3{print "0\t1069\t200\tL\t=\t0"; next}1' $t > $C/rawread/bad-fields-short.tsv
awk 'NR==3{print $0 "\t9"; next}1' $t > $C/rawread/bad-fields-long.tsv
awk 'NR==4{sub(/\t200\t/, "\t-\t")}1' $t > $C/rawread/bad-absent-required.tsv
awk 'NR==3{sub(/^0\t/, "10x\t")}1' $t > $C/rawread/bad-not-integer.tsv
awk 'NR==3{sub(/\tL\t/, "\tLL\t")}1' $t > $C/rawread/bad-two-char-code.tsv
awk 'NR==3{sub(/\tL\t/, "\t\t")}1' $t > $C/rawread/bad-empty-field.tsv
awk 'NR==3{sub(/\tL\t/, "\tX\t")}1' $t > $C/rawread/bad-unknown-code.tsv
printf '%s' "$(cat $t)" > $C/rawread/bad-no-last-newline.tsv
sed '1s/lab-raw 4/lab-raw 1/' $t > $C/rawread/bad-version-1.tsv
sed '1s/lab-raw 4/lab-raw 2/' $t > $C/rawread/bad-version-2.tsv
sed '1s/lab-raw 4/lab-raw 3/' $t > $C/rawread/bad-version-3.tsv
sed '1s/tester/store/' $t > $C/rawread/bad-wrong-kind.tsv
sed '2s/send_us/send_t/' $t > $C/rawread/bad-column-name.tsv
awk 'NR==4{sub(/^50000\t/, "9223372036854775808\t")}1' $t > $C/rawread/bad-int-beyond-64-bits.tsv
awk 'NR==3{sub(/^0\t/, "9223372036854775\t")}1' $t > $C/rawread/bad-offset-overflow.tsv
awk 'NR==9{sub(/\tE\t-\t/, "\tE\t=\t")}1' $t > $C/rawread/bad-eq-with-kind-E.tsv
awk 'NR==3{sub(/\t0\t0$/, "\t-\t0")}1' $t > $C/rawread/bad-sent-without-conn.tsv
awk 'NR==3{print "-\t-\t0\tE\t-\t-\t0"; next}1' $t > $C/rawread/ok-never-sent.tsv
awk 'NR==3{sub(/\t=\t/, "\t0.5\t")}1' $t > $C/rawread/ok-score-written.tsv
# (service line 3: request 0, its a0 A; line 5: request 2, its a0 T; a0_start_us is field 8)
awk -F'\t' -v OFS='\t' 'NR==3{$8="-"}1' $v > $C/rawread/bad-end-without-start.tsv
awk 'NR==5{sub(/^2\t/, "-\t")}1' $v > $C/rawread/ok-service-without-req.tsv
awk 'NR==3{sub(/^0\t/, "-\t")}1' $v > $C/rawread/bad-A-lookup-without-req.tsv
awk 'NR==3{sub(/\t8\t0\t/, "\t8\t-\t")}1' $s > $C/rawread/bad-A-without-start.tsv
awk 'NR==3{sub(/^7000000100000\t/, "-99999999999999999999\t")}1' $e > $C/rawread/bad-delta-beyond-64-bits.tsv
awk 'NR==4{sub(/^100000\t/, "9223372036854775807\t")}1' $e > $C/rawread/bad-delta-sum-overflow.tsv
sz=$(stat -c %s "$raw/tester.tsv.gz")
head -c $((sz - 10)) "$raw/tester.tsv.gz" > $C/rawread/bad-truncated.tsv.gz
awk 'NR==5{sub(/\tC\t/, "\tX\t")}1' $e > $C/rawread/bad-events-unknown-code.tsv

# ---- manifest, schedule, arms: the study's files and their faults
mkdir -p $C/manifest $C/schedule $C/arms $C/vjson
cp $tmp/study/provenance/manifest-measure.tsv $C/manifest/ok-study.tsv
cp $tmp/study/results/schedule.tsv $C/schedule/ok-tiny.tsv
cp $tmp/study/lab/arms.tsv $C/arms/ok-synthetic.tsv
cp $raw/run.json $C/vjson/ok-run.json
cp $tmp/study/results/reference/summary.json $C/vjson/ok-summary.json
a=$C/arms/ok-synthetic.tsv
sed '/^name/d' $a > $C/arms/bad-no-header.tsv
awk '/^H3/{sub(/\t0$/, "")}1' $a > $C/arms/bad-field-count.tsv
awk '/^H3/{sub(/\t25\t/, "\t25x\t")}1' $a > $C/arms/bad-not-integer.tsv
awk '/^H3/{print; print}!/^H3/' $a > $C/arms/bad-arm-twice.tsv
awk '/^H3/{print; sub(/^H3-fb25/, "H4-p"); sub(/\tnone\t-\t/, "\tfixed\t10,20\t"); sub(/\t0\tsynthetic/, "\tmax\tsynthetic")}1' $a > $C/arms/ok-pause-list-rate-max.tsv
awk '/^H3/{sub(/\t-\t/, "\t10,,20\t")}1' $a > $C/arms/bad-pause-list.tsv
sed '/^name/s/\trate//' $a > $C/arms/bad-no-rate.tsv
echo "ok"
