package cachemod

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server"
)

func TestKeyTemplate(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/a/b?x=1", nil)
	r.Host = "www.example.com"
	for _, c := range []struct{ tmpl, want string }{
		{defaultKeyTemplate, "http://backend:8080/a/b?x=1"},
		{"${proxy_host}$uri", "backend:8080/a/b"},
		{"$host|$proxy_host|$proxy_host", "www.example.com|backend:8080|backend:8080"},
		{"$uri$is_args$args", "/a/b?x=1"},
		{"static", "static"},
	} {
		k, err := compileKey(c.tmpl)
		if err != nil {
			t.Fatalf("%s: %v", c.tmpl, err)
		}
		if got := k.eval(r, nil, "backend:8080"); got != c.want {
			t.Errorf("%s: %q, want %q", c.tmpl, got, c.want)
		}
	}
	// $proxy_host_x is another (unknown) variable, not $proxy_host.
	if _, err := compileKey("$proxy_host_x"); err == nil || !strings.Contains(err.Error(), "proxy_host_x") {
		t.Errorf("$proxy_host_x: %v", err)
	}
}

// TestKeyStart: NGINX's default key begins with proxy_pass's scheme, "://"
// and its host, the port only when not the scheme's, whatever scheme the
// client used.
func TestKeyStart(t *testing.T) {
	for target, want := range map[string]string{
		"http://backend":              "http://backend",
		"http://backend:80/x/":        "http://backend",
		"https://10.0.0.1:8443":       "https://10.0.0.1:8443",
		"https://[::1]:443":           "https://[::1]",
		"http://unix:/run/app.sock:/": "http://unix:/run/app.sock:",
	} {
		p, err := proxy.ParsePass(target)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if got := keyStart(p); got != want {
			t.Errorf("%s: %q, want %q", target, got, want)
		}
	}
}

func TestParseZone(t *testing.T) {
	parse := func(args ...string) (*zoneConf, error) {
		return parseZone(args, server.ParseSize, server.ParseSeconds)
	}
	z, err := parse("keys_zone=a:10m", "max_size=1m", "inactive=30s")
	if err != nil || z.kind != zoneMemory || z.name != "a" || z.size != 10<<20 || z.maxSize != 1<<20 || z.inactive != 30*time.Second {
		t.Fatalf("keys_zone only: %+v %v", z, err)
	}
	if z, err := parse("memory", "keys_zone=m:1m"); err != nil || z.kind != zoneMemory || z.path != "" {
		t.Fatalf("memory: %+v %v", z, err)
	}
	if z, err := parse("valkey://10.0.0.1:6379/2", "keys_zone=r:1m"); err != nil || z.kind != zoneRedis || z.path != "valkey://10.0.0.1:6379/2" || z.redisTimeout != 0 {
		t.Fatalf("valkey: %+v %v", z, err)
	}
	z, err = parse("redis://10.0.0.1:6379/0", "keys_zone=r:1m", "redis_timeout=1500ms")
	if err != nil || z.redisTimeout != 1500*time.Millisecond {
		t.Fatalf("redis_timeout: %+v %v", z, err)
	}
	// A zone whose timeout changed is another store (reopened on reload).
	if other, _ := parse("redis://10.0.0.1:6379/0", "keys_zone=r:1m"); other.signature() == z.signature() {
		t.Errorf("redis_timeout left out of the signature %q", z.signature())
	}
	z, err = parse("rel/cache", "levels=1:2", "keys_zone=d:1m", "use_temp_path=off")
	if err != nil || z.kind != zoneDisk || !strings.HasSuffix(z.path, "/rel/cache") || !strings.HasPrefix(z.path, "/") || len(z.levels) != 2 {
		t.Fatalf("disk: %+v %v", z, err)
	}
	for _, bad := range [][]string{
		{"memory"},
		{"keys_zone=x:1k"},
		{"keys_zone=:1m"},
		{"memory", "keys_zone=x:1m", "levels=1"},
		{"/c", "keys_zone=x:1m", "levels=1:2:2:2"},
		{"/c", "keys_zone=x:1m", "inactive=0"},
		{"/c", "keys_zone=x:1m", "bogus"},
		{"/c", "keys_zone=x:1m", "redis_timeout=1s"},
		{"memory", "keys_zone=x:1m", "redis_timeout=1s"},
		{"redis://h:6379/0", "keys_zone=x:1m", "redis_timeout=0"},
		{"redis://h:6379/0", "keys_zone=x:1m", "redis_timeout=fast"},
	} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// proxy_ignore_headers, proxy_cache_methods and proxy_cache_use_stale are
// bitmasks in NGINX: the lines at one level add up rather than being
// refused as duplicates, and "off" on any line of proxy_cache_use_stale
// overrides the others.
func TestBitmaskLinesAddUpAsNGINX(t *testing.T) {
	cfg, err := server.LoadString("t.conf", `http {
	proxy_ignore_headers Expires;
	proxy_ignore_headers Set-Cookie;
	proxy_cache_methods GET;
	proxy_cache_methods POST;
	fastcgi_ignore_headers Expires;
	fastcgi_ignore_headers Vary;
	proxy_cache_use_stale error;
	proxy_cache_use_stale updating;
}`)
	if err != nil {
		t.Fatal(err)
	}
	defer cfg.Close()
	lc := server.LocConf[*locConf](cfg.HTTP(), module)
	if got := strings.Join(lc.ignore.V, " "); got != "Expires Set-Cookie" {
		t.Errorf("proxy_ignore_headers %q", got)
	}
	if got := strings.Join(lc.methods.V, " "); got != "GET POST" {
		t.Errorf("proxy_cache_methods %q", got)
	}
	if got := lc.useStale.V; got != cache.StaleError|cache.StaleUpdating {
		t.Errorf("proxy_cache_use_stale %b", got)
	}
	for _, lines := range []string{"proxy_cache_use_stale error; proxy_cache_use_stale off;", "proxy_cache_use_stale off; proxy_cache_use_stale error;"} {
		cfg, err := server.LoadString("t.conf", "http { "+lines+" }")
		if err != nil {
			t.Fatal(err)
		}
		if s := server.LocConf[*locConf](cfg.HTTP(), module).useStale; !s.Set || s.V != 0 {
			t.Errorf("%s: %+v, want off", lines, s)
		}
		cfg.Close()
	}
}
