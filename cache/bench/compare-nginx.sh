#!/usr/bin/env bash
# compare-nginx.sh: cached hits per second, mosaic against Debian's NGINX
# with proxy_cache. Each server runs one worker (NGINX worker_processes 1;
# mosaic worker_processes 1, so GOMAXPROCS=1) pinned to CPU 0, wrk runs on
# CPU 1, access logs are off, and every response measured is a cache hit
# (checked with $upstream_cache_status before the runs). The origin, a
# mosaic serving files, is asked once per key.
#
# Servers:
#   nginx          proxy_cache_path on disk (NGINX's only store; the files
#                  stay in the page cache)
#   mosaic-memory  proxy_cache_path memory
#   mosaic-disk    proxy_cache_path on disk
#
# Bodies: small (2 KiB) and large (100 KiB). The servers take turns for
# several rounds; each wrk run holds the shared benchmark lock
# (/tmp/bench-harness.lock) so that no other benchmark runs beside it. The
# script prints requests per second and the server's CPU time per request
# (user + system from /proc) for every run, the medians, and the ratios of
# mosaic's medians to NGINX's.
#
#   cache/bench/compare-nginx.sh [--duration S] [--conns N] [--threads N]
#                                [--rounds N]
#
# Needs nginx, wrk, taskset, flock, curl and go; ports 127.0.0.1:18110-18113.
set -euo pipefail

DURATION=5 CONNS=8 THREADS=2 ROUNDS=3
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
LOCK=${BENCH_LOCK:-/tmp/bench-harness.lock}
usage="usage: $0 [--duration S] [--conns N] [--threads N] [--rounds N]"
while (($#)); do
	case $1 in
	--duration) DURATION=$2; shift 2 ;;
	--conns) CONNS=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
for c in nginx wrk taskset flock curl go; do
	command -v "$c" >/dev/null || { echo "missing command: $c" >&2; exit 1; }
done

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../internal/bench/wrk.sh
. "$here/../../internal/bench/wrk.sh"
bench_tmp cache-bench

mkdir -p "$tmp/www" "$tmp/logs" "$tmp/nginx"
# Text bodies of exactly 2 KiB and 100 KiB (base64 of more random bytes,
# cut; the cut is done by truncate, as "head" would end base64 early with
# SIGPIPE, which pipefail turns into an exit).
for f in small:2048 large:102400; do
	head -c "${f#*:}" /dev/urandom | base64 -w 76 >"$tmp/www/${f%:*}.txt"
	truncate -s "${f#*:}" "$tmp/www/${f%:*}.txt"
done
chmod -R a+rX "$tmp/www"
(cd "$here/../.." && go build -o "$tmp/mosaic" ./cmd/mosaic)

origin=127.0.0.1:18110
cat >"$tmp/origin.conf" <<CONF
http {
	access_log off;
	server { listen $origin; root $tmp/www; }
}
CONF

cat >"$tmp/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
error_log $tmp/logs/nginx.log;
pid $tmp/nginx/nginx.pid;
events { worker_connections 1024; }
http {
	access_log off;
	keepalive_requests 1000000;
	proxy_temp_path $tmp/nginx/proxy_temp;
	client_body_temp_path $tmp/nginx/body_temp;
	proxy_cache_path $tmp/nginx/cache levels=1:2 keys_zone=z:10m;
	server {
		listen 127.0.0.1:18111;
		add_header X-Cache \$upstream_cache_status;
		location / { proxy_pass http://$origin; proxy_cache z; proxy_cache_valid 200 1h; }
	}
}
CONF

# mosaic_conf NAME PORT PATH
mosaic_conf() {
	cat >"$tmp/$1.conf" <<-CONF
		worker_processes 1;
		error_log $tmp/logs/$1.log;
		http {
			access_log off;
			keepalive_requests 1000000;
			proxy_cache_path $3 keys_zone=z:64m;
			server {
				listen 127.0.0.1:$2;
				add_header X-Cache \$upstream_cache_status;
				location / { proxy_pass http://$origin; proxy_cache z; proxy_cache_valid 200 1h; }
			}
		}
	CONF
}
mosaic_conf mosaic-memory 18112 memory
mosaic_conf mosaic-disk 18113 "$tmp/mosaic-cache"

taskset -c "$CLIENT_CPU" "$tmp/mosaic" -c "$tmp/origin.conf" 2>>"$tmp/logs/origin.out" &
pids+=($!)
names=(nginx mosaic-memory mosaic-disk)
ports=(18111 18112 18113)
declare -A proc
taskset -c "$SERVER_CPU" nginx -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" 2>>"$tmp/logs/nginx.out" &
pids+=($!)
proc[nginx]=$!
for n in mosaic-memory mosaic-disk; do
	taskset -c "$SERVER_CPU" "$tmp/mosaic" -c "$tmp/$n.conf" 2>>"$tmp/logs/$n.out" &
	pids+=($!)
	proc[$n]=$!
done

wait_up "http://$origin/small.txt"
for i in "${!names[@]}"; do
	for f in small.txt large.txt; do
		url="http://127.0.0.1:${ports[i]}/$f"
		wait_up "$url"
		status=$(curl -s -D - -o "$tmp/got" "$url" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-cache" {print $2}')
		if [[ $status != HIT ]] || ! cmp -s "$tmp/got" "$tmp/www/$f"; then
			echo "${names[i]}: $f is not a cache hit ($status)" >&2
			exit 1
		fi
	done
done
proc[nginx]=$(pgrep -P "${proc[nginx]}" | head -1) # the worker


declare -A rps cpu
for f in small.txt large.txt; do
	for i in "${!names[@]}"; do measure "${ports[i]}" "${proc[${names[i]}]}" "$f" 1 >/dev/null; done # warm-up
done
for ((r = 0; r < ROUNDS; r++)); do
	for f in small.txt large.txt; do
		for i in "${!names[@]}"; do
			read -r q c < <(measure "${ports[i]}" "${proc[${names[i]}]}" "$f" "$DURATION")
			rps[${names[i]}/$f]+="$q " cpu[${names[i]}/$f]+="$c "
		done
	done
done

declare -A mr mc
echo "cached hits, wrk -t$THREADS -c$CONNS, $ROUNDS rounds of ${DURATION}s, one worker on CPU $SERVER_CPU"
for f in small.txt large.txt; do
	for n in "${names[@]}"; do
		k=$n/$f
		mr[$k]=$(median <<<"${rps[$k]}") mc[$k]=$(median <<<"${cpu[$k]}")
		printf '%-24s req/s: %s  CPU us/request: %s\n' "$k" "${rps[$k]}" "${cpu[$k]}"
		printf '%-24s median %s req/s, %s us CPU/request\n' "$k" "${mr[$k]}" "${mc[$k]}"
	done
done
echo
echo "mosaic against NGINX (req/s ratio; throughput per CPU ratio):"
for f in small.txt large.txt; do
	for n in mosaic-memory mosaic-disk; do
		awk -v f="$f" -v n="$n" -v r="${mr[$n/$f]}" -v c="${mc[$n/$f]}" \
			-v rr="${mr[nginx/$f]}" -v rc="${mc[nginx/$f]}" \
			'BEGIN {printf "  %-10s %-14s req/s x%.2f  per CPU x%.2f\n", f, n, r / rr, rc / c}'
	done
done
