#!/usr/bin/env bash
# Where one response's time goes, serial against parallel, through the
# binary: a build of HEAD with phases.patch applied (timestamps along each
# response, printed to the server's stderr; not part of mosaic) serves the
# file with parallel.sh's two configurations, a fresh server per run,
# serial and parallel in turn and the order swapped every round. Each
# request is timed by curl and marked in the server, and the medians of
# these parts are printed per mode (milliseconds):
#
#   total   curl's time_total
#   span    compression: serial brotli (one-shot), the burst; serial gzip
#           and zstd (streamed, reading and writing as they go), from the
#           first body write to the encoder's Close returning (the last
#           block compressed); parallel, from the first segment begun (by
#           the pool or the response) to the last one ended
#   fixed   total less span: what no encoder speed changes
#   pre     from the compress handler taking the request to span's start
#   tail    from span's end to the response finished (the last writes)
#   client  curl's total less the server's finish: connecting, the request
#           reaching the handler, the last bytes read, the close
#   pool, own   parallel: the pool's segments (the first begun to the
#           last ended; one, in two even halves) and the response's own
#   wake    parallel: from the first Submit to a worker starting
#   wait    parallel: from the pool's last segment ending to the next
#           segment sent, when the pool's ended last (the response
#           goroutine's wake)
#
#   compress/bench/phases.sh [--only "brotli 9"] [--rounds 2] [--requests 12]
#                            [--segment 512k] [--cpus 0,1] [--file PATH]
#
# It needs git, go, curl and taskset, and the file (by default the shared
# corpus's react-dom.development.js, as parallel.sh). It builds the
# committed HEAD: changes not committed are not traced, except to
# phases.patch, which is read from the working tree.
#
# The patch marks the compress handler's start, its first body write, each
# Submit, a worker's start and end of a segment, the response's own
# segment, each segment sent, a one-shot burst, the streamed encoder's
# Close and the response's end (compress README, "Where a response's time
# goes, serial against parallel"). They are a patch, not code behind a
# build tag, so that mosaic carries no hooks that only this script reads;
# when the code under them moves, the script stops and says the patch no
# longer applies, and the marks move with the code.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=pool-server.sh
. compress/bench/pool-server.sh
file=../shared/corpus/react-dom.development.js
rows=("gzip 6" "zstd 19" "brotli 9") segment=512k rounds=2 requests=12 cpus=0,1
while (($#)); do
    case $1 in
    --file) file=$2 ;;
    --only) rows=("$2") ;;
    --segment) segment=$2 ;;
    --rounds) rounds=$2 ;;
    --requests) requests=$2 ;;
    --cpus) cpus=$2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
for c in curl taskset git go; do
    command -v "$c" >/dev/null || { echo "missing command: $c" >&2; exit 1; }
done
port=18137
tmp=$(mktemp -d)
pid=""
trap 'if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$tmp"' EXIT
mkdir "$tmp/src" "$tmp/files"
git archive HEAD | tar -x -C "$tmp/src"
git -C "$tmp/src" apply "$PWD/compress/bench/phases.patch" || {
    echo "compress/bench/phases.patch no longer applies to HEAD: update its marks" >&2
    exit 1
}
(cd "$tmp/src" && go build -trimpath -o "$tmp/mosaic" ./cmd/mosaic)
cp "$file" "$tmp/files/big.js"
url="http://127.0.0.1:$port/big.js"
threads=$(cpu_count "$cpus")

# run CODING LEVEL MODE: one fresh server, 3 warm-up requests, then the timed ones;
# appends "curl's times, PT marks" lines to $tmp/MODE.
run() {
    local coding=$1 level=$2 mode=$3 pool ae=$1
    [[ $coding == brotli ]] && ae=br
    if [[ $mode == parallel ]]; then
        pool="${coding}_thread_pool bench; ${coding}_parallel_segment_size $segment;"
    else
        pool="${coding}_thread_pool off;"
    fi
    start_server "$coding" "$level" "$pool"
    for _ in 1 2 3; do curl -fs -o /dev/null -H "Accept-Encoding: $ae" "$url"; done
    for _ in $(seq "$requests"); do
        curl -fs -o /dev/null -H "Accept-Encoding: $ae" -w '%{time_total}\n' "$url"
    done >"$tmp/curl"
    stop_server
    grep '^PT ' "$tmp/err.log" | tail -n "$requests" | paste -d' ' "$tmp/curl" - >>"$tmp/$mode"
}

# table CODING LEVEL: the rounds of one row and their medians.
table() {
    local coding=$1 level=$2 mode n line col m
    rm -f "$tmp/serial" "$tmp/parallel"
    echo "$coding $level, file $(basename "$file"), CPUs $cpus, segments $segment, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
    for r in $(seq "$rounds"); do
        modes=(serial parallel)
        ((r % 2)) || modes=(parallel serial)
        for mode in "${modes[@]}"; do run "$coding" "$level" "$mode"; done
    done
    echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "| mode | requests | total | span | fixed | pre | tail | client | pool | own | wake | wait |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for mode in serial parallel; do
        # One line of parts per request, then the median of each column.
        awk '{
            total = $1 * 1000
            delete t
            ns = 0
            # The first of each mark; of the ends in the pool (segments
            # are not named: with more than two they end in any order)
            # the last, and every send.
            for (i = 3; i <= NF; i++) {
                split($i, kv, "=")
                if (!(kv[1] in t)) t[kv[1]] = kv[2] + 0
                if (kv[1] == "wend") t["wlast"] = kv[2] + 0
                if (kv[1] == "send") sends[++ns] = kv[2] + 0
            }
            if ("submit" in t) {
                if (!("wlast" in t) || !("own" in t)) next
                s = t["own"] < t["wstart"] ? t["own"] : t["wstart"]
                e = t["wlast"] > t["ownend"] ? t["wlast"] : t["ownend"]
                pool = t["wlast"] - t["wstart"]; own = t["ownend"] - t["own"]
                wake = t["wstart"] - t["submit"]
                wait = 0
                for (j = 1; j <= ns && t["wlast"] > t["ownend"]; j++)
                    if (sends[j] >= e) { wait = sends[j] - e; break }
            } else if ("burst" in t) {
                s = t["burst"]; e = t["burstend"]; pool = own = wake = wait = "-"
            } else {
                s = t["write0"]; e = t["closed"]; pool = own = wake = wait = "-"
            }
            print total, e - s, total - (e - s), s, t["finish"] - e, total - t["finish"], pool, own, wake, wait
        }' "$tmp/$mode" >"$tmp/$mode.parts"
        n=$(wc -l <"$tmp/$mode.parts")
        line="| $mode | $n"
        for col in $(seq 10); do
            m=$(awk -v c="$col" '{print $c}' "$tmp/$mode.parts" | sort -g | awk '
                $1 == "-" {next}
                {a[++k] = $1}
                END {
                    if (!k) {print "-"; exit}
                    printf "%.2f", (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
                }')
            line+=" | $m"
        done
        echo "$line |"
    done
}

for cl in "${rows[@]}"; do
    # shellcheck disable=SC2086 # "coding level"
    table $cl
    echo
done
