#!/usr/bin/env bash
# esi.sh — ESI assembly: a cached ~256 KB page with N uncached fragments behind
# an origin that delays each fragment; requests/s and latency percentiles for
# a client accepting gzip (or, with --encoding, brotli, zstd or nothing).
#
#   ./esi.sh --server varnish --out results/varnish-esi-baseline.csv
#   ./esi.sh --server '/path/to/edge -c {conf}' --name edge --encoding br
#
# mosaic's copy of the project's shared ESI benchmark (esi/README.md,
# "Against Varnish"), with --encoding added; run --help for the options.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
ORIG_ARGS="$0 $*"

usage() {
	cat <<'EOF'
Usage: esi.sh [options]
  --server varnish|CMD   'varnish' (Debian's varnishd with esi-varnish.vcl.tmpl),
                         or a command template for another server: {conf} is
                         replaced by the config made from --conf-template,
                         {dir} by the temp dir. It must stay in the foreground.
                         SERVER_CMD in the environment overrides the command
                         line used for 'varnish' (default: varnishd -F -j none
                         -n {dir}/varnishd -a {listen} -f {conf} -s malloc,256m).
  --name NAME            value of the server column (default: varnish, or the
                         command's basename)
  --conf-template FILE   config template (default: esi-varnish.vcl.tmpl for
                         varnish, esi-mosaic.conf.tmpl otherwise); placeholders
                         {listen} {port} {origin} {origin_host} {origin_port} {dir}
  --fragments "1 8 32"   fragments per page
  --delays "0 20 50"     origin delay per fragment, ms
  --encoding ENC         the client's Accept-Encoding: gzip (default), br,
                         zstd or identity. The answer must be in ENC or, from
                         a server that does not make ENC (Varnish: gzip
                         only), identity; the detail file names the coding
  --seconds N            run length (default 5)
  --threads N            wrk threads (default 2)
  --conns N              wrk connections (default 16)
  --warmup N             seconds of unmeasured load before each run (default 1)
  --repeat N             rounds over the whole matrix; the CSV then holds the
                         median of each column, the detail file every run
                         (default 1)
  --port N               server port (default 18081, on 127.0.0.1)
  --origin-port N        origin port (default 18090)
  --out FILE             also write the CSV to FILE, the raw numbers to FILE
                         minus .csv plus .detail.csv, the config beside them
  --detail FILE          where to write the detail CSV
Environment: SERVER_CPU (default 0), CLIENT_CPU (wrk, default 1),
  ORIGIN_CPU (default CLIENT_CPU), GO (go binary), KEEP_TMP=1.
EOF
}

SERVER=varnish NAME="" CONF_TMPL=""
FRAGMENTS="1 8 32" DELAYS="0 20 50" ENCODING=gzip
DURATION=5 THREADS=2 CONNS=16 WARMUP=1 REPEAT=1
HOST=127.0.0.1 PORT=18081 ORIGIN_PORT=18090
OUT="" DETAIL=""
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
ORIGIN_CPU=${ORIGIN_CPU:-$CLIENT_CPU}

while (($#)); do
	[[ $1 == -h || $1 == --help || $# -ge 2 ]] || die "option $1 is unknown or needs a value (see --help)"
	case $1 in
	--server) SERVER=$2 ;;
	--name) NAME=$2 ;;
	--conf-template) CONF_TMPL=$2 ;;
	--fragments) FRAGMENTS=$2 ;;
	--delays) DELAYS=$2 ;;
	--encoding) ENCODING=$2 ;;
	--seconds) DURATION=$2 ;;
	--threads) THREADS=$2 ;;
	--conns) CONNS=$2 ;;
	--warmup) WARMUP=$2 ;;
	--repeat) REPEAT=$2 ;;
	--port) PORT=$2 ;;
	--origin-port) ORIGIN_PORT=$2 ;;
	--out) OUT=$2 ;;
	--detail) DETAIL=$2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option: $1" ;;
	esac
	shift 2
done

