# wrk.sh: functions that the whole-server comparison scripts source.
#
# measure PORT PID PATH SECONDS prints "req/s cpu-us-per-request" for one
# wrk run against http://127.0.0.1:PORT/PATH, taken under the shared
# benchmark lock ($LOCK) so that no other benchmark runs beside it, with
# wrk pinned to $CLIENT_CPU (-t $THREADS -c $CONNS). The CPU time is the
# server process PID's user + system clock ticks from /proc/PID/stat
# (read after the command name, which may hold spaces). A run with non-2xx
# answers or no requests prints "0 0". $WRK_HEADER, when set, is a header
# every request carries (for example "Accept-Encoding: br"). With
# LOCK_HELD set the caller holds the lock already (serve_and_measure).
measure() {
	local lock=(flock "$LOCK")
	[[ -z ${LOCK_HELD:-} ]] || lock=()
	"${lock[@]}" bash -c "$(declare -f stat_times)"'
		ticks() { local u s; read -r u s < <(stat_times "$1"); echo $((u + s)); }
		t0=$(ticks "$2")
		hdr=()
		[[ -z $9 ]] || hdr=(-H "$9")
		out=$(taskset -c "$3" wrk -t "$4" -c "$5" -d "$6s" "${hdr[@]}" "http://127.0.0.1:$1/$8")
		t1=$(ticks "$2")
		awk -v t="$((t1 - t0))" -v hz="$7" "
			/requests in/ {n = \$1}
			/Requests\/sec/ {rps = \$2}
			/Non-2xx/ {bad = 1}
			END {if (bad || !n) {print \"0 0\"; exit} printf \"%.0f %.1f\n\", rps, t / hz * 1e6 / n}" <<<"$out"
	' measure "$1" "$2" "$CLIENT_CPU" "$THREADS" "$CONNS" "$4" "$(getconf CLK_TCK)" "$3" "${WRK_HEADER:-}"
}

# setup_mosaic [BINARY]: makes $tmp, a directory removed, with the
# servers still running killed, when the script exits, and sets $mosaic to
# BINARY, or to a binary built from the repository ($repo) when BINARY is
# empty.
setup_mosaic() {
	tmp=$(mktemp -d)
	# Servers started in a command substitution are not this shell's
	# jobs: the one running leaves its pid in $tmp/pids.
	trap 'kill $(jobs -p) $(cat "$tmp/pids" 2>/dev/null) 2>/dev/null || true; rm -rf "$tmp"' EXIT
	mosaic=${1:-}
	if [[ -z $mosaic ]]; then
		mosaic=$tmp/mosaic
		(cd "$repo" && go build -o "$mosaic" ./cmd/mosaic)
	fi
}

# bench_tmp NAME: makes $tmp, a directory NAME.XXXXXX under $TMPDIR that
# NGINX's workers may read, and an empty list $pids of servers; when the
# script exits, each server in $pids is stopped and $tmp removed.
bench_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	chmod 755 "$tmp"
	pids=()
	trap stop_bench EXIT
}

# stop_bench stops the servers in $pids and removes $tmp (bench_tmp).
stop_bench() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}

