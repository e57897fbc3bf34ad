#!/usr/bin/env bash
# make release: pack OUT/results and OUT/provenance into one archive with a
# sha256 manifest, only after `make factcheck` passed on exactly those files.
#
#   pipeline/release.sh OUT
#
# The files are fingerprinted before the verifier runs and again after; the
# archive is made from that list only when the verifier passed and nothing
# changed in between.  Writes OUT/release/lab-release-<UTC>.tar.gz and its
# .sha256, atomically.
set -euo pipefail
out=${1:?usage: release.sh OUT}
cd "$out"
[[ -d results && -d provenance ]] || { echo "release: $out has no results/ and provenance/: run make all first" >&2; exit 2; }
list() { find results provenance -type f ! -path 'results/verified.json' -print0 | sort -z | xargs -0 sha256sum; }
before=$(list)
verify=${VERIFY:-$OLDPWD/verify/build/verify}
"$verify" --root . --guesses "$OLDPWD/data/guesses.tsv" --comparisons "$OLDPWD/pipeline/comparisons.tsv" \
  --ap-arms "$OLDPWD/pipeline/ap_arms.tsv" \
  || { echo "release: the verifier did not pass: nothing packed" >&2; exit 1; }
after=$(list)
[[ "$before" == "$after" ]] || { echo "release: files changed while the verifier ran: nothing packed" >&2; exit 1; }
stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p release
name=lab-release-$stamp
printf '%s\n' "$after" > "release/.$name.manifest"
sha256sum results/verified.json >> "release/.$name.manifest"
mv "release/.$name.manifest" "release/$name.manifest.sha256"
tar czf "release/.$name.tar.gz" results provenance "release/$name.manifest.sha256"
mv "release/.$name.tar.gz" "release/$name.tar.gz"
sha256sum "release/$name.tar.gz" > "release/$name.tar.gz.sha256"
echo "release: $out/release/$name.tar.gz ($(wc -l < "release/$name.manifest.sha256") files, verified)"
