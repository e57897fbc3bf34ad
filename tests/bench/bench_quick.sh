#!/usr/bin/env bash
# make bench-quick: where make quick's wall time goes, read from the last
# make quick on this machine (it measures nothing itself: make quick takes
# about 20 minutes).
#
#   bench_quick.sh QUICK_OUT STEPS_TSV
#
# QUICK_OUT (build/quick): the quick study; its runs' records
# (provenance/runs/*.json, every attempt included) give each run's measured
# seconds and its wall time, so the run's dead time (idle gate, start,
# settling, stop, raw files).  STEPS_TSV (build/all-steps.tsv, written by make
# all: out, step, start_s, end_s) gives each step's wall time.  Prints the
# measured seconds against measure's wall time and against the whole.
set -euo pipefail
out=${1:-build/quick}
steps=${2:-build/all-steps.tsv}
if [ ! -d "$out/provenance/runs" ]; then
    echo "no quick study in $out: run make quick first (about 20 minutes), then make bench-quick"
    exit 0
fi
jq -r '[.run, .attempt, .seconds, .wall_s] | @tsv' "$out"/provenance/runs/*.json |
    awk -F'\t' '{ n++; s += $3; w += $4; if ($2 > 1) again++ }
        END { printf "runs: %d records (%d attempts measured again), %.0f s measured in %.0f s of run wall time (%.2f of it); dead time %.2f s a run\n",
                     n, again, s, w, s / w, (w - s) / n }'
if [ -f "$steps" ] && awk -F'\t' -v o="$out" '$1 == o { f = 1 } END { exit !f }' "$steps"; then
    awk -F'\t' -v o="$out" -v meas="$(jq -s 'map(.seconds) | add' "$out"/provenance/runs/*.json)" '
        $1 == o { d = $4 - $3; t += d; printf "  %-11s %8.1f s\n", $2, d; if ($2 == "measure") m = d }
        END { printf "  %-11s %8.1f s (%d min %02d s)\n", "all steps", t, int(t / 60), int(t) % 60;
              if (m > 0) printf "measured seconds %.0f: %.2f of measure'"'"'s wall time, %.2f of make quick'"'"'s steps\n", meas, meas / m, meas / t }' "$steps"
else
    echo "no step times of $out in $steps (a make quick before they were recorded): only the runs above"
fi
