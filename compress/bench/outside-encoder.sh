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
# CELLS=all is compress.sh's 25 (its five files at levels 1, 4, 6, 9 and
# 11). How many responses a cell counts follows what one costs (counts,
# below): the slowest take minutes each under cachegrind, and a response
# compressed from the same bytes by a warm encoder repeats its count, so
# a few suffice there. NGINX=none leaves NGINX out. Needs valgrind, curl,
# go. Counts repeat within about 1% on a quiet machine (compress README,
# "What a request costs outside the encoder").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
CELLS=${CELLS:-"jquery.min.js:6 bootstrap.min.css:6 api-listing.json:6 react-dom.development.js:1"}
# shellcheck source=cells.sh
. "$here/cells.sh"
[[ $CELLS != all ]] || CELLS=$(compress_cells)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$repo" && go test -c -o "$work/compress.test" ./compress)
mosaic=${1:-}
if [[ -z $mosaic ]]; then
	mosaic=$work/mosaic
	(cd "$repo" && go build -o "$mosaic" ./cmd/mosaic)
fi

# encoder LEVEL FILE N: instructions of N iterations of the benchmark's
# cell (each part of the name anchored: q1 would also match q11).
encoder() {
	(cd "$repo/compress" && GOMAXPROCS=1 GODEBUG=cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$work/compress.test" -test.run '^$' \
		-test.bench "^BenchmarkServerEncoder\$/^q$1\$/^$2\$" -test.benchtime "${3}x" 2>&1 >/dev/null) |
		awk '/I *refs/ {gsub(",", "", $4); print $4}'
}

# counts FILE LEVEL: "FIRST MORE ITERATIONS" for a cell: the server's
# responses are the difference of FIRST+MORE and FIRST over MORE, the
# encoder's the difference of ITERATIONS+1 and 1 over ITERATIONS. The
# 2 KB body takes tens of microseconds below level 10 (the first
# response's setup and the collector's cycles need many to average out);
# NGINX's level 9 and either server's 11 take a tenth of a second to two
# seconds on the larger files.
counts() {
	local size
	size=$(stat -c %s "$repo/../shared/corpus/$1")
	if ((size < 65536)); then
		(($2 < 10)) && echo "200 2000 1000" || echo "10 40 20"
	elif (($2 < 7)) && ((size < 524288 || $2 < 5)); then
		echo "10 40 10"
	elif ((size < 524288)); then
		echo "2 6 3"
	else
		echo "1 2 1"
	fi
}

echo "| file | level | mosaic, whole server | encoder alone | outside the encoder | nginx, whole server | mosaic/nginx |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for cell in $CELLS; do
	file=${cell%:*} level=${cell#*:}
	read -r first more iters < <(counts "$file" "$level")
	row=$(INSTRUCTIONS=1 IPR_FIRST=$first IPR_MORE=$more PATHS="l$level" FILE="$repo/../shared/corpus/$file" \
		"$here/small-body.sh" "$mosaic" | tail -1)
	whole=$(awk -F'|' '{gsub(/ /, "", $3); print $3}' <<<"$row")
	nginx=$(awk -F'|' '{gsub(/ /, "", $4); print $4}' <<<"$row")
	# b.Loop runs a benchmark's body once per iteration of -test.benchtime Nx.
	a=$(encoder "$level" "$file" 1)
	b=$(encoder "$level" "$file" $((iters + 1)))
	enc=$(((b - a) / iters))
	awk -v f="$file" -v l="$level" -v w="$whole" -v e="$enc" -v n="$nginx" 'BEGIN {
		printf "| %s | %d | %.0f | %.0f | %.0f (%.1f%%) | %s | %s |\n", f, l, w, e, w - e, 100 * (w - e) / w,
			n == "-" ? "-" : sprintf("%.0f", n), n == "-" ? "-" : sprintf("%.2fx", w / n)}'
done