if [[ $SERVER == varnish ]]; then
	SERVER_CMD=${SERVER_CMD:-"varnishd -F -j none -n {dir}/varnishd -a {listen} -f {conf} -s malloc,256m"}
	NAME=${NAME:-varnish}
	CONF_TMPL=${CONF_TMPL:-$BENCH_DIR/esi-varnish.vcl.tmpl}
else
	SERVER_CMD=$SERVER
	NAME=${NAME:-$(basename "${SERVER_CMD%% *}")}
	CONF_TMPL=${CONF_TMPL:-$BENCH_DIR/esi-mosaic.conf.tmpl}
fi
[[ $SERVER_CMD == *"{conf}"* ]] || die "the server command must contain {conf}: $SERVER_CMD"
[[ -f $CONF_TMPL ]] || die "no such config template: $CONF_TMPL"
for n in $FRAGMENTS; do [[ $n =~ ^[0-9]+$ ]] && ((n >= 1 && n <= 4096)) || die "fragments must be 1..4096, got '$n'"; done
for d in $DELAYS; do [[ $d =~ ^[0-9]+$ ]] && ((d <= 60000)) || die "delay must be 0..60000 ms, got '$d'"; done
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || die "--repeat must be a positive integer"
case $ENCODING in
gzip) DECODE="gzip -dc" ;;
br) DECODE="brotli -dc" ;;
zstd) DECODE="zstd -dcq" ;;
identity) DECODE="cat" ;;
*) die "--encoding must be gzip, br, zstd or identity, got '$ENCODING'" ;;
esac
[[ $WARMUP =~ ^[0-9]+$ ]] || die "--warmup must be a whole number of seconds"
if [[ -n $OUT ]]; then
	mkdir -p "$(dirname "$OUT")"
	DETAIL=${DETAIL:-${OUT%.csv}.detail.csv}
fi

GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
[[ -x $GO ]] || die "no Go toolchain found (set GO=/path/to/go)"
need_cmds wrk curl taskset pgrep awk cmp ${DECODE%% *}
need_cpus "$SERVER_CPU" "$CLIENT_CPU" "$ORIGIN_CPU"

install_traps
take_lock
make_tmp esi
conf_name=$(basename "$CONF_TMPL" .tmpl)
CONF=$BENCH_TMP/$conf_name
declare -A TPL=(
	[conf]=$CONF [dir]=$BENCH_TMP [listen]=$HOST:$PORT [port]=$PORT
	[origin]=$HOST:$ORIGIN_PORT [origin_host]=$HOST [origin_port]=$ORIGIN_PORT
)
fill_template "$(<"$CONF_TMPL")" >"$CONF"
[[ -z $OUT ]] || cp "$CONF" "${OUT%.csv}.${conf_name##*.}"
cmd=$(fill_template "$SERVER_CMD")

log "building the origin with $GO"
(cd "$BENCH_DIR/origin" && "$GO" build -o "$BENCH_TMP/origin" .) || die "origin build failed"

if [[ -n $OUT ]]; then
	META_EXTRA=("server: $NAME" "server command: $cmd" "config template: $CONF_TMPL"
		"cpus: server $SERVER_CPU, wrk $CLIENT_CPU, origin $ORIGIN_CPU" "go: $("$GO" version)")
	[[ $SERVER != varnish ]] || META_EXTRA+=("varnishd: $(varnishd -V 2>&1 | head -1)")
	write_meta "${OUT%.csv}.meta.txt" "$ORIG_ARGS"
fi

port_free "$HOST" "$ORIGIN_PORT"
port_free "$HOST" "$PORT"
t_start=$(date +%s)
ORIGIN_URL=http://$HOST:$ORIGIN_PORT
start_bg origin "$ORIGIN_CPU" "$BENCH_TMP/origin.log" "$BENCH_TMP/origin -listen $HOST:$ORIGIN_PORT"
ORIGIN_PID=$LAST_PID
wait_http origin "$ORIGIN_PID" "$ORIGIN_URL/__stats" "$BENCH_TMP/origin.log"
start_bg "$NAME" "$SERVER_CPU" "$BENCH_TMP/server.log" "$cmd"
SERVER_PID=$LAST_PID
wait_http "$NAME" "$SERVER_PID" "http://$HOST:$PORT/__stats" "$BENCH_TMP/server.log" 60

