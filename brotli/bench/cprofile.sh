#!/usr/bin/env bash
# cprofile.sh: where Google's C encoder spends its time on one file at one
# quality, function by function, to set beside this package's profile of
# the same work (go test -bench 'BenchmarkEncode/qQ/FILE' -cpuprofile).
# Debian's libbrotlienc has no symbols for its internal functions, so the
# encoder is built here with them from the sources of brotli 1.1.0 (the
# release internal/cbrotli builds the decoder from, fetched through the Go
# module proxy), linked into a small program that compresses the file
# ROUNDS times in one process, and profiled with perf.
#
#   brotli/bench/cprofile.sh [QUALITY] [FILE] [ROUNDS]
#
# QUALITY defaults to 6, FILE to ../shared/corpus/jquery.min.js beside the
# repository, ROUNDS to 1000; the window is 22, as bench/cbrotli's. It
# prints the program's ns per input byte and perf's report of its own
# functions. Needs gcc, go and perf (cpu-clock, which works in VMs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
q=${1:-6}
file=${2:-$repo/../shared/corpus/jquery.min.js}
rounds=${3:-1000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A module of its own, so that the project's go.mod stays as it is.
(cd "$tmp" && printf 'module cprofile\n' >go.mod)
src=$(cd "$tmp" && go mod download -json github.com/google/brotli@v1.1.0 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -d $src/c/enc ]] || { echo "no C sources for brotli 1.1.0 (module proxy?)" >&2; exit 1; }

cat >"$tmp/run.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <brotli/encode.h>

int main(int argc, char **argv) {
	FILE *f = fopen(argv[1], "rb");
	if (!f) { perror(argv[1]); return 1; }
	fseek(f, 0, SEEK_END);
	size_t n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *in = malloc(n);
	if (fread(in, 1, n, f) != n) { perror("read"); return 1; }
	int q = atoi(argv[2]), rounds = atoi(argv[3]);
	size_t cap = BrotliEncoderMaxCompressedSize(n), size = 0;
	unsigned char *out = malloc(cap);
	struct timespec a, b;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (int i = 0; i < rounds; i++) {
		size = cap;
		if (!BrotliEncoderCompress(q, 22, BROTLI_MODE_GENERIC, n, in, &size, out)) { fputs("compress failed\n", stderr); return 1; }
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("%zu bytes in, %zu out, %.2f ns/B\n", n, size, ns / rounds / n);
	return 0;
}
C
gcc -O2 -g -I"$src/c/include" "$tmp/run.c" "$src"/c/common/*.c "$src"/c/enc/*.c -lm -o "$tmp/run"
perf record -q -e cpu-clock -o "$tmp/perf.data" "$tmp/run" "$file" "$q" "$rounds"
perf report -i "$tmp/perf.data" --comm run --sort symbol --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -20