# wait_up URL waits up to 10 seconds for URL to answer with a 2xx; then it
# prints the servers' logs ($tmp/logs/*) and ends the script.
wait_up() {
	local i
	for ((i = 0; i < 100; i++)); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done
	echo "server at $1 did not start" >&2
	cat "$tmp"/logs/* >&2 || true
	exit 1
}

# median reads numbers separated by spaces or newlines and prints their
# median.
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# serve_and_measure PORT PATH SECONDS CMD...: starts the server CMD pinned
# to $SERVER_CPU (its output to $tmp/server.out), waits until
# http://127.0.0.1:PORT/PATH answers, prints what measure prints for it,
# and stops it, all under $LOCK: another run of the same script, waiting
# for the lock, must not find PORT taken (its server would not start,
# and its wait and wrk would reach this one's).
serve_and_measure() { LOCK_HELD=1 serve_with measure "$@"; }

# serve_with FUNC PORT PATH SECONDS CMD...: what serve_and_measure does,
# with FUNC PORT PID PATH SECONDS run in measure's place, its descriptor
# of the lock closed (wrk must not keep it).
serve_with() {
	local fn=$1 port=$2 path=$3 secs=$4 pid lock
	shift 4
	exec {lock}>>"$LOCK"
	flock "$lock"
	# The server does not keep the lock once this function has let it go.
	taskset -c "$SERVER_CPU" "$@" 2>>"$tmp/server.out" {lock}>&- &
	pid=$!
	echo "$pid" >"$tmp/pids" # one server at a time
	for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/$path" && break; sleep 0.1; done
	"$fn" "$port" "$pid" "$path" "$secs" {lock}>&-
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	rm -f "$tmp/pids"
	exec {lock}>&-
}

# cpu_split PORT PATH SECONDS CMD...: starts the server CMD as
# serve_and_measure does, warms it with SPLIT_WARM (default 3) seconds of
# wrk, then prints, over
# SECONDS of wrk ($CONNS connections, pinned to $CLIENT_CPU), "req/s
# user-us system-us context-switches migrations page-faults", each but
# the first a request: user and system time apart (utime and stime,
# fields 14 and 15 of /proc/PID/stat, all the server's threads), the
# rest from `perf stat -p PID` attached for the same run (software
# events only: they cost no sampling). The warm-up is long enough for a
# Go server's heap to reach its first cycle's goal (16 MiB at mosaic's
# GOGC): until then it takes page faults on memory it has never touched
# (0.02-0.3 a request in the first seconds, none after). Needs perf.
cpu_split() { serve_with split_measure "$@"; }

# split_measure PORT PID PATH SECONDS: cpu_split's measure.
split_measure() {
	local port=$1 pid=$2 path=$3 secs=$4 u0 s0 u1 s1 hz
	hz=$(getconf CLK_TCK)
	taskset -c "$CLIENT_CPU" wrk -t "$THREADS" -c "$CONNS" -d "${SPLIT_WARM:-3}s" "http://127.0.0.1:$port/$path" >/dev/null
	read -r u0 s0 < <(stat_times "$pid")
	perf stat -x, -o "$tmp/perfstat" -e task-clock,context-switches,cpu-migrations,page-faults -p "$pid" \
		-- taskset -c "$CLIENT_CPU" wrk -t "$THREADS" -c "$CONNS" -d "${secs}s" "http://127.0.0.1:$port/$path" >"$tmp/wrk.out"
	read -r u1 s1 < <(stat_times "$pid")
	awk -F, -v u="$((u1 - u0))" -v s="$((s1 - s0))" -v hz="$hz" '
		FILENAME ~ /\/wrk\.out$/ && /requests in/ {split($0, f, " "); n = f[1]}
		FILENAME ~ /\/wrk\.out$/ && /Requests\/sec/ {split($0, f, " "); rps = f[2]}
		FILENAME ~ /\/wrk\.out$/ && /Non-2xx/ {bad = 1}
		FILENAME ~ /\/perfstat$/ && $3 ~ /^[a-z-]+$/ {v[$3] = $1}
		END {
			if (bad || !n) {print "0 0 0 0 0 0"; exit}
			printf "%.0f %.1f %.1f %.3f %.3f %.3f\n", rps, u / hz * 1e6 / n, s / hz * 1e6 / n,
				v["context-switches"] / n, v["cpu-migrations"] / n, v["page-faults"] / n
		}' "$tmp/wrk.out" "$tmp/perfstat"
}

# stat_times PID prints the process's utime and stime in clock ticks
# (fields 14 and 15 of /proc/PID/stat, counted after the command name,
# which may hold spaces).
stat_times() {
	local s
	s=$(<"/proc/$1/stat")
	s=${s##*) }
	awk '{print $12, $13}' <<<"$s"
}

# instructions_per_request PORT PATH CMD...: the user-space instructions
# one request for http://127.0.0.1:PORT/PATH costs the server CMD: CMD
# runs under valgrind's cachegrind (pinned to $SERVER_CPU, curl to
# $CLIENT_CPU, under $LOCK) and answers 200 requests, then, started again,
# 2,200, each time on one kept connection (curl, with $WRK_HEADER when
# set); the difference over 2,000 leaves out starting and stopping.
# IPR_FIRST and IPR_MORE change the 200 and the 2,000: a response that
# takes milliseconds (a large body compressed) takes a hundred times
# that under cachegrind, where a few dozen requests average well. It
# counts the server's code, its libraries and, for a Go server, the
# runtime and its collector (run it with GOMAXPROCS=1 in the environment,
# as the timed runs do), not the kernel. On a quiet machine the counts
# repeat within about 2%, where the clock moves by a tenth; other work on
# the machine moves them too (by up to a tenth: whether the next request is
# already there when the server reads, or the read finds nothing and the
# server waits), so builds are compared in one sitting. It fails when a
# run does not answer every request. Needs valgrind. IPR_OUT, a
# directory, keeps each run's cachegrind output there, as NAME-N.out
# (NAME the command's base name, N its requests), for counts by function:
# cg_diff the two runs' files, then cg_annotate, over the 2,000.
# IPR_CONNS (default 1) spreads the requests over that many connections
# at once (FIRST and MORE multiples of it).
# IPR_CACHEGRIND replaces cachegrind's --cache-sim=no (e.g. with
# "--cache-sim=yes --LL=524288,8,64": the runs' files in IPR_OUT then
# hold the simulated misses too; give the caches' sizes, as valgrind 3.19
# reads a VM's wrong). cg_groups.py, beside this file, sums two such
# files' difference a request by group of functions (the server's own,
# the Go runtime's parts, the standard library's).
# IPR_CALLGRIND=1 runs callgrind instead, whose files (IPR_OUT/NAME-N.out.1)
# also count the calls between functions (goroutines made, the runtime's
# parks, locks and timers a request; a Go server wants asyncpreemptoff=1
# in GODEBUG there). Its count is taken by a dump (callgrind_control)
# once the requests are answered, and the server is then killed:
# callgrind 3.19 fails an assertion when mosaic is sent SIGTERM.
instructions_per_request() {
	local port=$1 path=$2 a b lock first=${IPR_FIRST:-200} more=${IPR_MORE:-2000}
	shift 2
	exec {lock}>>"$LOCK"
	flock "$lock"
	# (errexit is off in a command substitution: each failure is passed on.)
	a=$(instructions_of "$port" "$path" "$first" "$@") &&
		b=$(instructions_of "$port" "$path" $((first + more)) "$@") || {
		exec {lock}>&-
		return 1
	}
	exec {lock}>&-
	echo $(((b - a) / more))
}

# instructions_of PORT PATH N CMD...: cachegrind's instruction count of one
# run of CMD that answers N requests for PATH, and one more when it is up
# (instructions_per_request; the same in every run, so it drops out).
instructions_of() {
	local port=$1 path=$2 n=$3 pid i up="" count hdr=()
	shift 3
	[[ -z ${WRK_HEADER:-} ]] || hdr=(-H "$WRK_HEADER")
	local out=/dev/null tool
	[[ -z ${IPR_OUT:-} ]] || out=$IPR_OUT/$(basename "$1")-$n.out
	# shellcheck disable=SC2206 # IPR_CACHEGRIND is a list of options
	tool=(--tool=cachegrind ${IPR_CACHEGRIND:---cache-sim=no} --cachegrind-out-file="$out")
	if [[ -n ${IPR_CALLGRIND:-} ]]; then
		[[ -n ${IPR_OUT:-} ]] || out=$tmp/callgrind-$n.out
		rm -f "$out" "$out.1"
		tool=(--tool=callgrind --callgrind-out-file="$out")
	fi
	taskset -c "$SERVER_CPU" valgrind "${tool[@]}" "$@" 2>"$tmp/valgrind.out" >/dev/null &
	pid=$!
	echo "$pid" >"$tmp/pids" # one server at a time
	for _ in $(seq 300); do
		curl -s -o /dev/null "${hdr[@]}" "http://127.0.0.1:$port/$path" && up=1 && break
		sleep 0.1
	done
	local conns=${IPR_CONNS:-1} c cpids=()
	for ((i = 0; i < n / conns; i++)); do
		printf 'url = "http://127.0.0.1:%s/%s"\noutput = "/dev/null"\n' "$port" "$path"
	done >"$tmp/urls"
	# --fail-early: with many URLs, curl's status is otherwise the last
	# one's. IPR_CONNS clients (default 1) send n/IPR_CONNS requests each
	# at once, each on its own kept connection, so that responses are in
	# flight together as under wrk.
	if [[ -n $up ]]; then
		for ((c = 0; c < conns; c++)); do
			taskset -c "$CLIENT_CPU" curl -sf --fail-early "${hdr[@]}" -K "$tmp/urls" &
			cpids+=($!)
		done
		for c in "${cpids[@]}"; do wait "$c" || up=""; done
	fi
	if [[ -n ${IPR_CALLGRIND:-} ]]; then
		callgrind_control -d "$pid" >/dev/null 2>&1 || true
		for _ in $(seq 100); do grep -qs '^totals:' "$out.1" && break; sleep 0.1; done
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null || true
		rm -f "$tmp/pids"
		count=$(awk '/^summary:/ {print $2}' "$out.1" 2>/dev/null)
	else
		# Both servers exit on SIGTERM (NGINX at once, mosaic when idle),
		# and cachegrind then writes its counts.
		kill "$pid"
		wait "$pid" 2>/dev/null || true
		rm -f "$tmp/pids"
		count=$(awk '/I *refs/ {gsub(",", "", $4); print $4}' "$tmp/valgrind.out")
	fi
	if [[ -z $up || ! $count =~ ^[0-9]+$ ]]; then
		echo "instructions_of: $* did not answer $n requests for /$path" >&2
		tail -5 "$tmp/valgrind.out" >&2
		return 1
	fi
	echo "$count"
}

# syscalls_per_request PORT PATH CMD...: prints "call calls failures"
# a request, per call, for the server CMD answering $SYSCALLS_N (default
# 2,000) requests for PATH on one kept connection (curl, with $WRK_HEADER
# when set), counted by `perf trace -s` on all its threads, under $LOCK.
# SYSCALLS_RATE (curl's --rate, e.g. 10/s) spaces the requests. With
# SYSCALLS_WRK set, wrk sends them instead ($CONNS connections, $THREADS
# threads, for $DURATION seconds), as the timed runs do, and the count is
# over the requests wrk made. It fails when perf saw fewer responses
# written than requests sent. Needs perf.
syscalls_per_request() {
	local port=$1 path=$2 n=${SYSCALLS_N:-2000} pid tracer lock i hdr=()
	shift 2
	[[ -z ${WRK_HEADER:-} ]] || hdr=(-H "$WRK_HEADER")
	exec {lock}>>"$LOCK"
	flock "$lock"
	taskset -c "$SERVER_CPU" "$@" 2>>"$tmp/server.out" {lock}>&- &
	pid=$!
	echo "$pid" >"$tmp/pids"
	for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/$path" && break; sleep 0.1; done
	for ((i = 0; i < n; i++)); do
		printf 'url = "http://127.0.0.1:%s/%s"\noutput = "/dev/null"\n' "$port" "$path"
	done >"$tmp/urls"
	# perf follows the threads there are when it attaches: 200 requests
	# first, so that Go has started those it uses.
	head -400 "$tmp/urls" | taskset -c "$CLIENT_CPU" curl -sf --fail-early "${hdr[@]}" -K -
	[[ -z ${SYSCALLS_WRK:-} ]] || taskset -c "$CLIENT_CPU" wrk -t "$THREADS" -c "$CONNS" -d 1s "${hdr[@]}" "http://127.0.0.1:$port/$path" >/dev/null
	perf trace -s -p "$pid" -o "$tmp/trace" 2>/dev/null {lock}>&- &
	tracer=$!
	# perf attaches: under a load average of 16-23 it took more than a
	# second, and a run counted a part of the requests as all of them.
	sleep 3
	if [[ -n ${SYSCALLS_WRK:-} ]]; then
		taskset -c "$CLIENT_CPU" wrk -t "$THREADS" -c "$CONNS" -d "${DURATION}s" "${hdr[@]}" "http://127.0.0.1:$port/$path" >"$tmp/wrk.out"
		n=$(awk '/requests in/ {print $1}' "$tmp/wrk.out")
	else
		taskset -c "$CLIENT_CPU" curl -sf --fail-early ${SYSCALLS_RATE:+--rate "$SYSCALLS_RATE"} "${hdr[@]}" -K "$tmp/urls"
	fi
	kill -INT "$tracer"
	wait "$tracer" || true
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	rm -f "$tmp/pids"
	exec {lock}>&-
	# The summary lists each thread's calls: add them up. Each response
	# is written with at least one call: fewer says perf attached late and
	# saw only a part of the requests, which divided by all of them would
	# pass for fewer calls a request.
	awk -v n="$n" '$1 ~ /^[a-z_0-9]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {c[$1] += $2; e[$1] += $3}
		END {
			for (s in c) if (s ~ /^(write|writev|sendfile(64)?|sendmsg|sendto)$/) w += c[s]
			if (w < 0.98 * n) {
				printf "perf trace saw %d writes for %d requests: it missed some; run again\n", w, n > "/dev/stderr"
				exit 1
			}
			for (s in c) printf "%s %.2f %.2f\n", s, c[s] / n, e[s] / n
		}' "$tmp/trace"
}

# syscalls_table LABEL MOSAIC NGINX: prints as a Markdown table the lines
# of two syscalls_per_request outputs (NGINX empty: mosaic's alone), the
# calls both make less than 0.01 times a request left out.
syscalls_table() {
	echo "| $1: calls a request (failed) | mosaic | nginx |"
	echo "| --- | ---: | ---: |"
	awk -v m="$2" -v n="$3" 'BEGIN {
		split(m, ml, "\n"); for (i in ml) {split(ml[i], f, " "); if (f[1] != "") {mc[f[1]] = f[2]; me[f[1]] = f[3]; s[f[1]]}}
		split(n, nl, "\n"); for (i in nl) {split(nl[i], f, " "); if (f[1] != "") {nc[f[1]] = f[2]; ne[f[1]] = f[3]; s[f[1]]}}
		for (k in s) {
			mv = (k in mc) ? mc[k] : 0; nv = (k in nc) ? nc[k] : 0
			mf = (k in me) ? me[k] : 0; nf = (k in ne) ? ne[k] : 0
			if (mv < 0.01 && nv < 0.01) continue
			printf "| %s | %.2f%s | %s |\n", k, mv, (mf > 0 ? " (" mf ")" : ""), (n == "" ? "-" : sprintf("%.2f%s", nv, (nf > 0 ? " (" nf ")" : ""))) | "sort"
			mt += mv; nt += nv
		}
		close("sort")
		printf "| all | %.2f | %s |\n", mt, n == "" ? "-" : sprintf("%.2f", nt)
	}'
}
