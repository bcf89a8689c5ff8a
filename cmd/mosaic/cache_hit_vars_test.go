package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCacheHitUpstreamVarsAsNGINX: on a cache HIT NGINX has evaluated the
// proxy's URL ($proxy_host, $proxy_port) before its cache lookup, while
// the variables of an upstream exchange ($upstream_addr, ...) stay empty,
// none having taken place. Both the response header (add_header ...
// always) and the access log (of the MISS that fills the entry too) must
// show that; the MISS's header shows the lengths and timings as they
// stand when it goes out.
func TestCacheHitUpstreamVarsAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "cached")
	})
	// The timings differ from run to run: the test compares whether
	// they are set, not their values.
	names := []string{"proxy_host", "proxy_port", "upstream_addr", "upstream_status",
		"upstream_response_length", "upstream_bytes_received", "upstream_response_time",
		"upstream_connect_time", "upstream_header_time", "upstream_bytes_sent", "upstream_cache_status"}
	values := "$" + strings.Join(names, "|$")
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return fmt.Sprintf(`proxy_cache_path cache keys_zone=z:10m;
		log_format vars '%[1]s';
		server {
			listen 127.0.0.1:%[2]d;
			location / {
				proxy_pass http://%[3]s;
				proxy_cache z;
				add_header X-Vars "%[1]s" always;
				access_log vars.log vars; # under each server's own directory
			}
		}`, values, port, o.Listener.Addr())
	})
	get := func(port int) string {
		r := cacheDo(t, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/p", port))
		return r.header.Get("X-Vars")
	}
	got := map[string][]string{}
	for _, who := range []string{"m", "n"} {
		port := mport
		if who == "n" {
			port = nport
		}
		for range 2 {
			got[who] = append(got[who], timesSet(get(port)))
		}
	}
	// A MISS's add_header runs while the body is still coming: NGINX
	// shows the lengths and timings as they stand then (the header's
	// bytes, no response time, no body length), and so must mosaic.
	// The bytes read with the head depend on how the origin's answer
	// came in (one segment or two): their shape is compared, a number.
	if m, n := counted(got["m"][0]), counted(got["n"][0]); m != n {
		t.Errorf("MISS X-Vars:\nmosaic %s\nnginx  %s", m, n)
	}
	if got["m"][1] != got["n"][1] {
		t.Errorf("HIT X-Vars:\nmosaic %s\nnginx  %s", got["m"][1], got["n"][1])
	}
	if !strings.HasSuffix(got["n"][1], "|HIT") {
		t.Fatalf("the second request is not a HIT in NGINX: %s", got["n"][1])
	}
	logs := map[string]string{}
	for _, who := range []string{"m", "n"} {
		var b []byte
		var err error
		// The log line is written after the response: wait for both.
		for range 100 {
			if b, err = os.ReadFile(filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "vars.log")); err == nil && strings.Count(string(b), "\n") >= 2 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			lines = append(lines, timesSet(l))
		}
		logs[who] = strings.Join(lines, "\n")
	}
	if logs["m"] != logs["n"] {
		t.Errorf("access log:\nmosaic %s\nnginx  %s", logs["m"], logs["n"])
	}
}

// counted replaces $upstream_bytes_received in a timesSet X-Vars value
// with "N" where it is a number.
func counted(v string) string {
	f := strings.Split(v, "|")
	if len(f) > 5 && f[5] != "" && strings.Trim(f[5], "0123456789") == "" {
		f[5] = "N"
	}
	return strings.Join(f, "|")
}

// timesSet replaces each timing of a "|"-separated X-Vars value (the
// upstream_*_time fields) with "T" where it is set, as the values vary.
func timesSet(v string) string {
	f := strings.Split(v, "|")
	for i := 6; i <= 8 && i < len(f); i++ {
		if f[i] != "" && f[i] != "-" {
			f[i] = "T"
		}
	}
	return strings.Join(f, "|")
}
