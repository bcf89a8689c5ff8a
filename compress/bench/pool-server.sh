# pool-server.sh: the mosaic server that parallel.sh and phases.sh time,
# which source it, so that both measure the same configuration. They set
# tmp (with the binary in $tmp/mosaic and the file in $tmp/files), port,
# url, cpus and threads first (threads=$(cpu_count "$cpus")).
#
# start_server CODING LEVEL POOL writes $tmp/mosaic.conf, CODING on at
# LEVEL for JavaScript with POOL's directives (its thread pool or off),
# starts the server on CPUs $cpus, its stderr in $tmp/err.log and its
# process id in pid, and returns once it answers; it exits the script
# when the server did not start. stop_server ends it.
# cpu_count LIST prints how many CPUs a taskset list names: "0,1", "0-3"
# and "0-1,4" count 2, 4 and 3.
cpu_count() {
    local n=0 part
    for part in ${1//,/ }; do
        if [[ $part == *-* ]]; then
            n=$((n + ${part#*-} - ${part%-*} + 1))
        else
            n=$((n + 1))
        fi
    done
    echo "$n"
}

start_server() {
    local coding=$1 level=$2 pool=$3
    cat >"$tmp/mosaic.conf" <<CONF
worker_processes $threads;
thread_pool bench threads=$threads;
http {
    access_log off;
    $coding on;
    ${coding}_types application/javascript;
    ${coding}_comp_level $level;
    $pool
    server { listen 127.0.0.1:$port; root $tmp/files; }
}
CONF
    taskset -c "$cpus" "$tmp/mosaic" -c "$tmp/mosaic.conf" 2>"$tmp/err.log" &
    pid=$!
    for _ in $(seq 50); do curl -fs -o /dev/null "$url" && break; sleep 0.1; done
    # Another server on the port would answer in its place.
    kill -0 "$pid" 2>/dev/null || { echo "mosaic did not start:" >&2; cat "$tmp/err.log" >&2; exit 1; }
}

stop_server() {
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=""
}
