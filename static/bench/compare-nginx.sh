#!/usr/bin/env bash
# compare-nginx.sh: one small file served by NGINX (one worker) and by the
# mosaic binary (worker_processes 1, so GOMAXPROCS=1), each pinned to one
# CPU with wrk pinned to another, no access log on either.
#
# Three configurations, each on every server:
#   defaults        NGINX with sendfile off (its default) and with
#                   sendfile on; mosaic as configured out of the box,
#                   which is its checked open file cache, and mosaic with
#                   "open_file_cache off;", which opens every file as
#                   NGINX's default does
#   checked         NGINX in the mode of mosaic's default:
#                   "open_file_cache max=1000 inactive=20s;
#                   open_file_cache_valid 0;" (a stat by name per request)
#   open_file_cache the same with "open_file_cache max=1000 inactive=20s;
#                   open_file_cache_valid 60s;"
# the package alone, without mosaic's server around it (bench/fileserver,
# GOMAXPROCS=1, with and without -open-file-cache 1000), and, as the floor,
# net/http writing the same bytes from memory (bench/fileserver -memory),
# which shows what net/http costs before any file is opened.
#
# The servers take turns for several rounds; each wrk run holds the shared
# benchmark lock (/tmp/bench-harness.lock) so that no other benchmark runs
# beside it. For each server the script prints requests per second and the
# server's CPU time per request (user + system, from /proc); on a machine
# shared with other work the CPU time is the steadier figure. The ratios are
# of the medians, NGINX with its defaults = 1, and for mosaic against NGINX
# also the median of each round's own ratio.
#
#   static/bench/compare-nginx.sh [--size BYTES] [--duration S] [--conns N]
#                                 [--threads N] [--rounds N]
#
# Needs nginx, wrk, taskset, flock, curl and go; ports 127.0.0.1:18091-18101.
set -euo pipefail

SIZE=4096 DURATION=5 CONNS=8 THREADS=2 ROUNDS=3
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
LOCK=${BENCH_LOCK:-/tmp/bench-harness.lock}
usage="usage: $0 [--size BYTES] [--duration S] [--conns N] [--threads N] [--rounds N]"
while (($#)); do
	case $1 in
	--size) SIZE=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--conns) CONNS=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
for c in nginx wrk taskset flock curl go pgrep; do
	command -v "$c" >/dev/null || { echo "missing command: $c" >&2; exit 1; }
done

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../internal/bench/wrk.sh
. "$here/../../internal/bench/wrk.sh"
bench_tmp static-bench

mkdir -p "$tmp/www" "$tmp/logs"
head -c "$SIZE" /dev/urandom >"$tmp/www/file.bin"
chmod -R a+rX "$tmp/www"
(cd "$here/../.." && go build -o "$tmp/mosaic" ./cmd/mosaic && go build -o "$tmp/fileserver" ./static/bench/fileserver)

cache_conf='open_file_cache max=1000 inactive=20s; open_file_cache_valid 60s;'
checked_conf='open_file_cache max=1000 inactive=20s; open_file_cache_valid 0;'

# nginx_conf NAME PORT SENDFILE EXTRA
nginx_conf() {
	mkdir -p "$tmp/$1"
	cat >"$tmp/$1/nginx.conf" <<-CONF
		worker_processes 1;
		daemon off;
		error_log $tmp/logs/$1.log;
		pid $tmp/$1/nginx.pid;
		events { worker_connections 1024; }
		http {
			access_log off;
			sendfile $3;
			keepalive_requests 1000000;
			$4
			server { listen 127.0.0.1:$2; root $tmp/www; }
		}
	CONF
}

# mosaic_conf NAME PORT EXTRA
mosaic_conf() {
	cat >"$tmp/$1.conf" <<-CONF
		worker_processes 1;
		error_log $tmp/logs/$1.log;
		http {
			access_log off;
			keepalive_requests 1000000;
			$3
			server { listen 127.0.0.1:$2; root $tmp/www; }
		}
	CONF
}

names=(nginx nginx-sendfile mosaic mosaic-off nginx+checked nginx+cache nginx-sendfile+cache mosaic+cache
	static static+cache memory)
ports=(18091 18092 18093 18100 18101 18094 18095 18096 18097 18098 18099)
nginx_conf nginx 18091 off ""
nginx_conf nginx-sendfile 18092 on ""
mosaic_conf mosaic 18093 ""
mosaic_conf mosaic-off 18100 "open_file_cache off;"
nginx_conf nginx+checked 18101 off "$checked_conf"
nginx_conf nginx+cache 18094 off "$cache_conf"
nginx_conf nginx-sendfile+cache 18095 on "$cache_conf"
mosaic_conf mosaic+cache 18096 "$cache_conf"

