package proxymod

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
)

func TestParseServer(t *testing.T) {
	s, err := parseServer([]string{"127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	if s != (proxy.Server{Addr: "127.0.0.1:8080", Weight: 1, MaxFails: 1, FailTimeout: 10 * time.Second}) {
		t.Errorf("defaults: %+v", s)
	}
	s, err = parseServer([]string{"b:81", "weight=3", "max_fails=0", "fail_timeout=1m30s", "backup", "down"})
	if err != nil {
		t.Fatal(err)
	}
	want := proxy.Server{Addr: "b:81", Weight: 3, MaxFails: 0, FailTimeout: 90 * time.Second, Backup: true, Down: true}
	if s != want {
		t.Errorf("got %+v, want %+v", s, want)
	}
	for _, bad := range [][]string{nil, {"a", "weight=0"}, {"a", "max_fails=-1"}, {"a", "fail_timeout=x"}, {"a", "slow_start=x"}, {"a", "max_conns=-1"}, {"a", "fail_timeout=500ms"}} {
		if _, err := parseServer(bad); err == nil {
			t.Errorf("parseServer(%q) succeeded", bad)
		}
	}
}

// proxy_next_upstream is a bitmask in NGINX: its lines at one level add
// up, "off" on any of them wins, and "updating" alone tries no other
// server, as "off". A value given twice is only warned about.
func TestNextUpstreamLinesAddUpAsNGINX(t *testing.T) {
	for _, c := range []struct {
		lines string
		want  proxy.NextUpstream
	}{
		{"proxy_next_upstream error;\nproxy_next_upstream http_502;", proxy.NextError | proxy.NextHTTP502},
		{"proxy_next_upstream updating;\nproxy_next_upstream timeout;", proxy.NextTimeout},
		{"proxy_next_upstream error;\nproxy_next_upstream off;", proxy.NextOff},
		{"proxy_next_upstream updating;", proxy.NextOff},
		{"proxy_next_upstream error error;", proxy.NextError},
	} {
		cfg, err := core.LoadString("t.conf", "http {\n"+c.lines+"\n}")
		if err != nil {
			t.Errorf("%q: %v", c.lines, err)
			continue
		}
		if got := NextUpstreamOf(core.LocConf[*locConf](cfg.HTTP(), module).next); got != c.want {
			t.Errorf("%q: %b, want %b", c.lines, got, c.want)
		}
		cfg.Close()
	}
}

// proxy_ssl_protocols is a bitmask in NGINX: its lines at one level add
// up; the union must still be a range, which is all Go can enable.
func TestSSLProtocolsLinesAddUpAsNGINX(t *testing.T) {
	cfg, err := core.LoadString("t.conf", "http {\nproxy_ssl_protocols TLSv1.3;\nproxy_ssl_protocols TLSv1.2;\n}")
	if err != nil {
		t.Fatal(err)
	}
	defer cfg.Close()
	if p := core.LocConf[*locConf](cfg.HTTP(), module).ssl.protocols.V; p != [2]uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Errorf("proxy_ssl_protocols %x, want TLSv1.2 to TLSv1.3", p)
	}
	want := `"proxy_ssl_protocols" directive leaves out TLSv1.1 between TLSv1 and TLSv1.2; versions can only be enabled as a range in t.conf:3`
	if _, err := core.LoadString("t.conf", "http {\nproxy_ssl_protocols TLSv1;\nproxy_ssl_protocols TLSv1.2;\n}"); err == nil || err.Error() != want {
		t.Errorf("a gap across lines: %v, want %s", err, want)
	}
}

// "proxy_next_upstream_timeout 0", NGINX's default written out, loads
// and means no limit, as the default does.
func TestNextUpstreamTimeoutZeroAsNGINX(t *testing.T) {
	cfg, err := core.LoadString("t.conf", "http {\nproxy_next_upstream_timeout 0;\n}")
	if err != nil {
		t.Fatal(err)
	}
	defer cfg.Close()
	if s := core.LocConf[*locConf](cfg.HTTP(), module).nextTimeout; !s.Set || s.V != 0 {
		t.Errorf("proxy_next_upstream_timeout %+v, want 0 (no limit)", s)
	}
}
