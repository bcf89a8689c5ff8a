#!/usr/bin/env bash
# scaling.sh: how one large response's compression latency falls with the
# CPUs it is given, in process (BenchmarkParallelScaling: the body cut for
# as many segments as CPUs, all in flight at once on a pool of as many
# workers, against serial compression on the same CPUs), at gzip 6, zstd 19
# and brotli 6, 9, 10 and 11; then the issue's 2-CPU rows (BenchmarkParallel,
# BenchmarkParallelCeiling) and 8 responses at once on 2 CPUs
# (BenchmarkParallelLoaded). Each CPU count runs as its own process pinned
# with taskset to CPUs on distinct cores where the machine has them
# (hyperthreads of one core share its caches and units). It first times
# serial gzip 6 and brotli 9 on each CPU alone: a virtual machine's CPUs
# need not run at one speed, and a slow one bounds every parallel row that
# uses it.
#
#   compress/bench/scaling.sh [--bin COMPRESS_TEST] [--file PATH]
#                             [--cpus "2 4 8 16"] [--only REGEX]
#                             [--benchtime 5x] [--count 3]
#
# --only keeps the rows whose coding-level matches REGEX ("gzip-6|br-9").
# --bin is a test binary built with `go test -c ./compress` (on a machine
# without Go); by default the script builds one. The default file is
# react-dom.development.js from the shared corpus. The exit status is 1
# if any run failed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin="" file=$repo/../shared/corpus/react-dom.development.js counts="2 4 8 16" only=. benchtime=5x count=3
while (($#)); do
    [[ $# -ge 2 ]] || { echo "option $1 needs a value" >&2; exit 2; }
    case $1 in
    --bin) bin=$(realpath "$2") ;;
    --file) file=$2 ;;
    --cpus) counts=$2 ;;
    --only) only=$2 ;;
    --benchtime) benchtime=$2 ;;
    --count) count=$2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
[[ -r $file ]] || { echo "cannot read $file" >&2; exit 2; }
LARGE_BODY=$(realpath "$file")
export LARGE_BODY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ -z $bin ]]; then
    bin=$tmp/compress.test
    (cd "$repo" && go test -c -o "$bin" ./compress)
fi
[[ -x $bin ]] || { echo "not an executable: $bin" >&2; exit 2; }
cd "$repo/compress" # where the test binary's own files are

# The CPUs this process may use, one of each core first, in core order,
# then their siblings (lscpu lists the machine's, a container's cpuset
# may hold fewer).
declare -A allowed
IFS=, read -ra ranges <<<"$(taskset -pc $$ | sed 's/.*: //')"
for r in "${ranges[@]}"; do
    for c in $(seq "${r%-*}" "${r#*-}"); do allowed[$c]=1; done
done
mapfile -t order < <(lscpu -p=CPU,CORE | grep -v '^#' | sort -t, -k2,2n -k1,1n |
    awk -F, '{ if (seen[$2]++) rest = rest $1 "\n"; else print $1 } END { printf "%s", rest }')
kept=()
for c in "${order[@]}"; do [[ -n ${allowed[$c]:-} ]] && kept+=("$c"); done
order=("${kept[@]}")
((${#order[@]})) || mapfile -t order < <(printf '%s\n' "${!allowed[@]}" | sort -n)
cpuset() { local IFS=,; echo "${order[*]:0:$1}"; }

# bench CPUS PATTERN [BENCHTIME]: the benchmarks' lines; a failed run
# prints FAILED and makes the script's exit status 1.
bench() {
    local cpus=$1
    if ! GOMAXPROCS=$(($(tr ',' '\n' <<<"$cpus" | wc -l))) taskset -c "$cpus" "$bin" -test.run '^$' \
        -test.bench "$2" -test.benchtime "${3:-$benchtime}" -test.count "$count" |
        sed '/^\(goos\|goarch\|pkg\|cpu\):/d'; then
        echo "FAILED: $2 on CPUs $cpus"
        touch "$tmp/failed"
    fi
}

cores=$(lscpu -p=CPU,CORE | grep -v '^#' | while IFS=, read -r c k; do
    [[ -n ${allowed[$c]:-} ]] && echo "$k"
done | sort -u | wc -l)
echo "${#order[@]} CPUs, $cores cores; $(lscpu | sed -n 's/^Model name: *//p'); $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "file $file ($(wc -c <"$LARGE_BODY") bytes)"
echo "## each CPU alone: gzip 6 and brotli 9 serial"
for c in "${order[@]}"; do
    printf 'CPU %s:' "$c"
    count=1 bench "$c" 'ParallelScaling/(gzip-6|br-9)/serial' 3x |
        awk '/^Benchmark/ {printf " %.2f ms", $3 / 1e6} /^FAILED/ {printf " %s", $0} END {print ""}'
done
for n in $counts; do
    ((n <= ${#order[@]})) || continue
    echo "## $n CPUs ($(cpuset "$n")): serial, then segments"
    bench "$(cpuset "$n")" "ParallelScaling/($only)/"
done
if ((${#order[@]} >= 2)); then
    echo "## 2 CPUs: BenchmarkParallel, BenchmarkParallelCeiling"
    bench "$(cpuset 2)" "Parallel(Ceiling)?$/($only|one|goroutine)" 20x
    echo "## 2 CPUs, 8 responses at once: BenchmarkParallelLoaded"
    bench "$(cpuset 2)" "ParallelLoaded/($only)/" 60x
fi
[[ ! -e $tmp/failed ]]
