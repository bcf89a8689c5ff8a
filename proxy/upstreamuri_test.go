package proxy_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/mosaic-edge/mosaic/proxy"
)

// TestUpstreamURINeverEmpty: a request whose path is empty (one built
// in-process; the server's always begin with "/") and that has no target
// as sent goes upstream as "/", and with arguments "/?a", as NGINX's
// proxy, whose URI always begins with "/" (and whose evaluated proxy_pass
// URI gets a "/" before its "?"), sends it: never an empty target, which
// would make "GET  HTTP/1.0" a request line no origin reads.
func TestUpstreamURINeverEmpty(t *testing.T) {
	h := proxyTo(t, "http://127.0.0.1:1", proxy.Options{})
	for query, want := range map[string]string{"": "/", "a=1": "/?a=1"} {
		r := &http.Request{Method: http.MethodGet, URL: &url.URL{RawQuery: query}, Header: http.Header{}}
		if got := h.UpstreamURI(r); got != want {
			t.Errorf("empty path, query %q: %q, want %q", query, got, want)
		}
	}
}
