package proxy_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/proxy"
)

// passWriter is a filter's writer between the cache and the proxy: the
// proxy sees it, not the cache's.
type passWriter struct{ http.ResponseWriter }

// An HTTP/2 client's miss stores the upstream's Proxy-Connection, TE and
// Upgrade for a later HTTP/1.1 hit, as NGINX stores the header as it
// came, also with a filter between the cache and the proxy; the HTTP/2
// response itself has none of them. The proxy kept them back when the
// writer it was handed was not the cache's own, and the hit went
// without.
func TestCacheFillThroughFilterKeepsConnFields(t *testing.T) {
	body := "hop"
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nProxy-Connection: keep-alive\r\nTE: trailers\r\nUpgrade: h2c\r\n"+
			"Cache-Control: max-age=60\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	})
	p := proxyTo(t, "http://"+o.Addr(), proxy.Options{})
	filter := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.ServeHTTP(passWriter{w}, r)
	})
	s, err := cache.NewMemoryStore(cache.MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c, err := cache.New(filter, cache.Options{Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	fields := func(proto int) string {
		r := httptest.NewRequest(http.MethodGet, "http://a/x", nil)
		r.ProtoMajor = proto
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		h := w.Result().Header
		if b, _ := io.ReadAll(w.Result().Body); string(b) != body {
			t.Errorf("HTTP/%d: body %q", proto, b)
		}
		return strings.Join([]string{h.Get("Proxy-Connection"), h.Get("Te"), h.Get("Upgrade")}, " ")
	}
	if got := fields(2); got != "  " {
		t.Errorf("HTTP/2 miss: Proxy-Connection, TE, Upgrade %q, want none", got)
	}
	if got, want := fields(1), "keep-alive trailers h2c"; got != want {
		t.Errorf("HTTP/1.1 hit: Proxy-Connection, TE, Upgrade %q, want %q", got, want)
	}
}
