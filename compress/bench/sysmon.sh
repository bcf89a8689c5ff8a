#!/usr/bin/env bash
# sysmon.sh: how often Go's sysmon thread wakes around a response, per
# response: `perf stat --per-thread` of mosaic (GOMAXPROCS=1, pinned to
# $SERVER_CPU) over N requests on one kept connection (curl on
# $CLIENT_CPU), summed over its threads: CPU time, context switches and
# the nanosleep, futex and sched_yield calls (sysmon's naps, wakes and
# lock spinning), and in brackets those of every thread but the busiest
# (the one serving). Counts, not times: the machine's load moves them
# little. See compress README, "Keeping sysmon asleep through a response".
#
#   compress/bench/sysmon.sh [MOSAIC_BINARY] [N]
#
# PATHS (default "l6/body.js l1/small.json id/small.json id/body.js")
# picks the requests: body.js is jquery.min.js (87 KB), small.json
# api-small.json (2 KB), both from ../shared/corpus; /lN/ compresses at
# brotli level N (1, 6, 11), /id/ does not. WRK=1 loads the server as
# ../shared/bench/compress.sh does instead (wrk -t2 -c8 for 3 s, N
# ignored: the count is wrk's). Needs perf, curl, taskset (and wrk);
# port 127.0.0.1:18153.
#
# PREEMPT=1 measures instead what sysmon's sleep costs, N times: how long
# a 2 KB /id/ request on a fresh connection waits when asked 50 ms into a
# level-11 response of $BIG (default react-dom.development.js, 1 MB) on
# a connection kept idle for 2 s first (parked, sysmon asleep on its
# note; only sysmon preempts a goroutine that runs long).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
N=${2:-500} PATHS=${PATHS:-"l6/body.js l1/small.json id/small.json id/body.js"}
corpus=$repo/../shared/corpus
[[ -f $corpus/jquery.min.js ]] || { echo "no $corpus" >&2; exit 1; }
# shellcheck source=../../internal/bench/wrk.sh
. "$repo/internal/bench/wrk.sh"
setup_mosaic "${1:-}"
mkdir -p "$tmp/www" "$tmp/t"
cp "$corpus/jquery.min.js" "$tmp/www/body.js"
cp "$corpus/api-small.json" "$tmp/www/small.json"
cp "$corpus/${BIG:-react-dom.development.js}" "$tmp/www/big.js"
cat >"$tmp/m.conf" <<CONF
worker_processes 1;
pid $tmp/m.pid;
error_log $tmp/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	keepalive_requests 1000000;
	client_body_temp_path $tmp/t; proxy_temp_path $tmp/t;
	fastcgi_temp_path $tmp/t; uwsgi_temp_path $tmp/t; scgi_temp_path $tmp/t;
	types { application/javascript js; application/json json; }
	brotli on;
	brotli_types application/javascript application/json;
	server {
		listen 127.0.0.1:18153;
		location /l1/ { brotli_comp_level 1; alias $tmp/www/; }
		location /l6/ { brotli_comp_level 6; alias $tmp/www/; }
		location /l11/ { brotli_comp_level 11; alias $tmp/www/; }
		location /id/ { brotli off; alias $tmp/www/; }
	}
}
CONF
GOMAXPROCS=1 taskset -c "$SERVER_CPU" "$mosaic" -c "$tmp/m.conf" 2>"$tmp/server.out" &
pid=$!
for _ in $(seq 50); do curl -sf -o /dev/null http://127.0.0.1:18153/id/small.json && break; sleep 0.1; done
if [[ -n ${PREEMPT:-} ]]; then
	ms() { echo $(($(date +%s%N) / 1000000)); }
	for _ in $(seq "$N"); do
		t0=$(ms)
		taskset -c "$CLIENT_CPU" curl -sf -o /dev/null -H 'Accept-Encoding: br' http://127.0.0.1:18153/l11/big.js
		alone=$(($(ms) - t0))
		exec 3<>/dev/tcp/127.0.0.1/18153
		printf 'GET /id/small.json HTTP/1.1\r\nHost: x\r\n\r\n' >&3
		sleep 2
		printf 'GET /l11/big.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br\r\nConnection: close\r\n\r\n' >&3
		sleep 0.05
		t0=$(ms)
		taskset -c "$CLIENT_CPU" curl -sf -o /dev/null http://127.0.0.1:18153/id/small.json
		echo "level 11 alone $alone ms; 2 KB asked 50 ms into it answered in $(($(ms) - t0)) ms"
		cat <&3 >/dev/null # to the end of the level-11 response
		exec 3<&-
	done
	exit 0
fi
events=task-clock,context-switches,syscalls:sys_enter_nanosleep,syscalls:sys_enter_futex,syscalls:sys_enter_sched_yield
for p in $PATHS; do
	for i in $(seq "$N"); do printf 'url = "http://127.0.0.1:18153/%s"\noutput = "/dev/null"\n' "$p"; done >"$tmp/urls"
	head -200 "$tmp/urls" | taskset -c "$CLIENT_CPU" curl -sf -H 'Accept-Encoding: br' -K - # warm
	perf stat --per-thread -x, -e "$events" -p "$pid" -o "$tmp/stat" &
	sp=$!
	sleep 0.5
	n=$N
	if [[ -n ${WRK:-} ]]; then
		n=$(taskset -c "$CLIENT_CPU" wrk -t2 -c8 -d3s -H 'Accept-Encoding: br' "http://127.0.0.1:18153/$p" | awk '/requests in/ {print $1}')
	else
		taskset -c "$CLIENT_CPU" curl -sf -H 'Accept-Encoding: br' -K "$tmp/urls"
	fi
	kill -INT $sp
	wait $sp || true
	# rows: thread,value,unit,event,...; "<not counted>" for idle threads
	awk -F, -v n="$n" -v p="$p" '
		/^#/ || NF < 4 { next }
		{ v = ($2 ~ /not/) ? 0 : $2 + 0; e = $4; sub(/^syscalls:sys_enter_/, "", e); val[$1, e] = v; th[$1] = 1 }
		END {
			for (t in th) if (val[t, "task-clock"] > max) { max = val[t, "task-clock"]; busy = t }
			printf "%-14s", p
			split("task-clock context-switches nanosleep futex sched_yield", E, " ")
			for (i = 1; i <= 5; i++) {
				tot = 0; oth = 0
				for (t in th) { tot += val[t, E[i]]; if (t != busy) oth += val[t, E[i]] }
				if (i == 1) printf "  cpu %.1f µs (%.1f)", tot * 1000 / n, oth * 1000 / n
				else printf "  %s %.2f (%.2f)", E[i], tot / n, oth / n
			}
			printf "\n"
		}' "$tmp/stat"
done
kill $pid
wait $pid 2>/dev/null || true
