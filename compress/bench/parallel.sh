#!/usr/bin/env bash
# Parallel compression (gzip_thread_pool, zstd_thread_pool,
# brotli_thread_pool) against serial,
# through the mosaic binary on 2 CPUs: one large response at a time (median
# latency of --requests sequential requests, and the compressed size), then
# 8 connections under wrk (requests per second), and the server's peak
# resident memory (VmHWM) over both. A fresh server per row.
#
#   compress/bench/parallel.sh [--file PATH] [--segment 512k] [--tasks 4]
#                              [--requests 10] [--seconds 5] [--cpus 0,1]
#                              [--compressors 4] [--only "brotli 4"]
#                              [--rounds 1] [--warmup 3]
#
# With --rounds N each row is measured N times, serial and parallel in
# turn and the order swapped every round (serial first in odd rounds), so
# that a machine whose speed drifts favours neither; one line per run.
#
# Each fresh server answers --warmup compressed requests (the first
# checks the body) before the timed ones: its first response builds the
# encoders and collects (0-7 GCs, 360-19,500 minor page faults) and its
# second still faults in up to 606 pages and ran up to 1.4x the later
# ones; from the third on at most 94 pages faulted and no collection ran,
# but in serial gzip 6, which collects every few responses for good
# (GODEBUG=gctrace=1 and /proc/PID/stat around each request, fresh servers
# of brotli 9 and 11, zstd 19 and gzip 6, serial and parallel, 2026-12-06).
# Before the 8-connection run it answers 8 requests at once, so that the
# encoders 8 connections use exist in both modes; the table's minor
# faults per request, counted over that run, show whether any were built
# during it.
#
# The default file is react-dom.development.js (1,080,227 bytes) from the
# shared corpus. Every compressed body is checked with gzip -d, zstd -d or
# brotli -d.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=pool-server.sh
. compress/bench/pool-server.sh
file=../shared/corpus/react-dom.development.js
segment=512k tasks=4 compressors=4 requests=10 seconds=5 cpus=0,1 rounds=1 warmup=3
rows=("gzip 6" "zstd 19" "brotli 4")
while (($#)); do
    case $1 in
    --file) file=$2 ;;
    --segment) segment=$2 ;;
    --tasks) tasks=$2 ;;
    --compressors) compressors=$2 ;;
    --requests) requests=$2 ;;
    --seconds) seconds=$2 ;;
    --cpus) cpus=$2 ;;
    --only) rows=("$2") ;;
    --rounds) rounds=$2 ;;
    --warmup) warmup=$2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
for c in curl wrk gzip zstd brotli taskset; do
    command -v "$c" >/dev/null || { echo "missing command: $c" >&2; exit 1; }
done
port=18133
tmp=$(mktemp -d)
pid=""
trap 'if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$tmp"' EXIT
go build -o "$tmp/mosaic" ./cmd/mosaic
mkdir "$tmp/files"
cp "$file" "$tmp/files/big.js"
url="http://127.0.0.1:$port/big.js"
threads=$(cpu_count "$cpus")

# row CODING LEVEL MODE: one line of the table.
row() {
    local coding=$1 level=$2 mode=$3 pool ae=$1
    # brotli's Accept-Encoding token is br.
    [[ $coding == brotli ]] && ae=br
    if [[ $mode == parallel ]]; then
        pool="${coding}_thread_pool bench; ${coding}_parallel_segment_size $segment; ${coding}_parallel_tasks $tasks; ${coding}_parallel_compressors $compressors;"
    else
        pool="${coding}_thread_pool off;"
    fi
    start_server "$coding" "$level" "$pool"
    curl -fs -H "Accept-Encoding: $ae" "$url" | "$coding" -d -c | cmp - "$file" ||
        { echo "$coding $level $mode: the body does not decode to the file" >&2; exit 1; }
    for _ in $(seq 2 "$warmup"); do
        curl -fs -o /dev/null -H "Accept-Encoding: $ae" "$url"
    done
    local times size
    times=$(for _ in $(seq "$requests"); do
        curl -fs -o /dev/null -H "Accept-Encoding: $ae" -w '%{time_total}\n' "$url"
    done | sort -n)
    size=$(curl -fs -H "Accept-Encoding: $ae" "$url" | wc -c)
    local median out rps n t0 t1 cpu hwm
    median=$(awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m*1000}' <<<"$times")
    # The 8-connection run has its own warm-up: 8 requests at once. The
    # sequential ones above are all cut in parallel when the CPUs are
    # idle, so there they never build the serial (one-shot) encoders
    # that responses under 8 connections use; without this the parallel
    # server built one more such encoder inside the timed run than the
    # serial one (5,100 more minor faults a run at brotli 9, 14,000 at
    # 11: compress README, "The 8-connection rows' warm-up").
    local warm=()
    for _ in $(seq 8); do
        curl -fs -o /dev/null -H "Accept-Encoding: $ae" "$url" &
        warm+=($!)
    done
    wait "${warm[@]}"
    local f0 f1 faults
    f0=$(minor_faults)
    t0=$(cpu_ticks)
    out=$(flock /tmp/bench-harness.lock taskset -c "$cpus" wrk -t2 -c8 -d"${seconds}s" -H "Accept-Encoding: $ae" "$url")
    t1=$(cpu_ticks)
    f1=$(minor_faults)
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    n=$(awk '/requests in/ {print $1}' <<<"$out")
    # The server's user and system time over the wrk run, per request: less
    # sensitive than req/s to what else runs on the machine.
    cpu=$(awk -v d=$((t1 - t0)) -v n="$n" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", n ? d / hz * 1000 / n : 0}')
    faults=$(awk -v d=$((f1 - f0)) -v n="$n" 'BEGIN {printf "%.0f", n ? d / n : 0}')
    hwm=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$pid/status")
    stop_server
    printf '| %s %s | %s | %s | %s | %s | %s | %s | %s |\n' "$coding" "$level" "$mode" "$median" "$size" "$rps" "$cpu" "$faults" "$hwm"
}

# cpu_ticks: the server's user plus system time so far, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }

# minor_faults: the server's minor page faults so far.
minor_faults() { awk '{print $10}' "/proc/$pid/stat"; }

echo "file $(basename "$file") ($(wc -c <"$file") bytes), CPUs $cpus, segments $segment, tasks $tasks, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| coding | mode | median latency ms | bytes | req/s, 8 connections | CPU ms/req | minor faults/req | peak RSS MiB |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for cl in "${rows[@]}"; do
    for r in $(seq "$rounds"); do
        modes=(serial parallel)
        ((r % 2)) || modes=(parallel serial)
        for mode in "${modes[@]}"; do
            # shellcheck disable=SC2086 # "coding level"
            row $cl "$mode"
        done
    done
done
