#!/usr/bin/env bash
# rawdict-vs-c.sh: sizes of a new version of a file compressed against the
# old one as a raw dictionary (Options.Dictionary; RFC 9842's dcb), by
# this package's encoder and by Google's (brotli 1.1.0's tool, the first
# with -D, built from the C sources the Go module proxy serves as
# github.com/google/brotli), at qualities 0-11, window 22, and without the
# dictionary for scale. Every output of this package is decoded by
# Google's tool with the dictionary and compared with the input.
#
#   brotli/bench/rawdict-vs-c.sh [FILE]
#
# FILE defaults to react-dom.development.js of ../shared/corpus beside
# the repository. The old version is its first OLD_BYTES bytes (300000
# unless set in the environment); the new one drops
# every 30th line, writes "let " for "var " on every 29th and adds a
# comment line after every 31st. Needs go and gcc.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
file=${1:-$repo/../shared/corpus/react-dom.development.js}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf 'module rawdictvsc\n' > "$tmp/go.mod"
src=$(cd "$tmp" && go mod download -json github.com/google/brotli@v1.1.0 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
c="$src/c"
gcc -O2 -I"$c/include" -o "$tmp/brotli" "$c/tools/brotli.c" "$c"/common/*.c "$c"/dec/*.c "$c"/enc/*.c -lm
(cd "$repo" && go build -o "$tmp/rawdict" ./brotli/bench/rawdict)

head -c "${OLD_BYTES:-300000}" "$file" > "$tmp/old"
awk 'NR % 30 == 0 { next } NR % 29 == 0 { gsub(/var /, "let ") } { print } NR % 31 == 0 { print "  // a line the new version adds" }' "$tmp/old" > "$tmp/new"

printf '| quality | mosaic | Google | mosaic without | Google without |\n| ---: | ---: | ---: | ---: | ---: |\n'
for q in 0 1 2 3 4 5 6 7 8 9 10 11; do
	"$tmp/rawdict" -dict "$tmp/old" -q "$q" "$tmp/new" > "$tmp/m.br"
	"$tmp/brotli" -d -D "$tmp/old" -c "$tmp/m.br" | cmp -s - "$tmp/new" || { echo "quality $q: mosaic's output does not decode" >&2; exit 1; }
	m=$(wc -c < "$tmp/m.br")
	g=$("$tmp/brotli" -q "$q" -w 22 -D "$tmp/old" -c "$tmp/new" | wc -c)
	mw=$("$tmp/rawdict" -q "$q" "$tmp/new" | wc -c)
	gw=$("$tmp/brotli" -q "$q" -w 22 -c "$tmp/new" | wc -c)
	printf '| %d | %d | %d | %d | %d |\n' "$q" "$m" "$g" "$mw" "$gw"
done
