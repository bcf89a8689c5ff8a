#!/usr/bin/env bash
# small-body.sh: what a small compressed response costs through the whole
# server, split into the request and the compression: mosaic and Debian's
# NGINX with ngx_brotli on one configuration, serving the same file as
# is (brotli off), at brotli level 1 and at level 6. Each server runs alone,
# one worker pinned to $SERVER_CPU, wrk on $CLIENT_CPU; rounds alternate
# the servers. It prints each run (req/s, server CPU µs per request) and
# the medians, with each level's cost over the uncompressed answer: the
# compression's own cost, apart from the request's.
#
#   compress/bench/small-body.sh [MOSAIC_BINARY] [ROUNDS]
#
# FILE (default ../shared/corpus/api-small.json, 2 KB) is the body.
# MOSAIC_BINARY defaults to a build of ./cmd/mosaic. Needs nginx with the
# brotli filter module (libnginx-mod-http-brotli-filter), wrk, taskset,
# flock and curl; ports 127.0.0.1:18150 and :18151.
#
# INSTRUCTIONS=1 counts the user-space instructions a request costs each
# server instead of timing it (instructions_per_request in
# internal/bench/wrk.sh), which the machine's load does not move. valgrind
# 3.19 does not know openat2, so mosaic's static files take the os.Root
# path there, which opens and closes the file on every request where the
# native binary's checked cache stats it by name (about 6,000 instructions
# a response under callgrind; compress README, "Where /id/'s 41,500 go"),
# and valgrind offers RDTSCP, which
# it cannot run and Go's clock uses: mosaic runs there with
# GODEBUG=cpu.rdtscp=off. Needs valgrind; ROUNDS is ignored. With
# NGINX=none it counts mosaic alone (where NGINX lacks the brotli
# module), and PATHS (default "id l1 l6"; /l1/ to /l11/ are there) picks
# the locations. For a large FILE, which takes a tenth of a second a
# response under cachegrind, set IPR_FIRST=10 IPR_MORE=40: the count is
# then the difference of 50 and 10 responses over 40 (outside-encoder.sh).
# MISSES=1 (with INSTRUCTIONS=1) simulates the caches in those runs
# (cachegrind --cache-sim=yes, MISSES_LL the second level, default
# 524288,8,64: one core's 512 KiB of the EPYC this was written on) and
# prints, a request, the instructions, the first level's instruction
# misses (I1), its data read and write misses (D1r, D1w) and the second
# level's misses (LL, all three kinds): what a response touches, which
# instructions alone do not tell (compress README, small18).
# SYSCALLS=1 counts the system calls a request costs each server instead
# (syscalls_per_request): `perf trace -s` on the running server, all its
# threads, over SYSCALLS_N (default 2,000) requests on one kept
# connection; it prints each call's count a request and, in brackets,
# its failures (a read that finds nothing yet), and fails when perf saw
# fewer responses written than requests sent (it attached late). Needs
# perf; ROUNDS is ignored. (strace -f -c slows the server enough that
# Go's sysmon takes the processor from a thread in a system call, which
# adds signals and futex wakes a native run does not have.) SYSCALLS_RATE (curl's --rate,
# e.g. 10/s) spaces the counted requests, so that the connection waits
# between them as an idle one does (http1 parks it after each response)
# rather than as a busy one; with it, set SYSCALLS_N to a few hundred.
#
# HTTP_EXTRA is added to both configurations' http block: with
# HTTP_EXTRA='open_file_cache max=100;' mosaic keeps the file's descriptor
# under valgrind too, as its checked cache does natively (NGINX then
# keeps its own).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
ROUNDS=${2:-3} DURATION=${DURATION:-3} CONNS=${CONNS:-8} THREADS=${THREADS:-2}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
LOCK=${BENCH_LOCK:-/tmp/bench-harness.lock}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
FILE=${FILE:-$repo/../shared/corpus/api-small.json}
# shellcheck source=../../internal/bench/wrk.sh
. "$repo/internal/bench/wrk.sh"
setup_mosaic "${1:-}"
mkdir -p "$tmp/www"
cp "$FILE" "$tmp/www/body.json"
# Debian ships ngx_brotli as dynamic modules that its own nginx.conf loads;
# mosaic notes the lines and goes on.
modules=$(sed -n 's/^[[:space:]]*\(load_module[^;]*brotli[^;]*;\).*/\1/p' /etc/nginx/modules-enabled/*.conf 2>/dev/null || true)
[[ -n $modules || ($NGINX == none && -n ${INSTRUCTIONS:-}) ]] || { echo "nginx loads no brotli module: apt-get install libnginx-mod-http-brotli-filter" >&2; exit 1; }

# conf NAME PORT: the same configuration for both servers.
conf() {
	cat <<CONF
$modules
worker_processes 1;
pid $tmp/$1.pid;
error_log $tmp/$1-error.log;
events { worker_connections 1024; }
http {
	access_log off;
	${HTTP_EXTRA:-}
	client_body_temp_path $tmp/body; proxy_temp_path $tmp/proxy;
	fastcgi_temp_path $tmp/fcgi; uwsgi_temp_path $tmp/uwsgi; scgi_temp_path $tmp/scgi;
	types { application/json json; }
	brotli on;
	brotli_types application/json;
	server {
		listen 127.0.0.1:$2;
		location /id/ { brotli off; alias $tmp/www/; }
$(for l in 1 2 3 4 5 6 7 8 9 10 11; do echo "		location /l$l/ { brotli_comp_level $l; alias $tmp/www/; }"; done)
	}
}
CONF
}
conf mosaic 18150 >"$tmp/mosaic.conf"
conf nginx 18151 >"$tmp/nginx.conf"

export WRK_HEADER="Accept-Encoding: br"
names=(mosaic nginx)
read -r -a paths <<<"${PATHS:-id l1 l6}"

# misses NAME PORT CMD...: MISSES=1's row for one server and path ($p):
# cachegrind's totals of the two runs instructions_per_request makes,
# their difference a request.
misses() {
	local name=$1 port=$2 out=$tmp/cg-$1-$p first=${IPR_FIRST:-200} more=${IPR_MORE:-2000}
	shift 2
	mkdir -p "$out"
	IPR_OUT=$out IPR_CACHEGRIND="--cache-sim=yes --LL=${MISSES_LL:-524288,8,64}" \
		instructions_per_request "$port" "$p/body.json" "$@" >/dev/null
	awk -v p="$p" -v name="$name" -v more="$more" '
		/^events:/ {for (i = 2; i <= NF; i++) ev[i - 1] = $i}
		/^summary:/ {for (i = 2; i <= NF; i++) v[FILENAME, ev[i - 1]] = $i; f[++nf] = FILENAME}
		END {
			for (k in ev) d[ev[k]] = (v[f[2], ev[k]] - v[f[1], ev[k]]) / more
			printf "| /%s/ | %s | %.0f | %.0f | %.0f | %.0f | %.0f |\n", p, name, d["Ir"], d["I1mr"], d["D1mr"], d["D1mw"], d["ILmr"] + d["DLmr"] + d["DLmw"]
		}' "$out/$(basename "$1")-$first.out" "$out/$(basename "$1")-$((first + more)).out"
}
if [[ -n ${INSTRUCTIONS:-} && -n ${MISSES:-} ]]; then
	echo "| answer | server | instructions | I1 misses | D1r misses | D1w misses | LL misses |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
	for p in "${paths[@]}"; do
		GODEBUG=${GODEBUG:+$GODEBUG,}cpu.rdtscp=off GOMAXPROCS=1 misses mosaic 18150 "$mosaic" -c "$tmp/mosaic.conf"
		[[ $NGINX == none ]] || misses nginx 18151 "$NGINX" -c "$tmp/nginx.conf" -g 'daemon off; master_process off;'
	done
	exit 0
fi
if [[ -n ${INSTRUCTIONS:-} ]]; then
	echo "| answer | mosaic instructions/request | nginx instructions/request | mosaic/nginx |"
	echo "| --- | ---: | ---: | ---: |"
	for p in "${paths[@]}"; do
		m=$(GODEBUG=${GODEBUG:+$GODEBUG,}cpu.rdtscp=off GOMAXPROCS=1 instructions_per_request 18150 "$p/body.json" "$mosaic" -c "$tmp/mosaic.conf")
		n=0
		[[ $NGINX == none ]] || n=$(instructions_per_request 18151 "$p/body.json" "$NGINX" -c "$tmp/nginx.conf" -g 'daemon off; master_process off;')
		awk -v p="$p" -v m="$m" -v n="$n" 'BEGIN {printf "| /%s/ | %.0f | %s | %s |\n", p, m, n ? n : "-", n ? sprintf("%.2fx", m / n) : "-"}'
	done
	exit 0
fi
if [[ -n ${SYSCALLS:-} ]]; then
	for p in "${paths[@]}"; do
		m=$(syscalls_per_request 18150 "$p/body.json" env GOMAXPROCS=1 "$mosaic" -c "$tmp/mosaic.conf")
		n=""
		[[ $NGINX == none ]] || n=$(syscalls_per_request 18151 "$p/body.json" "$NGINX" -c "$tmp/nginx.conf" -g 'daemon off; master_process off;')
		syscalls_table "/$p/" "$m" "$n"
	done
	exit 0
fi
declare -A rps cpu
for ((r = 1; r <= ROUNDS; r++)); do
	for name in "${names[@]}"; do
		for p in "${paths[@]}"; do
			case $name in
			mosaic) read -r q c < <(serve_and_measure 18150 "$p/body.json" "$DURATION" "$mosaic" -c "$tmp/mosaic.conf") ;;
			nginx) read -r q c < <(serve_and_measure 18151 "$p/body.json" "$DURATION" "$NGINX" -c "$tmp/nginx.conf" -g 'daemon off; master_process off;') ;;
			esac
			echo "round $r $name /$p/: $q req/s, $c us CPU/request"
			rps[$name $p]+="$q " cpu[$name $p]+="$c "
		done
	done
done
echo
echo "| answer | mosaic req/s | nginx req/s | mosaic/nginx | mosaic µs/request | nginx µs/request | mosaic µs over /id/ | nginx µs over /id/ |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for p in "${paths[@]}"; do
	mq=$(median <<<"${rps[mosaic $p]}") nq=$(median <<<"${rps[nginx $p]}")
	mc=$(median <<<"${cpu[mosaic $p]}") nc=$(median <<<"${cpu[nginx $p]}")
	mi=$(median <<<"${cpu[mosaic id]}") ni=$(median <<<"${cpu[nginx id]}")
	awk -v p="$p" -v mq="$mq" -v nq="$nq" -v mc="$mc" -v nc="$nc" -v mi="$mi" -v ni="$ni" \
		'BEGIN {printf "| /%s/ | %.0f | %.0f | %.2fx | %.1f | %.1f | %.1f | %.1f |\n", p, mq, nq, nq ? mq / nq : 0, mc, nc, mc - mi, nc - ni}'
done