stat_of() { curl -sS --max-time 5 "$ORIGIN_URL/__stats" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }

# wait_drained: no fragment in flight at the origin and the server idle, so
# that requests abandoned at the end of one run do not load the next.
wait_drained() {
	local i
	for ((i = 0; i < 600; i++)); do
		[[ $(stat_of fragments_inflight) == 0 ]] && break
		sleep 0.1
	done
	read -r -a sp <<<"$(worker_pids "$SERVER_PID" tree)"
	wait_idle "${sp[@]}"
}

# fetch_enc URL OUT: GET with Accept-Encoding: $ENCODING; the body must be
# in that coding, or identity, and is written decoded to OUT; sets
# RESP_BYTES (bytes on the wire) and RESP_CODING.
fetch_enc() {
	local url=$1 out=$2 code enc
	code=$(curl -sS --max-time 120 -H "Accept-Encoding: $ENCODING" -D "$BENCH_TMP/h" -o "$BENCH_TMP/body.enc" -w '%{http_code}' "$url") ||
		die "request failed: $url"
	[[ $code == 200 ]] || die "$url answered HTTP $code"
	enc=$(awk -F': *' 'tolower($1) == "content-encoding" {gsub("\r", "", $2); print $2}' "$BENCH_TMP/h")
	RESP_CODING=${enc:-identity}
	case $RESP_CODING in
	"$ENCODING") $DECODE <"$BENCH_TMP/body.enc" >"$out" || die "$url: body is not valid $ENCODING" ;;
	identity) cp "$BENCH_TMP/body.enc" "$out" ;;
	*) die "$url: Content-Encoding is '$enc', expected $ENCODING or none" ;;
	esac
	RESP_BYTES=$(stat -c %s "$BENCH_TMP/body.enc")
}

# verify N FILE: FILE must be the assembled page: the shell with every include
# replaced by its fragment, in order, byte for byte.
verify() {
	local n=$1 got=$2 want=$BENCH_TMP/expected-$1.html markers
	[[ -f $want ]] || curl -sS --max-time 10 -o "$want" "$ORIGIN_URL/expected/$n" || die "cannot fetch $ORIGIN_URL/expected/$n"
	cmp -s "$got" "$want" && return 0
	markers=$(grep -o 'data-frag="[0-9]*"' "$got" | tr -dc '0-9\n' | tr '\n' ' ' || true)
	die "assembled page for $n fragments differs from the expected one.
  fragments found, in order: ${markers:-none}
  leftover ESI tags: $(grep -c '<esi:' "$got" || true)
  sizes: got $(stat -c %s "$got"), want $(stat -c %s "$want"); first difference: $(cmp "$got" "$want" 2>&1 | head -1)"
}

CSV_HEADER="server,fragments,delay_ms,rps,p50_ms,p99_ms"
DETAIL_HEADER="server,round,fragments,delay_ms,seconds,connections,requests,errors,rps,p50_ms,p90_ms,p99_ms,server_cpu_us_per_req,origin_cpu_ms,origin_page_fetches,fragment_fetches_per_req,resp_bytes,coding"
[[ -z $DETAIL ]] || echo "$DETAIL_HEADER" >"$DETAIL"

wrk_run() { # SECONDS URL OUTFILE
	taskset -c "$CLIENT_CPU" wrk -t "$THREADS" -c "$CONNS" -d "${1}s" --timeout 60s --latency \
		-H "Accept-Encoding: $ENCODING" "$2" >"$3" 2>&1 || die "wrk failed: $(cat "$3")"
}

