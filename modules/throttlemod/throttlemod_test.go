package throttlemod_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	_ "github.com/mosaic-edge/mosaic/modules/accesslogmod"
	_ "github.com/mosaic-edge/mosaic/modules/cachemod"
	_ "github.com/mosaic-edge/mosaic/modules/fastcgimod"
	_ "github.com/mosaic-edge/mosaic/modules/grpcmod"
	_ "github.com/mosaic-edge/mosaic/modules/memcachedmod"
	_ "github.com/mosaic-edge/mosaic/modules/proxymod"
	_ "github.com/mosaic-edge/mosaic/modules/rewritemod"
	"github.com/mosaic-edge/mosaic/modules/throttlemod"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// chunkLine bounds a chunk's size line and its end ("19000\r\n" and
// "\r\n"): the chunked framing of a send is made as the send is flushed,
// after its size is weighed, so the allowance may be passed by that much
// where NGINX cuts a send mid-chunk (throttle/README.md).
const chunkLine = 16

// TestLimitRate reads 150 KB answers under limit_rate 100k as they come
// on the wire (relayed chunked). NGINX's arithmetic (throttle/README.md)
// sends a second's worth, 102,400 bytes with the header, at once and the
// rest once those bytes' time at the rate, a second, has passed: two
// runs, the first of 102,400 bytes, a second apart. The first run's size
// is the rate, bounded both ways however loaded the machine (at a rate
// 4x too slow it is 25,608 bytes, at 0.9x 92,168; at 2x it is all of
// it), and the pause is its time: at least 900 ms (a second, less the
// client's lateness in reading the first run; a send made without the
// wait comes at the turn of the second, 800 ms or less after the first,
// as testclient.ReadRuns sends early in a second), under 1.9 s (a wait
// twice too long is 2 s). The rate a limited answer had is also read from the access log's
// $limit_rate. Where no limit may apply (no limit, limit_rate_after past
// the body, or an upstream's X-Accel-Limit-Rate that proxy_ignore_headers
// names) the rate that would be wrongly applied is 1 byte per second: a
// throttled body would need hours, so the whole body within 10 s shows
// none was, however slow the machine.
func TestLimitRate(t *testing.T) {
	body := strings.Repeat("x", 150<<10)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rate := r.URL.Query().Get("accel"); rate != "" {
			w.Header().Set("X-Accel-Limit-Rate", rate)
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(origin.Close)
	up := strings.TrimPrefix(origin.URL, "http://")
	logPath := filepath.Join(t.TempDir(), "rate.log")
	base := servertest.Start(t, fmt.Sprintf(`http {
		log_format rate '$request_uri $limit_rate';
		access_log %[2]s rate;
		server {
		listen 127.0.0.1:0;
		location /free/  { proxy_pass http://%[1]s; }
		location /rate/  { proxy_pass http://%[1]s; limit_rate 100k; }
		# Past the body and its header: the header's bytes count against
		# limit_rate_after, as NGINX's, so at 150k the last ~250 bytes
		# would go at 1 byte per second.
		location /after/ { proxy_pass http://%[1]s; limit_rate 1; limit_rate_after 151k; }
		location /var/   { proxy_pass http://%[1]s; set $r 100k; limit_rate $r; }
		location /set/   { proxy_pass http://%[1]s; limit_rate 1m; set $limit_rate 100k; }
		location /ignore/ { proxy_pass http://%[1]s; proxy_ignore_headers X-Accel-Limit-Rate; }
		location /show   { set $limit_rate 2k; return 200 "$limit_rate"; }
		location /none   { return 200 "$limit_rate"; }
	} }`, up, logPath))
	cases := []struct {
		path    string
		limited bool
		rate    string // $limit_rate, logged
	}{
		{"/free/x", false, "0"},
		{"/rate/x", true, "102400"},
		{"/after/x", false, "1"}, // in force, but past limit_rate_after
		{"/var/x", true, "102400"},
		{"/set/x", true, "102400"},
		{"/free/x?accel=102400", true, "102400"},
		{"/ignore/x?accel=1", false, "0"},
	}
	var wantLog strings.Builder
	for _, c := range cases {
		resp, got, runs, err := testclient.ReadRuns(strings.TrimPrefix(base, "http://"),
			"GET "+c.path+" HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", 400*time.Millisecond, 10*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if len(got) != len(body) || resp.Header.Get("X-Accel-Limit-Rate") != "" {
			t.Errorf("%s: %d bytes, X-Accel-Limit-Rate %q", c.path, len(got), resp.Header.Get("X-Accel-Limit-Rate"))
		}
		switch {
		case c.limited && (len(runs.Sizes) != 2 || runs.Sizes[0] < 100<<10 || runs.Sizes[0] > 100<<10+chunkLine):
			t.Errorf("%s: runs %v at %v; want two, the first of 102400 bytes (and a chunk's line)", c.path, runs.Sizes, runs.At)
		case c.limited && (runs.At[1]-runs.At[0] < 900*time.Millisecond || runs.At[1]-runs.At[0] > 1900*time.Millisecond):
			t.Errorf("%s: runs %v at %v; want the second a second after the first", c.path, runs.Sizes, runs.At)
		}
		fmt.Fprintf(&wantLog, "%s %s\n", c.path, c.rate)
	}
	// A request is logged as it ends, just after its client has the body.
	var logged []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if logged, _ = os.ReadFile(logPath); len(logged) >= wantLog.Len() {
			break
		}
	}
	if string(logged) != wantLog.String() {
		t.Errorf("access log ($request_uri $limit_rate):\n%s\nwant\n%s", logged, wantLog.String())
	}
	for path, want := range map[string]string{"/show": "2048", "/none": "0"} {
		if _, got := testclient.Get(t, base+path); got != want {
			t.Errorf("%s: $limit_rate %q, want %q", path, got, want)
		}
	}
}

func TestLimitRateErrors(t *testing.T) {
	servertest.WantError(t, `http { server { location / { limit_rate fast; } } }`, `invalid value "fast" in "limit_rate" directive`)
	servertest.WantError(t, `http { server { location / { limit_rate 1k; limit_rate 2k; } } }`, `"limit_rate" directive is duplicate`)
}

// TestMayLimitGateways: a gateway whose answers may carry
// X-Accel-Limit-Rate makes every location look for a rate at run time;
// memcached_pass, whose gets have no header, and grpc_pass, relayed
// unbuffered and so never paced (NGINX's upstream sets r->limit_rate to
// 0 for an unbuffered answer), do not, nor does a fastcgi_pass that
// ignores the field.
func TestMayLimitGateways(t *testing.T) {
	for _, c := range []struct {
		loc  string
		want bool
	}{
		{"fastcgi_pass 127.0.0.1:9;", true},
		{"fastcgi_pass 127.0.0.1:9; fastcgi_ignore_headers X-Accel-Limit-Rate;", false},
		{"set $memcached_key $uri; memcached_pass 127.0.0.1:9;", false},
		{"grpc_pass 127.0.0.1:9;", false},
		{"set $limit_rate 1k;", true},
	} {
		cfg := servertest.Load(t, `http { server { listen 127.0.0.1:0;
			location /files/ { root /nonexistent; }
			location /gw/ { `+c.loc+` } } }`)
		if got := throttlemod.Dynamic(cfg); got != c.want {
			t.Errorf("%s: rate settable at run time %v, want %v", c.loc, got, c.want)
		}
	}
}
