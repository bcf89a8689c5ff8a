#!/usr/bin/env bash
# cachegrind.sh: instructions and simulated cache misses of this package's
# encoder and of Google's (the brotli tool, libbrotlienc) over the same
# files, at the qualities given, with an estimate of cycles:
# instructions/2 + 10 per first-level miss + 40 per second-level miss. The
# second level is simulated at 512 KiB (--LL), close to the L2 of the
# machines this was measured on. Counts do not move from run to run, which
# CPU time on a shared machine does by tens of percent; they leave out the
# kernel's work (page faults of tables allocated per call, which the C
# encoder pays on every call).
#
#   brotli/bench/cachegrind.sh [QUALITIES]
#
# QUALITIES defaults to "5 6 7 8 9". The files are the package's test
# corpus, ../shared/corpus beside the repository (its .js, .json and .css
# files). Each is encoded twice by each encoder (the mosaic side:
# BenchmarkCorpus with -benchtime 2x, run with GOMAXPROCS=1 GOGC=off so
# that the runtime adds nothing that varies; the C side: two runs of the
# tool). Needs valgrind, the brotli tool and go.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
quals=${1:-"5 6 7 8 9"}
files=("$repo"/../shared/corpus/*.j* "$repo"/../shared/corpus/*.css)
[[ -f ${files[0]} ]] || { echo "no corpus in $repo/../shared/corpus" >&2; exit 1; }
sim=(--tool=cachegrind --cache-sim=yes --LL=524288,8,64 --cachegrind-out-file=/dev/null)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$repo" && go test -c -o "$tmp/brotli.test" ./brotli)

# counts prints "instructions D1-misses LL-misses" from cachegrind's summary.
counts() {
	awk '/I *refs/ {gsub(",", "", $4); i = $4}
		/D1  misses/ {gsub(",", "", $4); d = $4}
		/LLd misses/ {gsub(",", "", $4); l = $4}
		END {print i, d, l}'
}
row() {
	awk -v who="$1" -v q="$2" -v i="$3" -v d="$4" -v l="$5" 'BEGIN {
		printf "| %s | %s | %.0fM | %.2fM | %.3fM | %.0fM |\n", q, who, i / 1e6, d / 1e6, l / 1e6, (i / 2 + d * 10 + l * 40) / 1e6}'
}

echo "| q | encoder | instructions | L1 misses | L2 misses | estimate (cycles) |"
echo "|---|---|---|---|---|---|"
for q in $quals; do
	# The corpus directory is the package's test data: run where the test
	# binary finds ../../shared/corpus.
	# valgrind does not decode RDTSCP, which Go's runtime executes when a
	# lock is contended (runtime.cputicks): the test binary died of SIGILL
	# under it, with a count of a few million, now and then on a quiet
	# machine and on every try on a loaded one. GODEBUG=cpu.rdtscp=off
	# has the runtime read the clock without it; a failed run is still
	# tried again rather than reported.
	for try in 1 2 3 0; do
		[[ $try != 0 ]] || { echo "valgrind failed three times at quality $q:" >&2; tail -5 "$tmp/vg.txt" >&2; exit 1; }
		(cd "$repo/brotli" && GODEBUG=cpu.rdtscp=off GOMAXPROCS=1 GOGC=off valgrind "${sim[@]}" "$tmp/brotli.test" \
			-test.run '^$' -test.bench "^BenchmarkCorpus/q$q\$" -test.benchtime 2x >/dev/null 2>"$tmp/vg.txt") && break
	done
	read -r i d l < <(counts <"$tmp/vg.txt")
	row mosaic "$q" "$i" "$d" "$l"
	ti=0 td=0 tl=0
	for f in "${files[@]}"; do
		read -r i d l < <(valgrind "${sim[@]}" brotli -q "$q" -w 22 -c "$f" 2>&1 >/dev/null | counts)
		ti=$((ti + 2 * i)) td=$((td + 2 * d)) tl=$((tl + 2 * l))
	done
	row C "$q" "$ti" "$td" "$tl"
done