# measure ROUND N DELAY: one run; appends to R_RPS/R_P50/R_P99[N DELAY].
declare -A R_RPS=() R_P50=() R_P99=() R_BYTES=() R_CODING=()
measure() {
	local round=$1 n=$2 d=$3 url sp pages0 frags0 pages1 frags1 o0 o1 t0 t1 reqs errs rps p50 p90 p99 cpu_us fpr
	url="http://$HOST:$PORT/page/$n?delay=$d"
	if ((round == 1)); then
		# Warm: the first request fills the cache, the second must be a hit
		# and is the one checked.
		fetch_enc "$url" "$BENCH_TMP/page.html"
		fetch_enc "$url" "$BENCH_TMP/page.html"
		verify "$n" "$BENCH_TMP/page.html"
		R_BYTES["$n $d"]=$RESP_BYTES R_CODING["$n $d"]=$RESP_CODING
	fi
	if ((WARMUP > 0)); then wrk_run "$WARMUP" "$url" "$BENCH_TMP/warm.txt"; fi
	wait_drained

	read -r -a sp <<<"$(worker_pids "$SERVER_PID" tree)"
	pages0=$(stat_of page_requests) frags0=$(stat_of fragment_requests)
	o0=$(cpu_ticks "$ORIGIN_PID") t0=$(cpu_ticks "${sp[@]}")
	wrk_run "$DURATION" "$url" "$BENCH_TMP/run.txt"
	t1=$(cpu_ticks "${sp[@]}") o1=$(cpu_ticks "$ORIGIN_PID")
	pages1=$(stat_of page_requests) frags1=$(stat_of fragment_requests)
	wait_drained

	reqs=$(wrk_requests "$BENCH_TMP/run.txt")
	errs=$(wrk_errors "$BENCH_TMP/run.txt")
	rps=$(wrk_rps "$BENCH_TMP/run.txt")
	p50=$(wrk_pct "$BENCH_TMP/run.txt" 50) p90=$(wrk_pct "$BENCH_TMP/run.txt" 90) p99=$(wrk_pct "$BENCH_TMP/run.txt" 99)
	((reqs > 0)) || die "no request completed for $url: $(cat "$BENCH_TMP/run.txt")"
	((errs == 0)) || log "warning: $errs errors for $url: $(grep -E 'errors|Non-2xx' "$BENCH_TMP/run.txt" | tr -s ' ')"
	((pages1 == pages0)) || log "warning: the origin served /page/$n $((pages1 - pages0)) times during the run: the server is not caching it"

	R_RPS["$n $d"]+="$rps " R_P50["$n $d"]+="$p50 " R_P99["$n $d"]+="$p99 "
	log "round $round: $n fragments, ${d} ms: $rps req/s, p50 $p50 ms, p99 $p99 ms"
	if [[ -n $DETAIL ]]; then
		cpu_us=$(awk -v t=$((t1 - t0)) -v hz="$CLK_TCK" -v r="$reqs" 'BEGIN {printf "%.1f", t * 1e6 / hz / r}')
		fpr=$(awk -v f=$((frags1 - frags0)) -v r="$reqs" 'BEGIN {printf "%.2f", f / r}')
		echo "$NAME,$round,$n,$d,$DURATION,$CONNS,$reqs,$errs,$rps,$p50,$p90,$p99,$cpu_us,$(($(ticks_to_us $((o1 - o0))) / 1000)),$((pages1 - pages0)),$fpr,${R_BYTES["$n $d"]},${R_CODING["$n $d"]}" >>"$DETAIL"
	fi
}

for ((round = 1; round <= REPEAT; round++)); do
	for n in $FRAGMENTS; do
		for d in $DELAYS; do measure "$round" "$n" "$d"; done
	done
done

echo "$CSV_HEADER"
[[ -z $OUT ]] || echo "$CSV_HEADER" >"$OUT"
for n in $FRAGMENTS; do
	for d in $DELAYS; do
		k="$n $d"
		row="$NAME,$n,$d,$(median "${R_RPS[$k]}"),$(median "${R_P50[$k]}"),$(median "${R_P99[$k]}")"
		echo "$row"
		[[ -z $OUT ]] || echo "$row" >>"$OUT"
	done
done
log "done in $(($(date +%s) - t_start)) s"
