#!/usr/bin/env bash
# sample.sh: a sample of text files beyond the corpus, to compare the
# encoder with Google's on data no setting was tuned on. It copies HTML,
# JavaScript, CSS and JSON files found under the given directories into
# OUT/small (20-128 KiB: the bodies whose tables shrink, see setup) and
# OUT/large (128 KiB-3 MiB), one copy of each content, at most PER files of
# each type and class, then prints the command that measures them.
#
#   brotli/bench/sample.sh OUT DIR...        # PER=25 by default
#
# Which files are taken depends only on the directories' contents: the
# candidates of each type are sorted by path and taken evenly spaced.
set -euo pipefail
(($# >= 2)) || { echo "usage: $0 OUT DIR..." >&2; exit 2; }
out=$1
shift
per=${PER:-25}
mkdir -p "$out/small" "$out/large"
declare -A seen
# take CLASS MINK MAXK EXT: copy up to $per files of one class and type.
take() {
	local class=$1 min=$2 max=$3 ext=$4 n step i=0 k f sum files
	mapfile -t files < <(find "${dirs[@]}" -xdev -type f -name "*.$ext" -size +"$min"k -size -"$max"k 2>/dev/null | LC_ALL=C sort)
	n=${#files[@]}
	((n > 0)) || return 0
	step=$(((n + per - 1) / per))
	for ((k = 0; k < n; k += step)); do
		f=${files[k]}
		sum=$(md5sum <"$f" | cut -c1-32)
		[[ -z ${seen[$sum]:-} ]] || continue
		seen[$sum]=1
		i=$((i + 1))
		cp "$f" "$out/$class/$i-$(basename "$f")"
	done
}
dirs=("$@")
for ext in html js css json; do
	take small 20 128 "$ext"
	take large 128 3072 "$ext"
done
echo "$(ls "$out/small" | wc -l) small and $(ls "$out/large" | wc -l) large files in $out"
echo "measure: cd brotli/bench/cbrotli && taskset -c 1 go run . -q 6 -rounds 3 -cpu 50ms $out/small/* (and $out/large/*)"
