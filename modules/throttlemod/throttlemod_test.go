package throttlemod_test

import (
	"context"
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

// TestLimitRate times 150 KB answers under limit_rate 100k, with NGINX's
// one second of slack: half a second when limited, which load only
// lengthens. The rate a limited answer had is read from the access
// log's $limit_rate, not from an upper bound on its time, which load
// breaks; a rate read in bytes where kilobytes are meant (1500 s for the
// body) still ends at the request's 10 s. Where no limit may apply (no
// limit, limit_rate_after past the body, or an upstream's
// X-Accel-Limit-Rate that proxy_ignore_headers names) the rate that
// would be wrongly applied is 1 byte per second: a throttled body would
// need hours, so the whole body within 10 s shows none was, however slow
// the machine.
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
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, err := http.NewRequestWithContext(ctx, "GET", base+c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		resp, got := testclient.Send(t, req)
		d := time.Since(start)
		cancel()
		if len(got) != len(body) || resp.Header.Get("X-Accel-Limit-Rate") != "" {
			t.Errorf("%s: %d bytes, X-Accel-Limit-Rate %q", c.path, len(got), resp.Header.Get("X-Accel-Limit-Rate"))
		}
		if c.limited && d < 400*time.Millisecond {
			t.Errorf("%s: took %v, want 500ms at least", c.path, d)
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
