#!/usr/bin/env bash
# ab-static.sh: two mosaic binaries serving the same 4 KB file (FILE, if
# set, instead), in turn,
# for a before/after comparison of one change. Each runs alone
# (worker_processes 1) pinned to $SERVER_CPU, wrk pinned to $CLIENT_CPU,
# no access log; rounds alternate so that both see the same machine. It
# prints each run (req/s, server CPU µs per request) and the medians.
#
#   internal/bench/ab-static.sh BEFORE_BINARY AFTER_BINARY [ROUNDS]
#
# Build the two with, for example:
#   git worktree add /tmp/before REV && (cd /tmp/before && go build -o /tmp/mosaic-before ./cmd/mosaic)
#   go build -o /tmp/mosaic-after ./cmd/mosaic
#
# Needs wrk, taskset, flock and curl; port 127.0.0.1:18120.
set -euo pipefail

before=${1:?usage: $0 BEFORE_BINARY AFTER_BINARY [ROUNDS]}
after=${2:?usage: $0 BEFORE_BINARY AFTER_BINARY [ROUNDS]}
ROUNDS=${3:-5} DURATION=${DURATION:-3} CONNS=${CONNS:-8} THREADS=${THREADS:-1}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
LOCK=${BENCH_LOCK:-/tmp/bench-harness.lock}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/wrk.sh"

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/www"
if [[ -n ${FILE:-} ]]; then
	cp "$FILE" "$tmp/www/4k.bin"
else
	head -c 4096 /dev/urandom >"$tmp/www/4k.bin"
fi
cat >"$tmp/mosaic.conf" <<CONF
worker_processes 1;
error_log $tmp/error.log;
http { access_log off; keepalive_requests 1000000;
	server { listen 127.0.0.1:18120; root $tmp/www; } }
CONF

declare -A rps cpu
for ((r = 1; r <= ROUNDS; r++)); do
	for name in before after; do
		bin=$before
		[[ $name == after ]] && bin=$after
		taskset -c "$SERVER_CPU" "$bin" -c "$tmp/mosaic.conf" 2>>"$tmp/server.out" &
		pid=$!
		for _ in $(seq 50); do curl -sf -o /dev/null http://127.0.0.1:18120/4k.bin && break; sleep 0.1; done
		read -r q c < <(measure 18120 "$pid" 4k.bin "$DURATION")
		echo "round $r $name: $q req/s, $c us CPU/request"
		rps[$name]+="$q " cpu[$name]+="$c "
		kill "$pid"
		wait "$pid" 2>/dev/null || true
	done
done
for name in before after; do
	echo "$name median $(median <<<"${rps[$name]}") req/s, $(median <<<"${cpu[$name]}") us CPU/request"
done
