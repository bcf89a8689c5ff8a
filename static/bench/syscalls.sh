#!/usr/bin/env bash
# syscalls.sh: the system calls the mosaic binary makes per request for a
# small file, counted by the kernel (perf stat -e raw_syscalls:sys_enter)
# while wrk asks for it, with each way of opening files:
#   checked  mosaic's default, the checked open file cache
#   off      "open_file_cache off;", an open per request
#   cache    "open_file_cache max=1000 inactive=20s; open_file_cache_valid 60s;"
# for a file at the root and one a directory down.
#
#   static/bench/syscalls.sh [--size BYTES] [--duration S]
#
# Needs perf (with the raw_syscalls tracepoint, so root or a low
# perf_event_paranoid), wrk, taskset, flock, curl and go; ports
# 127.0.0.1:18111-18113.
set -euo pipefail

SIZE=4096 DURATION=3
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
LOCK=${BENCH_LOCK:-/tmp/bench-harness.lock}
while (($#)); do
	case $1 in
	--size) SIZE=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	*) echo "usage: $0 [--size BYTES] [--duration S]" >&2; exit 2 ;;
	esac
done
for c in perf wrk taskset flock curl go; do
	command -v "$c" >/dev/null || { echo "missing command: $c" >&2; exit 1; }
done

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../internal/bench/wrk.sh
. "$here/../../internal/bench/wrk.sh"
bench_tmp static-syscalls

mkdir -p "$tmp/www/d"
head -c "$SIZE" /dev/urandom >"$tmp/www/file.bin"
cp "$tmp/www/file.bin" "$tmp/www/d/file.bin"
(cd "$here/../.." && go build -o "$tmp/mosaic" ./cmd/mosaic)

names=(checked off cache)
extras=("" "open_file_cache off;" "open_file_cache max=1000 inactive=20s; open_file_cache_valid 60s;")
ports=(18111 18112 18113)
for i in "${!names[@]}"; do
	cat >"$tmp/${names[i]}.conf" <<-CONF
		worker_processes 1;
		error_log $tmp/${names[i]}.log;
		http {
			access_log off;
			keepalive_requests 1000000;
			${extras[i]}
			server { listen 127.0.0.1:${ports[i]}; root $tmp/www; }
		}
	CONF
	taskset -c "$SERVER_CPU" "$tmp/mosaic" -c "$tmp/${names[i]}.conf" 2>>"$tmp/${names[i]}.out" &
	pids+=($!)
done
for port in "${ports[@]}"; do
	for ((n = 0; n < 100; n++)); do curl -sf -o /dev/null "http://127.0.0.1:$port/file.bin" && break; sleep 0.1; done
done

echo "file $SIZE bytes, wrk -t2 -c8 -d${DURATION}s; system calls per request"
for i in "${!names[@]}"; do
	for path in file.bin d/file.bin; do
		url="http://127.0.0.1:${ports[i]}/$path"
		curl -sf -o /dev/null "$url" # the first open, outside the count
		out=$(flock "$LOCK" perf stat -x, -e raw_syscalls:sys_enter -p "${pids[i]}" -- \
			taskset -c "$CLIENT_CPU" wrk -t2 -c8 -d"${DURATION}s" "$url" 2>&1)
		awk -F, -v name="${names[i]}" -v path="$path" '
			/requests in/ {split($0, w, " "); n = w[1]}
			/raw_syscalls:sys_enter/ {calls = $1}
			END {printf "  %-8s %-11s %.2f\n", name, path, calls / n}' <<<"$out"
	done
done
