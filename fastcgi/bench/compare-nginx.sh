#!/usr/bin/env bash
# compare-nginx.sh: requests per second of a trivial PHP script through
# mosaic and through Debian's NGINX, both in front of the same php-fpm
# pool, in turn. Each server runs alone (one worker) pinned to
# $SERVER_CPU, php-fpm's workers to $FPM_CPUS, wrk to $CLIENT_CPU; both
# servers keep their FastCGI connections alive (fastcgi_keep_conn and an
# upstream keepalive). Rounds alternate so that both see the same machine.
# It prints each run (req/s, server CPU µs per request) and the medians.
#
#   fastcgi/bench/compare-nginx.sh [MOSAIC_BINARY] [ROUNDS]
#
# MOSAIC_BINARY defaults to a build of ./cmd/mosaic. Needs php-fpm (8.2),
# nginx, wrk, taskset, flock and curl; ports 127.0.0.1:18130 and :18131.
# With FLOOR=1 each round also measures fastcgi/bench/gofloor (on :18132,
# GOMAXPROCS=1): the least a Go server does for the same requests.
#
# php-fpm has FPM_WORKERS workers, by default as many as wrk's connections
# (CONNS): a worker serves a kept connection until the server closes it,
# so with fewer workers than the connections a server keeps, requests sent
# on the others wait until some connection closes (with 4 workers for 8
# connections, a 99th percentile of 0.3-0.8 s for both servers).
#
# INSTRUCTIONS=1 counts the user-space instructions a request costs each
# server instead of timing it (instructions_per_request in
# internal/bench/wrk.sh; php-fpm's own are not counted), which the
# machine's load does not move. Needs valgrind; ROUNDS is ignored. With
# IPR_CALLGRIND=1 and IPR_OUT (internal/bench/wrk.sh) callgrind counts
# them, and its files the calls between functions too.
#
# SYSCALLS=1 counts the system calls a request costs each server instead
# (syscalls_per_request in internal/bench/wrk.sh: `perf trace -s` on the
# server's threads, php-fpm's not counted, over SYSCALLS_N, default 2,000,
# requests on one kept client connection and so one kept php-fpm
# connection). SYSCALLS_RATE (e.g. 10/s, with SYSCALLS_N a few hundred)
# spaces them, so that both connections wait as idle ones do;
# SYSCALLS_WRK=1 counts them under wrk as the timed runs load the servers
# ($CONNS connections). Needs perf; ROUNDS is ignored.
#
# CPUSPLIT=1 splits each server's CPU a request into user and system time
# under wrk (cpu_split in internal/bench/wrk.sh), with perf stat's context
# switches, migrations and page faults a request: ROUNDS rounds of
# DURATION seconds, the servers (and gofloor with FLOOR=1) alternating,
# then each column's median and range. Needs perf.
#
# LOCATION_EXTRA is added to both servers' location (for example
# 'try_files $uri =404;'), and URI_PATH (default empty) is the path
# requested, without its leading slash (hello.php for that try_files).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
ROUNDS=${2:-5} DURATION=${DURATION:-3} CONNS=${CONNS:-8} THREADS=${THREADS:-1}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1} FPM_CPUS=${FPM_CPUS:-2,3} FPM_WORKERS=${FPM_WORKERS:-$CONNS}
LOCK=${BENCH_LOCK:-/tmp/bench-harness.lock}
FPM=${FPM:-$(command -v php-fpm8.2 || echo /usr/sbin/php-fpm8.2)}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
. "$repo/internal/bench/wrk.sh"

setup_mosaic "${1:-}"

mkdir -p "$tmp/www" "$tmp/nginx"
printf '<?php\necho "hello from php\\n";\n' >"$tmp/www/hello.php"
cp "$repo/modules/fastcgimod/nginx/fastcgi.conf" "$tmp/nginx/"

cat >"$tmp/fpm.conf" <<CONF
[global]
pid = $tmp/fpm.pid
error_log = $tmp/fpm.log
daemonize = no
[www]
listen = $tmp/php.sock
pm = static
pm.max_children = $FPM_WORKERS
pm.max_requests = 0
CONF
root=()
[[ $(id -u) == 0 ]] && root=(-R)
taskset -c "$FPM_CPUS" "$FPM" -n -F -y "$tmp/fpm.conf" -p "$tmp" "${root[@]}" 2>>"$tmp/fpm.out" &
for _ in $(seq 50); do [[ -S $tmp/php.sock ]] && break; sleep 0.1; done
# php-fpm that did not start (FPM_CPUS names CPUs this machine lacks: set
# FPM_CPUS=1 on two) would leave every run at 0 requests per second.
[[ -S $tmp/php.sock ]] || { echo "php-fpm did not start (FPM_CPUS=$FPM_CPUS):" >&2; cat "$tmp/fpm.out" >&2; exit 1; }

