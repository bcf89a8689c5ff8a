package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestSetArgsProxiedAsNGINX: the request line an upstream gets after
// "set $args" (to a value, or to nothing) or a rewrite that empties the
// arguments, for proxy_pass with and without a URI, as from NGINX.
// "set $args" clears NGINX's valid_unparsed_uri
// (ngx_http_variable_set_args): a proxy_pass without a URI part no
// longer sends the client's target as it came but the decoded,
// normalized URI, escaped again (NGX_ESCAPE_URI) where the client's had
// a percent-escape: "/set/a%26b" goes as "/set/a&b?a=1".
func TestSetArgsProxiedAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.RequestURI)
	}))
	t.Cleanup(origin.Close)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%[1]d;
			location /set/ { set $args "a=1"; proxy_pass http://%[2]s; }
			location /empty/ { set $args ""; proxy_pass http://%[2]s; }
			location /uri/ { set $args "a=1"; proxy_pass http://%[2]s/u/; }
			location /uriempty/ { set $args ""; proxy_pass http://%[2]s/u/; }
			location /rw/ { rewrite ^ /rw/x? break; proxy_pass http://%[2]s; }
			location /var/ { set $args ""; proxy_pass http://%[2]s$uri$is_args$args; }
		}`, port, origin.Listener.Addr())
	})
	for _, p := range []string{"/set/x?z=9", "/set/x", "/empty/x?z=9", "/empty/x", "/uri/x?z=9", "/uriempty/x?z=9",
		"/rw/x?z=9", "/var/x?z=9",
		"/set/a%26b?z=9", "/set/a%41b", "/set/a%20b", "/set/a%2Fb", "/set/%7Ea", "/set//a/./b/../c?z=%26",
		"/empty/a%26b?z=9", "/uri/a%26b?z=9"} {
		_, mb := doGet(t, mport, p)
		_, nb := doGet(t, nport, p)
		if mb != nb {
			t.Errorf("%s: mosaic sent %q, nginx %q", p, mb, nb)
		}
	}
	// Bytes a Go client would escape, sent raw: without a percent-escape
	// (no quoted_uri) NGINX copies its parsed URI, slashes merged and
	// dot segments gone, as it is, a '"' or a UTF-8 byte included, and
	// escapes it again as soon as the client's path held one.
	for _, p := range []string{`/set//x/./a"b`, `/set//x/./a"b?z=9`, `/set/a|b{c}`, "/set/\u00e9", `/set/a"b%41`,
		`/empty//x/../a"b?z=9`, `/uri//x/./a"b?z=9`} {
		raw := "GET " + p + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
		_, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), raw)
		_, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), raw)
		if mb != nb {
			t.Errorf("%s: mosaic sent %q, nginx %q", p, mb, nb)
		}
	}
}

// doGet is a GET of p on 127.0.0.1:port.
func doGet(t *testing.T, port int, p string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, p), nil)
	return doRequest(t, req)
}
