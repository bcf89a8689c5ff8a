#!/usr/bin/env bash
# outside-encoder.sh: what one brotli response costs mosaic outside its
# encoder, in user-space instructions (cachegrind), for the cells of
# ../shared/bench/compress.sh that read below NGINX + ngx_brotli: the
# whole server answering the file on one kept connection (small-body.sh
# with INSTRUCTIONS=1: the difference of 50 and 10 responses over 40),
# the encoder alone called as a one-shot response calls it
# (BenchmarkServerEncoder: the difference of 13 and 3 iterations over
# 10), their difference, and NGINX's whole count on the same
# configuration when its brotli module loads.
#
#   compress/bench/outside-encoder.sh [MOSAIC_BINARY]
#
# CELLS (default "jquery.min.js:6 bootstrap.min.css:6 api-listing.json:6
# react-dom.development.js:1") picks files of ../shared/corpus and levels;
# NGINX=none leaves NGINX out. Needs valgrind, curl, go. Counts repeat
# within about 1% on a quiet machine (compress README, "What a request
# costs outside the encoder").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
CELLS=${CELLS:-"jquery.min.js:6 bootstrap.min.css:6 api-listing.json:6 react-dom.development.js:1"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$repo" && go test -c -o "$work/compress.test" ./compress)
mosaic=${1:-}
if [[ -z $mosaic ]]; then
	mosaic=$work/mosaic
	(cd "$repo" && go build -o "$mosaic" ./cmd/mosaic)
fi

# encoder NAME N: instructions of N iterations of the benchmark NAME.
encoder() {
	(cd "$repo/compress" && GOMAXPROCS=1 GODEBUG=cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$work/compress.test" -test.run '^$' \
		-test.bench "^BenchmarkServerEncoder/$1\$" -test.benchtime "${2}x" 2>&1 >/dev/null) |
		awk '/I *refs/ {gsub(",", "", $4); print $4}'
}

echo "| file | level | mosaic, whole server | encoder alone | outside the encoder | nginx, whole server |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for cell in $CELLS; do
	file=${cell%:*} level=${cell#*:}
	row=$(INSTRUCTIONS=1 IPR_FIRST=10 IPR_MORE=40 PATHS="l$level" FILE="$repo/../shared/corpus/$file" \
		"$here/small-body.sh" "$mosaic" | tail -1)
	whole=$(awk -F'|' '{gsub(/ /, "", $3); print $3}' <<<"$row")
	nginx=$(awk -F'|' '{gsub(/ /, "", $4); print $4}' <<<"$row")
	a=$(encoder "q$level/$file" 3)
	b=$(encoder "q$level/$file" 13)
	enc=$(((b - a) / 10))
	awk -v f="$file" -v l="$level" -v w="$whole" -v e="$enc" -v n="$nginx" 'BEGIN {
		printf "| %s | %d | %d | %d | %d (%.1f%%) | %s |\n", f, l, w, e, w - e, 100 * (w - e) / w, n == "-" ? "-" : sprintf("%d", n)}'
done
