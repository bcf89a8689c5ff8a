#!/usr/bin/env bash
# idle.sh: the resident memory an idle keep-alive connection costs mosaic
# and Debian's NGINX (one worker each), from the same run: N connections
# (5000 unless given) each make one request and then wait; the growth of
# the server's VmRSS divided by N is printed for each server. See
# idle/main.go. Runs under the shared benchmark lock.
#
#   http1/bench/idle.sh [N]
set -euo pipefail
N=${1:-5000}
LOCK=${BENCH_LOCK:-/tmp/bench-harness.lock}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/idle-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$here/../.." && go build -o "$tmp/mosaic" ./cmd/mosaic && go build -o "$tmp/idle" ./http1/bench/idle)
# Both ends of every connection, twice over.
ulimit -n "$(ulimit -Hn)"
flock "$LOCK" "$tmp/idle" -mosaic "$tmp/mosaic" -n "$N"
