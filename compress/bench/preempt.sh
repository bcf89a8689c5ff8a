#!/usr/bin/env bash
# preempt.sh: how long a 2 KB /id/ request on a fresh connection waits
# while the one P (GOMAXPROCS=1) compresses react-dom (1 MB) at brotli
# level 11 for a kept connection that was idle for 2 s first (parked,
# sysmon asleep on its note). Raw system calls keep sysmon asleep, and
# only sysmon preempts a goroutine that runs long: this bounds what that
# costs. See compress README, "Keeping sysmon asleep through a response".
#
#   compress/bench/preempt.sh [MOSAIC_BINARY] [TRIES]
#
# FILE (default react-dom.development.js) picks the body from
# ../shared/corpus. Needs curl, taskset; port 127.0.0.1:18154.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
corpus=$repo/../shared/corpus
[[ -f $corpus/${FILE:=react-dom.development.js} ]] || { echo "no $corpus/$FILE" >&2; exit 1; }
# shellcheck source=../../internal/bench/wrk.sh
. "$repo/internal/bench/wrk.sh"
setup_mosaic "${1:-}"
mkdir -p "$tmp/www" "$tmp/t"
cp "$corpus/$FILE" "$tmp/www/big.js"
cp "$corpus/api-small.json" "$tmp/www/small.json"
cat >"$tmp/m.conf" <<CONF
worker_processes 1;
pid $tmp/m.pid;
error_log $tmp/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $tmp/t; proxy_temp_path $tmp/t;
	fastcgi_temp_path $tmp/t; uwsgi_temp_path $tmp/t; scgi_temp_path $tmp/t;
	types { application/javascript js; application/json json; }
	brotli on;
	brotli_types application/javascript application/json;
	server {
		listen 127.0.0.1:18154;
		location /l11/ { brotli_comp_level 11; alias $tmp/www/; }
		location /id/ { brotli off; alias $tmp/www/; }
	}
}
CONF
GOMAXPROCS=1 taskset -c 0 "$mosaic" -c "$tmp/m.conf" 2>"$tmp/server.out" &
for _ in $(seq 50); do curl -sf -o /dev/null http://127.0.0.1:18154/id/small.json && break; sleep 0.1; done
ms() { echo $(($(date +%s%N) / 1000000)); }
for _ in $(seq "${2:-2}"); do
	t0=$(ms)
	taskset -c 1 curl -sf -o /dev/null -H 'Accept-Encoding: br' http://127.0.0.1:18154/l11/big.js
	alone=$(($(ms) - t0))
	exec 3<>/dev/tcp/127.0.0.1/18154
	printf 'GET /id/small.json HTTP/1.1\r\nHost: x\r\n\r\n' >&3
	sleep 2
	printf 'GET /l11/big.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br\r\nConnection: close\r\n\r\n' >&3
	sleep 0.05
	t0=$(ms)
	taskset -c 1 curl -sf -o /dev/null http://127.0.0.1:18154/id/small.json
	echo "level 11 alone $alone ms; 2 KB asked 50 ms into it answered in $(($(ms) - t0)) ms"
	cat <&3 >/dev/null # to the end of the level-11 response
	exec 3<&-
done
