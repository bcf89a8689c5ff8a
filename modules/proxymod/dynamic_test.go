package proxymod_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/resolver/resolvertest"
	"github.com/mosaic-edge/mosaic/internal/testclient"
	_ "github.com/mosaic-edge/mosaic/modules/mapmod"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// TestProxyPassVariables: "proxy_pass http://$backend" evaluated per
// request, as NGINX does: a name of an upstream block uses the group, an
// IP address is dialled, another name is resolved with the resolver at
// request time; a URI part in the value is the whole target; a name with
// no resolver, or one that does not resolve, is a 502.
func TestProxyPassVariables(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s host=%s", r.RequestURI, r.Host)
	}))
	defer origin.Close()
	_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
	dns := resolvertest.Start(t, map[string][]resolvertest.Record{
		"app.test": {{Addr: netip.MustParseAddr("127.0.0.1"), TTL: 0}},
	})

	base := servertest.Start(t, fmt.Sprintf(`http {
		upstream group { server 127.0.0.1:%[1]s; }
		map $arg_to $backend {
			default   group;
			ip        127.0.0.1:%[1]s;
			name      app.test:%[1]s;
			missing   nowhere.test:%[1]s;
		}
		resolver %[2]s valid=1s ipv6=off;
		resolver_timeout 5s;
		server {
			listen 127.0.0.1:0;
			location /p/   { proxy_pass http://$backend; }
			location /uri/ { proxy_pass http://$backend/fixed$uri; }
		}
	}`, port, dns.Addr))
	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/p/a?x=1", 200, "/p/a?x=1 host=group"},
		{"/p/b?to=ip", 200, "/p/b?to=ip host=127.0.0.1:" + port},
		{"/p/c?to=name", 200, "/p/c?to=name host=app.test:" + port},
		{"/p/d?to=missing", 502, ""},
		// The value's URI is the whole target: no query string added.
		{"/uri/e?to=name", 200, "/fixed/uri/e host=app.test:" + port},
	} {
		resp, body := testclient.Get(t, base+c.path)
		if resp.StatusCode != c.status || (c.body != "" && body != c.body) {
			t.Errorf("%s: %d %q, want %d %q", c.path, resp.StatusCode, body, c.status, c.body)
		}
	}
	if dns.Queries.Load() == 0 {
		t.Error("the resolver was never asked")
	}
}

// Without a resolver, a name that is no upstream cannot be proxied to.
func TestProxyPassVariablesNoResolver(t *testing.T) {
	base := servertest.Start(t, `http {
		server {
			listen 127.0.0.1:0;
			location / { proxy_pass http://$arg_to; }
		}
	}`)
	if resp, _ := testclient.Get(t, base+"/?to=app.test"); resp.StatusCode != 502 {
		t.Errorf("status %d, want 502", resp.StatusCode)
	}
	if resp, _ := testclient.Get(t, base+"/?to=ftp:x"); resp.StatusCode != 500 {
		t.Errorf("invalid value: status %d, want 500", resp.StatusCode)
	}
}

func TestResolverErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`http { resolver 127.0.0.1 ipv4=off ipv6=off; }`, `"ipv4" and "ipv6" cannot both be "off" in test.conf:1`},
		{`http { resolver 127.0.0.1 valid=x; }`, `invalid parameter: valid=x in test.conf:1`},
		{`http { resolver 127.0.0.1:99999; }`, `invalid port in resolver "127.0.0.1:99999" in test.conf:1`},
		{`http { resolver 127.0.0.1; resolver 127.0.0.2; }`, `"resolver" directive is duplicate in test.conf:1`},
		{`http { server { location / { proxy_pass http://$nonesuch; } } }`, `unknown "nonesuch" variable in test.conf:1`},
	} {
		servertest.WantError(t, tc.src, tc.want)
	}
}
