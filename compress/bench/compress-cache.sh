#!/usr/bin/env bash
# compress_cache on against off: jquery.min.js compressed with brotli level
# 11 by the mosaic binary, under wrk. Server on CPU 0, wrk on CPU 1.
#
#   compress/bench/compress-cache.sh [--seconds 5]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=5
[[ "${1:-}" == "--seconds" ]] && seconds=$2
port=18131
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/mosaic" ./cmd/mosaic
mkdir -p "$tmp/files"
cp compress/testdata/jquery.min.js "$tmp/files/"
for mode in off on; do
    cat >"$tmp/mosaic.conf" <<CONF
worker_processes 1;
http {
    access_log off;
    brotli on;
    brotli_types application/javascript;
    brotli_comp_level 11;
    compress_cache $mode;
    server { listen 127.0.0.1:$port; root $tmp/files; }
}
CONF
    taskset -c 0 "$tmp/mosaic" -c "$tmp/mosaic.conf" 2>/dev/null &
    pid=$!
    for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$port/jquery.min.js" && break; sleep 0.1; done
    printf 'compress_cache %-3s ' "$mode"
    flock /tmp/bench-harness.lock taskset -c 1 wrk -t2 -c8 -d"${seconds}s" -H 'Accept-Encoding: br' \
        "http://127.0.0.1:$port/jquery.min.js" | awk '/Requests\/sec/ {print $2 " req/s"} /Latency/ {lat=$2} END {print "  mean latency " lat}' | paste -sd' '
    kill "$pid"; wait "$pid" 2>/dev/null || true
done
