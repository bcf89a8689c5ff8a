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
	"${lock[@]}" bash -c '
		ticks() { local s; s=$(<"/proc/$1/stat"); s=${s##*) }; awk "{print \$12 + \$13}" <<<"$s"; }
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

# median reads numbers separated by spaces or newlines and prints their
# median.
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# serve_and_measure PORT PATH SECONDS CMD...: starts the server CMD pinned
# to $SERVER_CPU (its output to $tmp/server.out), waits until
# http://127.0.0.1:PORT/PATH answers, prints what measure prints for it,
# and stops it, all under $LOCK: another run of the same script, waiting
# for the lock, must not find PORT taken (its server would not start,
# and its wait and wrk would reach this one's).
serve_and_measure() {
	local port=$1 path=$2 secs=$3 pid lock
	shift 3
	exec {lock}>>"$LOCK"
	flock "$lock"
	# The server does not keep the lock once this function has let it go.
	taskset -c "$SERVER_CPU" "$@" 2>>"$tmp/server.out" {lock}>&- &
	pid=$!
	echo "$pid" >"$tmp/pids" # one server at a time
	for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/$path" && break; sleep 0.1; done
	LOCK_HELD=1 measure "$port" "$pid" "$path" "$secs"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	rm -f "$tmp/pids"
	exec {lock}>&-
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
# run does not answer every request. Needs valgrind.
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
	taskset -c "$SERVER_CPU" valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$@" 2>"$tmp/valgrind.out" >/dev/null &
	pid=$!
	echo "$pid" >"$tmp/pids" # one server at a time
	for _ in $(seq 300); do
		curl -s -o /dev/null "${hdr[@]}" "http://127.0.0.1:$port/$path" && up=1 && break
		sleep 0.1
	done
	for ((i = 0; i < n; i++)); do
		printf 'url = "http://127.0.0.1:%s/%s"\noutput = "/dev/null"\n' "$port" "$path"
	done >"$tmp/urls"
	# --fail-early: with many URLs, curl's status is otherwise the last
	# one's.
	[[ -n $up ]] && taskset -c "$CLIENT_CPU" curl -sf --fail-early "${hdr[@]}" -K "$tmp/urls" || up=""
	# Both servers exit on SIGTERM (NGINX at once, mosaic when idle), and
	# cachegrind then writes its counts.
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	rm -f "$tmp/pids"
	count=$(awk '/I *refs/ {gsub(",", "", $4); print $4}' "$tmp/valgrind.out")
	if [[ -z $up || ! $count =~ ^[0-9]+$ ]]; then
		echo "instructions_of: $* did not answer $n requests for /$path" >&2
		tail -5 "$tmp/valgrind.out" >&2
		return 1
	fi
	echo "$count"
}
