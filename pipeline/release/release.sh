#!/usr/bin/env bash
# make release: pack exactly what the verifier passed (pipeline/RESULTS.md,
# "make release").
#
#   pipeline/release/release.sh OUT          (make release runs make factcheck first)
#
# 1. OUT/results/verified.json must say "ok": true and hold `files`: one
#    {"path", "size", "sha256"} per file the verifier read or scanned.
# 2. The list: those files and results/verified.json itself, in byte order
#    of path.  Each path is relative to OUT, without "." or ".." parts, control
#    characters or backslashes, listed once, and names a regular file (not
#    a symlink).  Each is hashed again and must still have its size and
#    sha256: a file written after the verifier read it stops the release.
# 3. release.sha256 is the list (sha256sum format, "<sha256>  <path>"); the
#    archive is OUT/release/lab-release-<UTC YYYYmmddTHHMMSSZ>-<the first 8
#    hex of release.sha256's sha256>.tar.gz.
# 4. tar packs release.sha256 and the listed files, by name (no folder whole).
# 5. Read back in one pass (tar --to-command): the members' names must be
#    exactly release.sha256 and the listed files, each a regular file with
#    the sha256 of the list.
# 6. The whole archive goes through the verifier's scanner, `VERIFY --scan
#    ARCHIVE` (file and member names, contents; 0 clean, 1 findings, 2
#    unusable): anything but 0 stops the release.
# 7. Moved into place with a hard link, which never overwrites: when the name
#    is taken (a release of the same list in the same second), -2, -3 ... go
#    before .tar.gz.
#
# Every step works in a temporary folder OUT/release/.tmp.XXXXXX, removed
# whatever happens (an error, a signal): a failure leaves no archive and no
# temporary file.  Needs jq, GNU tar, gzip and sha256sum.  VERIFY=PROGRAM
# replaces the verifier (default: verify/build/verify of this repository).
# Exit: 0 released (the archive's path on the last line), 1 refused or failed.
set -euo pipefail
out=${1:?usage: release.sh OUT}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
verify=${VERIFY:-$here/verify/build/verify}
[[ $verify == /* ]] || verify=$PWD/$verify
export LC_ALL=C
die() { echo "release: $*" >&2; exit 1; }
command -v jq > /dev/null || die "jq is needed (make deps installs it)"
cd "$out" 2> /dev/null || die "$out: no such folder"

vj=results/verified.json
[[ -f $vj ]] || die "$out/$vj: missing: run make factcheck first"
jq -e 'type == "object"' "$vj" > /dev/null 2>&1 || die "$out/$vj: not a JSON object"
jq -e '.ok == true' "$vj" > /dev/null || die "$out/$vj: \"ok\" is not true: the verifier did not pass this study; nothing packed"
jq -e '.files | type == "array" and length > 0' "$vj" > /dev/null ||
  die "$out/$vj has no \"files\" list (an older verifier?): run make factcheck again"

# 1-2. the list, each entry's shape checked by jq, one "sha256 size path" a line
vsha=$(sha256sum < "$vj"); vsha=${vsha%% *}
vsize=$(stat -c %s -- "$vj")
prog='
  .files as $f
  | if ([$f[] | .path?] | length) != ([$f[] | .path?] | unique | length) then error("a path listed twice") else . end
  | [$f | to_entries[] | .key as $i | .value as $e
     | if ($e | type) != "object" then error("files[\($i)]: not an object")
       elif ($e.path | type) != "string" or ($e.path | test("^$|^/|[\u0000-\u001f\u007f\\\\]"))
         then error("files[\($i)]: path \($e.path | tojson): not a plain relative path")
       elif $e.path == "results/verified.json" then error("files[\($i)]: verified.json lists itself")
       elif ($e.sha256 | type) != "string" or ($e.sha256 | test("^[0-9a-f]{64}$") | not)
         then error("files[\($i)] (\($e.path)): sha256 is not 64 lowercase hex")
       elif ($e.size | type) != "number" or $e.size < 0 or $e.size != ($e.size | floor)
         then error("files[\($i)] (\($e.path)): size is not a whole number of bytes")
       else $e end]
  | . + [{path: "results/verified.json", sha256: $vsha, size: $vsize}]
  | sort_by(.path) | .[] | "\(.sha256) \(.size) \(.path)"'
entries=$(jq -r --arg vsha "$vsha" --argjson vsize "$vsize" "$prog" "$vj" 2>&1) ||
  die "$out/$vj: ${entries#jq: error (at *): }"
shas=() sizes=() paths=()
while IFS= read -r line; do
  shas+=("${line%% *}"); rest=${line#* }
  sizes+=("${rest%% *}"); paths+=("${rest#* }")
done <<< "$entries"
for p in "${paths[@]}"; do
  case /$p/ in */./* | */../* | *//*) die "$out/$vj lists \"$p\": not a plain relative path";; esac
  [[ -f $p && ! -L $p ]] || die "$out/$p: listed in $vj, but not a regular file here (gone, or a symlink): nothing packed"
done
n=${#paths[@]}

# every listed file hashed again: still what the verifier read?
mapfile -t now_sha < <(printf '%s\0' "${paths[@]}" | xargs -0 sha256sum -- | cut -c1-64)
mapfile -t now_size < <(printf '%s\0' "${paths[@]}" | xargs -0 stat -c %s --)
(( ${#now_sha[@]} == n && ${#now_size[@]} == n )) || die "cannot hash the listed files again"
for ((i = 0; i < n; i++)); do
  [[ ${now_sha[i]} == "${shas[i]}" && ${now_size[i]} == "${sizes[i]}" ]] ||
    die "$out/${paths[i]} changed after the verifier read it (size ${sizes[i]} -> ${now_size[i]}, sha256 ${shas[i]:0:12}... -> ${now_sha[i]:0:12}...): nothing packed; run make factcheck again"
done

# 3. the list, the name; everything from here on in a temporary folder
made_dir=0
tmp=
cleanup() {
  [[ -n $tmp ]] && rm -rf -- "$tmp"
  if (( made_dir )); then rmdir release 2> /dev/null || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if mkdir release 2> /dev/null; then made_dir=1; elif [[ ! -d release ]]; then die "cannot make $out/release"; fi
tmp=$(mktemp -d "$PWD/release/.tmp.XXXXXX")
for ((i = 0; i < n; i++)); do printf '%s  %s\n' "${shas[i]}" "${paths[i]}"; done > "$tmp/release.sha256"
lsha=$(sha256sum < "$tmp/release.sha256"); lsha=${lsha%% *}
name=lab-release-$(date -u +%Y%m%dT%H%M%SZ)-${lsha:0:8}
archive=$tmp/$name.tar.gz

# 4. packed by name only
printf '%s\0' "${paths[@]}" > "$tmp/paths"
tar -czf "$archive" --no-recursion --hard-dereference --owner=0 --group=0 --numeric-owner \
  -C "$tmp" release.sha256 -C "$PWD" --null -T "$tmp/paths" || die "tar failed: nothing released"

# 5. read back: names, types and sha256 of every member, against the list
{ sed 's/^/f /' "$tmp/release.sha256"; echo "f $lsha  release.sha256"; } | sort > "$tmp/want"
mkdir "$tmp/x"
(cd "$tmp/x" && tar -xzf "../$name.tar.gz" \
  --to-command='s=$(sha256sum); printf "%s %s  %s\n" "$TAR_FILETYPE" "${s%% *}" "$TAR_FILENAME"') |
  sort > "$tmp/got" || die "cannot read $name.tar.gz back: nothing released"
tar -tzf "$archive" --quoting-style=literal | sed 's/^/f /' | sort > "$tmp/names"
sed 's/^f [0-9a-f]*  /f /' "$tmp/want" | sort > "$tmp/wantnames"
if ! cmp -s "$tmp/want" "$tmp/got" || ! cmp -s "$tmp/wantnames" "$tmp/names"; then
  { diff "$tmp/want" "$tmp/got"; diff "$tmp/wantnames" "$tmp/names"; } | head -5 >&2 || true
  die "the archive's members differ from the list (above): nothing released"
fi

# 6. the whole archive through the scanner
rc=0
"$verify" --scan "$archive" || rc=$?
case $rc in
  0) ;;
  1) die "the scanner found secrets in the archive (above): nothing released" ;;
  *) die "the scanner ($verify --scan) could not scan the archive (exit $rc): nothing released" ;;
esac

# 7. into place, never over another archive
final=release/$name.tar.gz
k=1
until ln -- "$archive" "$final" 2> /dev/null; do
  [[ -e $final ]] || die "cannot link $final into place: nothing released"
  k=$((k + 1))
  (( k < 1000 )) || die "release/$name-*.tar.gz: a thousand names taken"
  final=release/$name-$k.tar.gz
done
asha=$(sha256sum < "$final")
echo "release: $n files (results/verified.json among them) and release.sha256, scanned clean; sha256 ${asha%% *}"
echo "release: $out/$final"