# The same site for both: every request runs hello.php.
site() {
	cat <<CONF
	access_log off; keepalive_requests 1000000;
	upstream php { server unix:$tmp/php.sock; keepalive 16; }
	server {
		listen 127.0.0.1:$1;
		root $tmp/www;
		location / {
			include fastcgi.conf;
			fastcgi_param SCRIPT_FILENAME $tmp/www/hello.php;
			fastcgi_keep_conn on;
			fastcgi_pass php;
			${LOCATION_EXTRA:-}
		}
	}
CONF
}
cat >"$tmp/mosaic.conf" <<CONF
worker_processes 1;
error_log $tmp/mosaic-error.log;
http {
$(site 18130)
}
CONF
cat >"$tmp/nginx/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
error_log $tmp/nginx-error.log; pid $tmp/nginx.pid;
events { worker_connections 1024; }
http {
	client_body_temp_path $tmp/body; fastcgi_temp_path $tmp/fcgi;
	proxy_temp_path $tmp/proxy; uwsgi_temp_path $tmp/uwsgi; scgi_temp_path $tmp/scgi;
$(site 18131)
}
CONF

if [[ -n ${INSTRUCTIONS:-} ]]; then
	# valgrind 3.19 does not know RDTSCP, which Go's runtime reads the
	# clock with where the processor has it (AMD's EPYC here): mosaic
	# would die of SIGILL at once. The runtime then uses RDTSC.
	m=$(GOMAXPROCS=1 GODEBUG=${GODEBUG:+$GODEBUG,}cpu.rdtscp=off instructions_per_request 18130 "${URI_PATH:-}" "$mosaic" -c "$tmp/mosaic.conf")
	n=$(instructions_per_request 18131 "${URI_PATH:-}" "$NGINX" -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf")
	echo "user-space instructions a request: mosaic $m, nginx $n"
	awk -v m="$m" -v n="$n" 'BEGIN {if (n > 0) printf "mosaic/nginx: %.2fx\n", m / n}'
	exit 0
fi

if [[ -n ${SYSCALLS:-} ]]; then
	m=$(syscalls_per_request 18130 "${URI_PATH:-}" env GOMAXPROCS=1 "$mosaic" -c "$tmp/mosaic.conf")
	n=$(syscalls_per_request 18131 "${URI_PATH:-}" "$NGINX" -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf")
	syscalls_table "PHP" "$m" "$n"
	exit 0
fi

names=(mosaic nginx)
if [[ ${FLOOR:-} == 1 ]]; then
	(cd "$repo" && go build -o "$tmp/gofloor" ./fastcgi/bench/gofloor)
	names+=(gofloor)
fi
if [[ -n ${CPUSPLIT:-} ]]; then
	declare -A split
	for ((r = 1; r <= ROUNDS; r++)); do
		for name in "${names[@]}"; do
			case $name in
			mosaic) line=$(cpu_split 18130 "${URI_PATH:-}" "$DURATION" "$mosaic" -c "$tmp/mosaic.conf") ;;
			nginx) line=$(cpu_split 18131 "${URI_PATH:-}" "$DURATION" "$NGINX" -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf") ;;
			gofloor) line=$(cpu_split 18132 "${URI_PATH:-}" "$DURATION" env GOMAXPROCS=1 "$tmp/gofloor" \
				-listen 127.0.0.1:18132 -socket "$tmp/php.sock" -script "$tmp/www/hello.php") ;;
			esac
			echo "round $r $name: $line"
			split[$name]+="$line"$'\n'
		done
	done
	echo "| a request, median (range) of $ROUNDS | req/s | user µs | system µs | context switches | migrations | page faults |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	for name in "${names[@]}"; do
		row="| $name"
		for col in 1 2 3 4 5 6; do
			vals=$(awk -v c="$col" 'NF {print $c}' <<<"${split[$name]}")
			row+=" | $(median <<<"$vals") ($(sort -g <<<"$vals" | head -1)–$(sort -g <<<"$vals" | tail -1))"
		done
		echo "$row |"
	done
	exit 0
fi

declare -A rps cpu
for ((r = 1; r <= ROUNDS; r++)); do
	for name in "${names[@]}"; do
		case $name in
		mosaic) read -r q c < <(serve_and_measure 18130 "${URI_PATH:-}" "$DURATION" "$mosaic" -c "$tmp/mosaic.conf") ;;
		nginx) read -r q c < <(serve_and_measure 18131 "${URI_PATH:-}" "$DURATION" "$NGINX" -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf") ;;
		gofloor) read -r q c < <(serve_and_measure 18132 "${URI_PATH:-}" "$DURATION" env GOMAXPROCS=1 "$tmp/gofloor" \
			-listen 127.0.0.1:18132 -socket "$tmp/php.sock" -script "$tmp/www/hello.php") ;;
		esac
		echo "round $r $name: $q req/s, $c us CPU/request"
		rps[$name]+="$q " cpu[$name]+="$c "
	done
done
for name in "${names[@]}"; do
	echo "$name median $(median <<<"${rps[$name]}") req/s, $(median <<<"${cpu[$name]}") us CPU/request"
done
awk -v m="$(median <<<"${rps[mosaic]}")" -v n="$(median <<<"${rps[nginx]}")" \
	'BEGIN {if (n > 0) printf "mosaic/nginx: %.2fx\n", m / n}'
