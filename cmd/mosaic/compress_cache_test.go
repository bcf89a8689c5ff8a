package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitLog waits until the file at path has n lines and returns them.
func waitLog(t *testing.T, path string, n int) []string {
	t.Helper()
	var lines []string
	deadline := time.Now().Add(waitCeiling)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(path)
		lines = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(data) > 0 && len(lines) >= n {
			return lines
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("access log has %d lines, want %d: %q", len(lines), n, lines)
	return nil
}

// TestCompressCacheThroughBinary serves a static file twice with
// compress_cache on: the second response is the first one's bytes, taken
// from the store ($compress_cache_status HIT). A changed file is compressed
// anew, and a location with compress_cache off never uses the store.
func TestCompressCacheThroughBinary(t *testing.T) {
	s := startSite(t, `http {
		log_format cc '$uri $compress_cache_status';
		access_log {dir}/access.log cc;
		compress_cache_size 4m;
		server {
			listen 127.0.0.1:{port};
			root {root};
			brotli on;
			brotli_types *;
			brotli_comp_level 11;
			compress_cache on;
			location = /mid.js { compress_cache off; }
		}
	}`)
	logPath := filepath.Join(s.dir, "access.log")
	ae := []string{"Accept-Encoding", "br"}

	r1, b1 := s.expect(t, "/big.js", "br", "big.js", ae...)
	r2, b2 := s.expect(t, "/big.js", "br", "big.js", ae...)
	if !bytes.Equal(b1, b2) {
		t.Fatal("second response differs from the first")
	}
	if r2.ContentLength != int64(len(b2)) || r2.Header.Get("Etag") != "W/"+s.etagOf(t, "big.js") {
		t.Fatalf("hit: Content-Length %d for %d bytes, ETag %q", r2.ContentLength, len(b2), r2.Header.Get("Etag"))
	}
	if r1.Header.Get("Vary") != r2.Header.Get("Vary") {
		t.Fatalf("Vary %q on the hit, %q on the miss", r2.Header.Get("Vary"), r1.Header.Get("Vary"))
	}

	// A new file: new mtime and size, hence a new ETag and a new key.
	changed := append([]byte("/* v2 */"), s.files["big.js"]...)
	path := filepath.Join(s.root, "big.js")
	if err := os.WriteFile(path, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	s.files["big.js"] = changed
	s.expect(t, "/big.js", "br", "big.js", ae...)
	s.expect(t, "/big.js", "br", "big.js", ae...)

	s.expect(t, "/mid.js", "br", "mid.js", ae...)
	s.expect(t, "/mid.js", "br", "mid.js", ae...)

	want := []string{"/big.js MISS", "/big.js HIT", "/big.js MISS", "/big.js HIT", "/mid.js -", "/mid.js -"}
	got := waitLog(t, logPath, len(want))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("access log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCompressCacheKeepsVariantsApart: an upstream answer that varies on
// a request field other than Accept-Encoding (Vary: Cookie), with the same
// Last-Modified and length for every user, is compressed for each request
// and not kept: one user's compressed body must not answer another.
func TestCompressCacheKeepsVariantsApart(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user := "anon"
		if c, err := r.Cookie("user"); err == nil {
			user = c.Value
		}
		body := fmt.Sprintf(`{"user":%q,"data":%q}`, user, strings.Repeat("x", 500))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Vary", "Cookie")
		w.Header().Set("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		io.WriteString(w, body)
	}))
	t.Cleanup(origin.Close)
	port := freePort(t)
	startMosaic(t, t.TempDir(), fmt.Sprintf(`http { server { listen 127.0.0.1:{port}; gzip on; gzip_types application/json;
		compress_cache on; location / { proxy_pass %s; } } }`, origin.URL), port)
	for _, user := range []string{"alice", "bobby", "alice"} {
		resp, body := get(t, fmt.Sprintf("http://127.0.0.1:%d/me", port), ae, "gzip", "Cookie", "user="+user)
		if plain := string(decode(t, resp.Header.Get("Content-Encoding"), body)); !strings.Contains(plain, `"user":"`+user+`"`) {
			t.Errorf("user %s got %.30q", user, plain)
		}
	}
}
