package proxymod

import (
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
	for _, bad := range [][]string{nil, {"a", "weight=0"}, {"a", "max_fails=-1"}, {"a", "fail_timeout=x"}, {"a", "slow_start=x"}, {"a", "max_conns=-1"}} {
		if _, err := parseServer(bad); err == nil {
			t.Errorf("parseServer(%q) succeeded", bad)
		}
	}
}

// proxy_next_upstream is a bitmask in NGINX: its lines at one level add
// up, "off" on any of them wins, and "updating" alone tries no other
// server, as "off".
func TestNextUpstreamLinesAddUpAsNGINX(t *testing.T) {
	for _, c := range []struct {
		lines string
		want  proxy.NextUpstream
	}{
		{"proxy_next_upstream error;\nproxy_next_upstream http_502;", proxy.NextError | proxy.NextHTTP502},
		{"proxy_next_upstream updating;\nproxy_next_upstream timeout;", proxy.NextTimeout},
		{"proxy_next_upstream error;\nproxy_next_upstream off;", proxy.NextOff},
		{"proxy_next_upstream updating;", proxy.NextOff},
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
