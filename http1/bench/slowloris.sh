#!/usr/bin/env bash
# slowloris.sh: what an attacker that holds connections with half a
# request header, reconnecting when the server ends one, costs the
# requests of everyone else: wrk's requests per second for a 4 KB file,
# alone and with the attacker (slowloris/main.go) running beside it, on
# mosaic and on Debian's NGINX (one worker each, access log off,
# client_header_timeout 5s), every wrk run under the shared benchmark
# lock, with the server's CPU time per request. The servers are pinned to
# SERVER_CPU (0), wrk and the attacker to CLIENT_CPU (1), so that the
# attacker's own work does not pass for the server's. Loopback only;
# bounded by DURATION per run and CONNS attacker connections.
#
#   http1/bench/slowloris.sh [--duration S] [--conns N] [--rounds N]
#
# MOSAIC=path runs that mosaic binary instead of one built from the tree
# (a build from before a change, to compare).
set -euo pipefail
DURATION=10 CONNS=1000 ROUNDS=2 WRK_CONNS=8 THREADS=2
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
LOCK=${BENCH_LOCK:-/tmp/bench-harness.lock}
while (($#)); do
	case $1 in
	--duration) DURATION=$2; shift 2 ;;
	--conns) CONNS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	*) echo "usage: $0 [--duration S] [--conns N] [--rounds N]" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../internal/bench/wrk.sh
. "$here/../../internal/bench/wrk.sh"
bench_tmp slowloris
ulimit -n "$(ulimit -Hn)"
mkdir -p "$tmp/www"
head -c 4096 /dev/urandom >"$tmp/www/file.bin"
chmod -R a+rX "$tmp/www"
(cd "$here/../.." && go build -o "$tmp/slowloris" ./http1/bench/slowloris)
if [[ -n ${MOSAIC:-} ]]; then
	cp "$MOSAIC" "$tmp/mosaic"
else
	(cd "$here/../.." && go build -o "$tmp/mosaic" ./cmd/mosaic)
fi

common="access_log off; keepalive_requests 1000000; client_header_timeout 5s;"
cat >"$tmp/nginx.conf" <<CONF
worker_processes 1; daemon off; error_log $tmp/nginx-error.log; pid $tmp/nginx.pid;
events { worker_connections $((CONNS + 200)); }
http { $common client_body_temp_path $tmp; proxy_temp_path $tmp; fastcgi_temp_path $tmp;
	uwsgi_temp_path $tmp; scgi_temp_path $tmp;
	server { listen 127.0.0.1:18312; root $tmp/www; } }
CONF
cat >"$tmp/mosaic.conf" <<CONF
worker_processes 1; error_log $tmp/mosaic-error.log;
http { $common server { listen 127.0.0.1:18311; root $tmp/www; } }
CONF
taskset -c "$SERVER_CPU" "$tmp/mosaic" -c "$tmp/mosaic.conf" 2>/dev/null & pids+=($!)
mosaic_pid=$!
taskset -c "$SERVER_CPU" /usr/sbin/nginx -p "$tmp" -c "$tmp/nginx.conf" -e "$tmp/nginx-error.log" & pids+=($!)
nginx_master=$!
for port in 18311 18312; do
	for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/file.bin" && break; sleep 0.1; done
done
nginx_pid=$(pgrep -P "$nginx_master" | head -1)

# run PORT PID ATTACK: "req/s cpu-us-per-request" of one wrk run, with the
# attacker beside it when ATTACK is 1 (started a second before wrk, so
# that its connections are in place, and stopped after it), all under the
# lock. wrk and the attacker share CLIENT_CPU, the server has SERVER_CPU;
# the CPU time is the server's (user + system, /proc/PID/stat), which on
# a shared machine is the steadier figure.
run() {
	flock "$LOCK" bash -c '
		ticks() { local s; s=$(<"/proc/$1/stat"); s=${s##*) }; awk "{print \$12 + \$13}" <<<"$s"; }
		if (($3)); then
			taskset -c "$4" "$5" -addr "127.0.0.1:$1" -conns "$6" -duration "$(($7 + 2))s" >"$8" &
			sleep 1
		fi
		t0=$(ticks "$2")
		out=$(taskset -c "$4" wrk -t "$9" -c "${10}" -d "$7s" "http://127.0.0.1:$1/file.bin")
		t1=$(ticks "$2")
		wait
		awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" "
			/requests in/ {n = \$1}
			/Requests\/sec/ {rps = \$2}
			END {printf \"%.0f %.1f\n\", rps, t / hz * 1e6 / n}" <<<"$out"
	' run "$1" "$2" "$3" "$CLIENT_CPU" "$tmp/slowloris" "$CONNS" "$DURATION" "$tmp/attacker.txt" "$THREADS" "$WRK_CONNS"
	if (($3)); then cat "$tmp/attacker.txt" >&2; fi
}
for r in $(seq "$ROUNDS"); do
	for s in "mosaic 18311 $mosaic_pid" "nginx 18312 $nginx_pid"; do
		read -r name port pid <<<"$s"
		read -r a acpu <<<"$(run "$port" "$pid" 0)"
		read -r b bcpu <<<"$(run "$port" "$pid" 1)"
		awk -v n="$name" -v r="$r" -v a="$a" -v b="$b" -v ac="$acpu" -v bc="$bcpu" 'BEGIN {
			printf "round %d %-6s alone %6.0f req/s %5.1f us/req, attacked %6.0f req/s (%+.1f%%) %5.1f us/req (%+.1f%%)\n",
				r, n, a, ac, b, (b / a - 1) * 100, bc, (bc / ac - 1) * 100}'
	done
done