declare -A proc
for i in "${!names[@]}"; do
	n=${names[i]}
	case $n in
	nginx*)
		taskset -c "$SERVER_CPU" nginx -p "$tmp/$n" -c "$tmp/$n/nginx.conf" 2>>"$tmp/logs/$n.out" &
		;;
	mosaic*)
		taskset -c "$SERVER_CPU" "$tmp/mosaic" -c "$tmp/$n.conf" 2>>"$tmp/logs/$n.out" &
		;;
	static)
		GOMAXPROCS=1 taskset -c "$SERVER_CPU" "$tmp/fileserver" -root "$tmp/www" \
			-addr "127.0.0.1:${ports[i]}" 2>>"$tmp/logs/$n.out" &
		;;
	static+cache)
		GOMAXPROCS=1 taskset -c "$SERVER_CPU" "$tmp/fileserver" -root "$tmp/www" -open-file-cache 1000 \
			-addr "127.0.0.1:${ports[i]}" 2>>"$tmp/logs/$n.out" &
		;;
	memory)
		GOMAXPROCS=1 taskset -c "$SERVER_CPU" "$tmp/fileserver" -memory "$tmp/www/file.bin" \
			-addr "127.0.0.1:${ports[i]}" 2>>"$tmp/logs/$n.out" &
		;;
	esac
	pids+=($!)
	proc[$n]=$!
done

for i in "${!names[@]}"; do wait_up "http://127.0.0.1:${ports[i]}/file.bin"; done
for n in "${names[@]}"; do
	if [[ $n == nginx* ]]; then proc[$n]=$(pgrep -P "${proc[$n]}" | head -1); fi # the worker
done


declare -A rps cpu
for i in "${!names[@]}"; do measure "${ports[i]}" "${proc[${names[i]}]}" file.bin 1 >/dev/null; done # warm-up
for ((r = 0; r < ROUNDS; r++)); do
	for i in "${!names[@]}"; do
		read -r q c < <(measure "${ports[i]}" "${proc[${names[i]}]}" file.bin "$DURATION")
		rps[${names[i]}]+="$q " cpu[${names[i]}]+="$c "
	done
done

declare -A mr mc
echo "file $SIZE bytes, wrk -t$THREADS -c$CONNS, $ROUNDS rounds of ${DURATION}s"
for n in "${names[@]}"; do
	mr[$n]=$(median <<<"${rps[$n]}") mc[$n]=$(median <<<"${cpu[$n]}")
	printf '%-21s req/s: %s  CPU us/request: %s\n' "$n" "${rps[$n]}" "${cpu[$n]}"
	printf '%-21s median %s req/s, %s us CPU/request\n' "$n" "${mr[$n]}" "${mc[$n]}"
done
# paired A B prints the median of the rounds' own ratios of A's req/s to
# B's: each round runs the servers one after the other, so a ratio within
# a round is less moved by the machine's slower and faster spells.
paired() {
	paste -d' ' <(tr ' ' '\n' <<<"${rps[$1]}" | grep .) <(tr ' ' '\n' <<<"${rps[$2]}" | grep .) |
		awk '$2 > 0 {print $1 / $2}' | median
}
echo
echo "mosaic against NGINX in the same configuration (req/s ratio of the medians; median of"
echo "the rounds' own req/s ratios; throughput per CPU ratio):"
for pair in mosaic:nginx mosaic:nginx-sendfile mosaic-off:nginx mosaic:nginx+checked \
	mosaic+cache:nginx+cache mosaic+cache:nginx-sendfile+cache; do
	a=${pair%%:*} ref=${pair#*:}
	awk -v a="$a" -v ref="$ref" -v r="${mr[$a]}" -v c="${mc[$a]}" \
		-v rr="${mr[$ref]}" -v rc="${mc[$ref]}" -v p="$(paired "$a" "$ref")" \
		'BEGIN {printf "  %-12s vs %-20s req/s x%.2f  by round x%.2f  per CPU x%.2f\n", a, ref, r / rr, p, rc / c}'
done
for n in static static+cache memory; do
	awk -v n="$n" -v r="${mr[$n]}" -v c="${mc[$n]}" -v rr="${mr[nginx]}" -v rc="${mc[nginx]}" \
		'BEGIN {printf "  %-12s vs nginx (defaults)   req/s x%.2f  per CPU x%.2f\n", n, r / rr, rc / c}'
done
