#!/usr/bin/env bash
# compare-nginx.sh: one small file served by NGINX (one worker, sendfile
# on, no access log) and by package static (bench/fileserver,
# GOMAXPROCS=1), each pinned to one CPU with wrk on another. A third server,
# net/http writing the same bytes from memory, shows the floor net/http sets
# before any file is opened.
#
# The servers take turns for several rounds. For each the script prints
# requests per second and the server's CPU time per request (user + system,
# from /proc); on a machine shared with other work the CPU time is the
# steadier figure. The ratios are of the medians, NGINX = 1.
#
#   static/bench/compare-nginx.sh [--size BYTES] [--duration S] [--conns N] [--rounds N]
#
# Needs nginx, wrk, taskset, curl and go; ports 127.0.0.1:18091-18093.
set -euo pipefail

SIZE=4096 DURATION=5 CONNS=16 ROUNDS=5 SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
while (($#)); do
	case $1 in
	--size) SIZE=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--conns) CONNS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	*) echo "usage: $0 [--size BYTES] [--duration S] [--conns N] [--rounds N]" >&2; exit 2 ;;
	esac
done
for c in nginx wrk taskset curl go pgrep; do
	command -v "$c" >/dev/null || { echo "missing command: $c" >&2; exit 1; }
done

# One benchmark at a time on a shared machine.
exec 9>"${TMPDIR:-/tmp}/bench-harness.lock"
flock 9

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/static-bench.XXXXXX")
chmod 755 "$tmp"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/www" "$tmp/logs"
head -c "$SIZE" /dev/urandom >"$tmp/www/file.bin"
chmod -R a+rX "$tmp/www"
(cd "$here/../.." && go build -o "$tmp/fileserver" ./static/bench/fileserver)

cat >"$tmp/nginx.conf" <<CONF
worker_processes 1;
daemon off;
error_log $tmp/logs/error.log;
pid $tmp/nginx.pid;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile on;
	keepalive_requests 1000000;
	server { listen 127.0.0.1:18091; root $tmp/www; }
}
CONF

wait_up() { # url
	local i
	for ((i = 0; i < 100; i++)); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done
	echo "server at $1 did not start" >&2
	exit 1
}
ticks() { # pid: user + system clock ticks
	local stat
	stat=$(<"/proc/$1/stat")
	stat=${stat##*) } # the command name may hold spaces
	awk '{print $12 + $13}' <<<"$stat"
}
hz=$(getconf CLK_TCK)

taskset -c "$SERVER_CPU" nginx -p "$tmp" -c "$tmp/nginx.conf" 2>"$tmp/logs/nginx.out" &
pids+=($!)
GOMAXPROCS=1 taskset -c "$SERVER_CPU" "$tmp/fileserver" -root "$tmp/www" -addr 127.0.0.1:18092 2>"$tmp/logs/static.out" &
pids+=($!)
static_pid=$!
GOMAXPROCS=1 taskset -c "$SERVER_CPU" "$tmp/fileserver" -memory "$tmp/www/file.bin" -addr 127.0.0.1:18093 2>"$tmp/logs/memory.out" &
pids+=($!)
memory_pid=$!
for port in 18091 18092 18093; do wait_up "http://127.0.0.1:$port/file.bin"; done
nginx_pid=$(pgrep -P "${pids[0]}" | head -1) # the worker

# run NAME PORT PID SECONDS: prints "req/s cpu-us-per-request".
run() {
	local t0 t1 out
	t0=$(ticks "$3")
	out=$(taskset -c "$CLIENT_CPU" wrk -t 1 -c "$CONNS" -d "${4}s" "http://127.0.0.1:$2/file.bin")
	t1=$(ticks "$3")
	awk -v t="$((t1 - t0))" -v hz="$hz" '
		/requests in/ {n = $1}
		/Requests\/sec/ {rps = $2}
		END {printf "%.0f %.1f\n", rps, t / hz * 1e6 / n}' <<<"$out"
}

names=(nginx static memory) ports=(18091 18092 18093) procs=("$nginx_pid" "$static_pid" "$memory_pid")
declare -A rps cpu
for i in 0 1 2; do run "${names[i]}" "${ports[i]}" "${procs[i]}" 1 >/dev/null; done # warm-up
for ((r = 0; r < ROUNDS; r++)); do
	for i in 0 1 2; do
		read -r q c < <(run "${names[i]}" "${ports[i]}" "${procs[i]}" "$DURATION")
		rps[${names[i]}]+="$q " cpu[${names[i]}]+="$c "
	done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "file $SIZE bytes, $CONNS connections, $ROUNDS rounds of ${DURATION}s"
nr=$(median <<<"${rps[nginx]}") nc=$(median <<<"${cpu[nginx]}")
for n in "${names[@]}"; do
	mr=$(median <<<"${rps[$n]}") mc=$(median <<<"${cpu[$n]}")
	printf '%-7s req/s: %s\n' "$n" "${rps[$n]}"
	printf '%-7s CPU us/request: %s\n' "$n" "${cpu[$n]}"
	awk -v n="$n" -v mr="$mr" -v mc="$mc" -v nr="$nr" -v nc="$nc" \
		'BEGIN {printf "%-7s median %.0f req/s (x%.2f), %.1f us CPU/request (throughput per CPU x%.2f)\n", n, mr, mr / nr, mc, nc / mc}'
done
