# Shared helpers for compress.sh and esi.sh. Source it; do not run it.
#
# Process hygiene: every process these helpers start is remembered by PID in
# STARTED_PIDS, and only those PIDs (plus the descendants they had, recorded
# by PID while they ran) are ever signalled. Nothing is killed by name.

# shellcheck disable=SC2034  # used by the scripts that source this file
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLK_TCK=$(getconf CLK_TCK)
STARTED_PIDS=()
declare -A PID_DESC=()   # pid -> descendants seen while it ran
BENCH_TMP=""
KEEP_TMP=${KEEP_TMP:-0}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '\nERROR: %s\n' "$*" >&2; exit 1; }

need_cmds() {
	local c missing=()
	for c in "$@"; do command -v "$c" >/dev/null 2>&1 || missing+=("$c"); done
	((${#missing[@]} == 0)) || die "missing commands: ${missing[*]} (see esi/README.md, section Against Varnish)"
}

need_cpus() {
	local n c
	n=$(nproc --all)
	for c in "$@"; do
		[[ $c =~ ^[0-9]+$ ]] && ((c < n)) || die "CPU $c does not exist (this machine has $n CPUs); set SERVER_CPU/CLIENT_CPU"
	done
}

# take_lock: one benchmark at a time on this machine (the machine has 2 CPUs:
# the server's and the load generator's). fd 9 is not passed to servers.
take_lock() {
	exec 9>"${TMPDIR:-/tmp}/bench-harness.lock"
	flock -n 9 || die "another bench script is running (it holds ${TMPDIR:-/tmp}/bench-harness.lock); run one at a time"
}

# write_meta FILE ARGS...: where and with what a result was produced.
write_meta() {
	local f=$1
	shift
	{
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "command: $*"
		echo "kernel: $(uname -sr)"
		echo "cpu: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo) x $(nproc --all)"
		echo "wrk: $(wrk -v 2>&1 | head -1)"
		if command -v dpkg-query >/dev/null; then
			dpkg-query -W -f='${Package} ${Version}\n' nginx libnginx-mod-http-brotli-filter \
				libnginx-mod-http-brotli-static libbrotli1 brotli varnish wrk 2>/dev/null | sed 's/^/package: /'  || true
		fi
		for v in "${META_EXTRA[@]}"; do echo "$v"; done
	} >"$f"
}
META_EXTRA=()

make_tmp() {
	BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench.$1.XXXXXX")
	chmod 755 "$BENCH_TMP"   # an nginx worker running as nobody must read generated files
}

# port_free HOST PORT: die loudly when something already listens there.
port_free() {
	local host=$1 port=$2 who=""
	if command -v ss >/dev/null 2>&1; then
		who=$(ss -Htlnp "sport = :$port" 2>/dev/null || true)
	elif (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
		who="(something accepts connections)"
	fi
	[[ -z $who ]] || die "port $host:$port is already in use; stop whatever holds it or pick another port:
$who"
}

# start_bg NAME CPU LOGFILE CMD: run CMD (a shell command line) pinned to CPU,
# in the background, and set LAST_PID to its PID, which is the command's own
# PID because taskset and bash both exec into it. Call it directly, not in
# $(...), so that the PID is remembered for clean-up.
LAST_PID=""
start_bg() {
	local name=$1 cpu=$2 logf=$3 cmd=$4
	taskset -c "$cpu" bash -c "exec $cmd" >"$logf" 2>&1 </dev/null 9>&- &
	LAST_PID=$!
	STARTED_PIDS+=("$LAST_PID")
	log "started $name (pid $LAST_PID, cpu $cpu): $cmd"
}

# wait_http NAME PID URL LOGFILE [TIMEOUT_S]: wait until URL answers any HTTP
# status; die with the log when the process exits first or never answers.
wait_http() {
	local name=$1 pid=$2 url=$3 logf=$4 timeout=${5:-20} i
	for ((i = 0; i < timeout * 10; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			die "$name (pid $pid) exited during start-up; its output:
$(tail -n 40 "$logf" 2>/dev/null)"
		fi
		if curl -s -o /dev/null --max-time 1 "$url"; then
			remember_desc "$pid"
			return 0
		fi
		sleep 0.1
	done
	die "$name (pid $pid) did not answer $url within ${timeout}s; its output:
$(tail -n 40 "$logf" 2>/dev/null)"
}

children_of() { pgrep -P "$1" 2>/dev/null || true; }

descendants_of() {
	local c
	for c in $(children_of "$1"); do
		echo "$c"
		descendants_of "$c"
	done
}

remember_desc() { PID_DESC[$1]="$(descendants_of "$1" | tr '\n' ' ')"; }

# stop_pid PID: TERM, wait up to 10 s, then KILL; then the same for any
# descendant recorded for it that outlived it.
stop_pid() {
	local pid=$1 i d
	[[ -n $pid ]] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		remember_desc "$pid"
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$pid" 2>/dev/null; then
			log "pid $pid ignored SIGTERM for 10 s; sending SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	wait "$pid" 2>/dev/null || true
	for d in ${PID_DESC[$pid]:-}; do
		if kill -0 "$d" 2>/dev/null; then
			kill -TERM "$d" 2>/dev/null || true
			sleep 0.5
			kill -KILL "$d" 2>/dev/null || true
		fi
	done
	# Forget it, so that clean-up never signals a PID the system has reused.
	local keep=() p
	for p in "${STARTED_PIDS[@]}"; do [[ $p == "$pid" ]] || keep+=("$p"); done
	STARTED_PIDS=("${keep[@]}")
	unset "PID_DESC[$pid]"
}

cleanup_all() {
	local rc=$? i
	trap - EXIT INT TERM
	for ((i = ${#STARTED_PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${STARTED_PIDS[i]}"; done
	if [[ -n $BENCH_TMP && -d $BENCH_TMP ]]; then
		if [[ $KEEP_TMP == 1 ]]; then log "kept temp dir $BENCH_TMP"; else rm -rf "$BENCH_TMP"; fi
	fi
	exit "$rc"
}

install_traps() {
	trap cleanup_all EXIT
	trap 'log "interrupted"; exit 130' INT TERM
}

# worker_pids PID MODE: the processes whose CPU and memory are measured.
#   auto: the server's children if it has any (NGINX master -> workers),
#         else the server process itself (a single-process Go server);
#   self: the server process; tree: the server and all its descendants.
# shellcheck disable=SC2046,SC2086  # PID lists are meant to split
worker_pids() {
	local pid=$1 mode=${2:-auto} kids
	case $mode in
	self) echo "$pid" ;;
	tree) echo "$pid" $(descendants_of "$pid") ;;
	auto)
		kids=$(children_of "$pid" | tr '\n' ' ')
		if [[ -n ${kids// /} ]]; then echo $kids; else echo "$pid"; fi
		;;
	*) die "unknown WORKER_PIDS mode '$mode' (auto|self|tree)" ;;
	esac
}

# cpu_split PID...: "utime stime", summed over the given processes (clock
# ticks, all of their threads included). cpu_ticks PID...: their sum.
cpu_split() {
	local pid ut=0 st=0 stat rest f
	for pid in "$@"; do
		stat=$(<"/proc/$pid/stat") || die "process $pid is gone (did the server crash?)"
		rest=${stat##*) }   # the comm field may contain spaces; cut after its ')'
		read -r -a f <<<"$rest"
		# rest starts at field 3 (state): utime is field 14, stime field 15.
		ut=$((ut + f[11])) st=$((st + f[12]))
	done
	echo "$ut $st"
}
cpu_ticks() {
	local us
	us=$(cpu_split "$@")
	echo $((${us% *} + ${us#* }))
}

ticks_to_us() { echo $(($1 * 1000000 / CLK_TCK)); }

# wait_idle PIDS...: return once the processes used no CPU for 300 ms.
wait_idle() {
	local prev cur same=0 i
	prev=$(cpu_ticks "$@")
	for ((i = 0; i < 1200; i++)); do
		sleep 0.1
		cur=$(cpu_ticks "$@")
		if ((cur == prev)); then
			same=$((same + 1))
			((same >= 3)) && return 0
		else
			same=0
			prev=$cur
		fi
	done
	log "warning: server still busy after 120 s of waiting for idle"
}

# reset_hwm PID...: reset VmHWM (peak RSS) to the current RSS (Linux >= 4.0).
reset_hwm() {
	local pid
	for pid in "$@"; do
		{ echo 5 >"/proc/$pid/clear_refs"; } 2>/dev/null ||
			die "cannot reset the peak RSS of $pid through /proc/$pid/clear_refs (needs Linux >= 4.0 and the right to write it)"
	done
}

# peak_rss_kib PID...: the largest VmHWM among the processes.
peak_rss_kib() {
	local pid v max=0
	for pid in "$@"; do
		v=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
		((v > max)) && max=$v
	done
	echo "$max"
}

# wrk output parsing. wrk_num FILE: completed requests; wrk_rps FILE;
# wrk_errors FILE: socket errors + non-2xx/3xx; wrk_pct FILE PCT: latency in ms.
wrk_requests() { awk '/ requests in /{print $1; exit}' "$1"; }
wrk_rps() { awk '/^Requests\/sec:/{print $2; exit}' "$1"; }
wrk_errors() {
	awk '/Socket errors:/{gsub(",", ""); e += $4 + $6 + $8 + $10}
	     /Non-2xx or 3xx responses:/{e += $NF}
	     END {print e + 0}' "$1"
}
wrk_pct() {
	awk -v p="$2%" '
	$1 == p {
		v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
		if (u == "us") v /= 1000; else if (u == "s") v *= 1000
		else if (u == "m") v *= 60000; else if (u == "h") v *= 3600000
		printf "%.2f\n", v; exit
	}' "$1"
}

# median "V V V": the middle value as printed, or the mean of the two middle ones.
median() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# fill_template TEMPLATE_TEXT: replace {key} placeholders from the
# associative array TPL (declared by the caller).
fill_template() {
	local text=$1 k
	for k in "${!TPL[@]}"; do text=${text//\{$k\}/${TPL[$k]}}; done
	if [[ $text =~ \{(conf|dir|listen|origin|origin_host|origin_port|port|files)\} ]]; then
		die "template placeholder ${BASH_REMATCH[0]} left unfilled"
	fi
	printf '%s\n' "$text"
}
