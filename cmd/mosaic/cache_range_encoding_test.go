package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRangeRefusedEncodingBesideNGINX pins a kept difference: a range
// refused (416) of a stored gzip response (proxy_cache, while it fills
// and on a hit) is answered with an HTML page,
// the server's or error_page's, which NGINX labels with the 200's
// "Content-Encoding: gzip" (its special response keeps the header list
// but length, Accept-Ranges and Last-Modified): a client that decodes
// as told fails on it. mosaic's 416 goes without the coding, its body
// readable as it is; Vary and Content-Range stay in both. GET and HEAD.
func TestRangeRefusedEncodingBesideNGINX(t *testing.T) {
	text := []byte(strings.Repeat("zipped text\n", 20))
	gz := encodeGzip(t, text)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Type", "text/plain")
		h.Set("Vary", "Accept-Encoding")
		h.Set("Cache-Control", "max-age=3600")
		h.Set("Accept-Ranges", "bytes") // NGINX's proxy allows ranges on this only
		_, _ = w.Write(gz)
	}))
	t.Cleanup(origin.Close)
	mport, nport := startBothSite(t, t.TempDir(), func(sub string, port, _ int) string {
		return fmt.Sprintf(`proxy_cache_path %[1]s/cache keys_zone=z:1m;
			server { listen 127.0.0.1:%[2]d; root %[1]s/site; proxy_cache z;
				location /c/ { proxy_pass http://%[3]s/; }
				location /e/ { proxy_pass http://%[3]s/; error_page 416 /x.html; } }`, sub, port, origin.Listener.Addr())
	})
	// Each cached path twice: a miss, then a hit.
	for _, path := range []string{"/c/a", "/c/a", "/e/a", "/e/a"} {
		for _, method := range []string{"GET", "HEAD"} {
			req := method + " " + path + " HTTP/1.1\r\nHost: a.test\r\nRange: bytes=1000-\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
			m, n := refusedRange(t, sendUntilClosed(t, mport, req)), refusedRange(t, sendUntilClosed(t, nport, req))
			if m.code != 416 || n.code != 416 || m.encoding != "" || n.encoding != "gzip" ||
				m.vary != n.vary || m.contentRange != n.contentRange || method == "GET" && (!m.plain || n.decodes) {
				t.Errorf("%s %s:\nmosaic %+v\nNGINX  %+v", method, path, m, n)
			}
		}
	}
}

// refused is what TestRangeRefusedEncodingBesideNGINX reads of a 416.
type refused struct {
	code                         int
	encoding, vary, contentRange string
	plain, decodes               bool // the body is HTML or text; it gunzips
}

func refusedRange(t *testing.T, raw string) refused {
	t.Helper()
	resp, body := readAnswer(t, raw)
	_, gzErr := gzip.NewReader(bytes.NewReader(body))
	return refused{
		code: resp.StatusCode, encoding: resp.Header.Get("Content-Encoding"),
		vary: resp.Header.Get("Vary"), contentRange: resp.Header.Get("Content-Range"),
		plain:   bytes.HasPrefix(body, []byte("<html>")) || string(body) == "error page\n",
		decodes: gzErr == nil,
	}
}
