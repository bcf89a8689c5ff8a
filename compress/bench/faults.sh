#!/usr/bin/env bash
# faults.sh: what cachegrind does not count (outside-encoder.sh): the page
# faults and the kernel's CPU time of one brotli response, for mosaic and
# Debian's NGINX + ngx_brotli on one configuration (compress.sh's types and
# levels). Each server runs alone, pinned to $SERVER_CPU, answers a few
# responses, then N more on one kept connection (curl on $CLIENT_CPU);
# the minor faults and the user and system CPU time of those N, read from
# /proc/PID/stat, are printed per response. Clock ticks are 10 ms, so N
# is chosen to span a few hundred milliseconds at least.
#
# mosaic is first warmed past its collector's first cycle (batches of N
# until GODEBUG=gctrace=1 prints "gc 1", at most $WARM_S seconds,
# default 60): until then its heap grows into memory it never touched,
# toward the first heap goal (16 MiB under its default GC policy), and
# every page of it faults once; from the first cycle on the heap reuses
# those pages. The warm-up's responses and faults a response are the last
# two columns ("cold" where no cycle came within $WARM_S: the faults
# counted are then the cold heap's). NGINX's request pools reuse the
# memory of the request before, so 3 responses warm it.
#
#   compress/bench/faults.sh [MOSAIC_BINARY]
#
# CELLS (default: compress.sh's 25, "file:level:N" or "file:level")
# picks files of ../shared/corpus, levels and N (default 200); level "id"
# is the file uncompressed (brotli off). Needs nginx with the brotli
# filter module, curl, taskset; port 127.0.0.1:18152.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
# shellcheck source=../../internal/bench/wrk.sh
. "$repo/internal/bench/wrk.sh"
setup_mosaic "${1:-}"
# shellcheck source=cells.sh
. "$here/cells.sh"
CELLS=${CELLS:-$(compress_cells)}
modules=$(sed -n 's/^[[:space:]]*\(load_module[^;]*brotli[^;]*;\).*/\1/p' /etc/nginx/modules-enabled/*.conf 2>/dev/null || true)
[[ -n $modules ]] || { echo "nginx loads no brotli module: apt-get install libnginx-mod-http-brotli-filter" >&2; exit 1; }
cat >"$tmp/server.conf" <<CONF
$modules
worker_processes 1;
pid $tmp/server.pid;
error_log $tmp/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $tmp/body; proxy_temp_path $tmp/proxy;
	fastcgi_temp_path $tmp/fcgi; uwsgi_temp_path $tmp/uwsgi; scgi_temp_path $tmp/scgi;
	types { application/json json; application/javascript js; text/css css; }
	brotli on;
	brotli_types text/css application/javascript application/json;
	server {
		listen 127.0.0.1:18152;
		location /id/ { brotli off; alias $repo/../shared/corpus/; }
$(for l in 1 4 6 9 11; do echo "		location /l$l/ { brotli_comp_level $l; alias $repo/../shared/corpus/; }"; done)
	}
}
CONF

# fetch N PATH: N responses for PATH on one connection.
fetch() {
	for ((i = 0; i < $1; i++)); do printf 'url = "http://127.0.0.1:18152/%s"\noutput = "/dev/null"\n' "$2"; done >"$tmp/urls"
	taskset -c "$CLIENT_CPU" curl -sf --fail-early -H "Accept-Encoding: br" -K "$tmp/urls"
}

# faults_now PID: the minor faults of process PID so far.
faults_now() { local s; s=$(<"/proc/$1/stat"); s=${s##*) }; awk '{print $8}' <<<"$s"; }

# warm_up PID PATH N: fetches PATH in batches of N until the server's
# stderr ($tmp/server.err) shows the collector's first cycle, or $WARM_S
# seconds pass; prints "responses faults-a-response", "cold" appended
# when no cycle came.
warm_up() {
	local pid=$1 path=$2 n=$3 f0 count=0 end=$((SECONDS + ${WARM_S:-60})) cold=""
	f0=$(faults_now "$pid")
	until grep -q '^gc 1 ' "$tmp/server.err"; do
		((SECONDS < end)) || { cold=" cold"; break; }
		fetch "$n" "$path"
		count=$((count + n))
	done
	awk -v n="$count" -v f=$(($(faults_now "$pid") - f0)) -v c="$cold" \
		'BEGIN {printf "%d %.1f%s\n", n, n ? f / n : 0, c}'
}

# per_response PATH N WARM CMD...: "faults user-µs system-µs" a response,
# after 3 responses, and when WARM is 1 after warm_up (its figures
# appended).
per_response() {
	local path=$1 n=$2 warm=$3 pid f0 u0 s0 f1 u1 s1 w=""
	shift 3
	taskset -c "$SERVER_CPU" "$@" 2>"$tmp/server.err" >/dev/null &
	pid=$!
	echo "$pid" >"$tmp/pids"
	for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:18152/$path" && break; sleep 0.1; done
	fetch 3 "$path"
	[[ $warm != 1 ]] || w=$(warm_up "$pid" "$path" "$n")
	stat() { local s; s=$(<"/proc/$pid/stat"); s=${s##*) }; awk '{print $8, $12, $13}' <<<"$s"; }
	read -r f0 u0 s0 < <(stat)
	fetch "$n" "$path"
	read -r f1 u1 s1 < <(stat)
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	rm -f "$tmp/pids"
	cat "$tmp/server.err" >>"$tmp/server.out"
	awk -v n="$n" -v f=$((f1 - f0)) -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v hz="$(getconf CLK_TCK)" -v w="$w" \
		'BEGIN {printf "%.3f %.0f %.0f %s\n", f / n, u / hz * 1e6 / n, s / hz * 1e6 / n, w}'
}

echo "| file | level | responses | mosaic faults | mosaic user µs | mosaic system µs | nginx faults | nginx user µs | nginx system µs | mosaic warm-up responses | their faults a response |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for cell in $CELLS; do
	IFS=: read -r file level n <<<"$cell"
	n=${n:-200} path=l$level/$file
	[[ $level != id ]] || path=id/$file
	read -r mf mu ms wn wf < <(GOMAXPROCS=1 GODEBUG=gctrace=1 per_response "$path" "$n" 1 "$mosaic" -c "$tmp/server.conf")
	read -r nf nu ns < <(per_response "$path" "$n" 0 "$NGINX" -c "$tmp/server.conf" -g 'daemon off; master_process off;')
	echo "| $file | $level | $n | $mf | $mu | $ms | $nf | $nu | $ns | $wn | $wf |"
done
