package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestKeptFileValidatorsAsNGINX: a file answered from a kept descriptor
// (mosaic's cache checked on every use, and open_file_cache) carries
// NGINX's ETag, Last-Modified, Content-Length and ranges in every answer
// that uses them, though mosaic formats them once per kept file; after the
// file is rewritten (another length and time), the new file's; after it
// is removed, NGINX's 404.
func TestKeptFileValidatorsAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	dir := t.TempDir()
	files := map[string]string{}
	for _, sub := range []string{"", "c/", "n/"} {
		files[sub+"f.txt"] = "the first version"
	}
	root := bothFiles(t, dir, files)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s;
				location /c/ { open_file_cache max=10; open_file_cache_valid 1s; }
				location /n/ { etag off; }
			}`, port, root(who))
	})
	answer := func(port int, req string) string {
		r, b := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req+"Connection: close\r\n\r\n")
		var s strings.Builder
		fmt.Fprintf(&s, "%d", r.StatusCode)
		if r.StatusCode >= 400 {
			// The error page names the server, so its length differs.
			return s.String()
		}
		for _, name := range []string{"Etag", "Last-Modified", "Content-Length", "Content-Range", "Accept-Ranges"} {
			fmt.Fprintf(&s, " %s=%q", name, r.Header.Get(name))
		}
		fmt.Fprintf(&s, " %q", b)
		return s.String()
	}
	round := func(when string) {
		for _, path := range []string{"/f.txt", "/c/f.txt", "/n/f.txt"} {
			first, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), "GET "+path+" HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
			etag, since := first.Header.Get("Etag"), first.Header.Get("Last-Modified")
			for _, ask := range []string{
				"", "If-None-Match: " + etag + "\r\n", "If-None-Match: \"other\"\r\n",
				"If-Modified-Since: " + since + "\r\n", "Range: bytes=4-8\r\n",
				"If-Range: " + etag + "\r\nRange: bytes=4-8\r\n",
			} {
				for _, method := range []string{"GET", "HEAD"} {
					req := method + " " + path + " HTTP/1.1\r\nHost: a.test\r\n" + ask
					// Twice: the second is answered from what the first kept.
					for i := range 2 {
						if m, n := answer(mport, req), answer(nport, req); m != n {
							t.Errorf("%s, %q (%d): mosaic %s, nginx %s", when, req, i, m, n)
						}
					}
				}
			}
		}
	}
	round("first")
	later := time.Now().Add(-time.Minute).Truncate(time.Second)
	for _, who := range []string{"m", "n"} {
		for name := range files {
			p := filepath.Join(root(who), name)
			writeFile(t, p, "the second, longer version")
			if err := os.Chtimes(p, later, later); err != nil {
				t.Fatal(err)
			}
		}
	}
	time.Sleep(1100 * time.Millisecond) // open_file_cache_valid
	round("rewritten")
	for _, who := range []string{"m", "n"} {
		for name := range files {
			os.Remove(filepath.Join(root(who), name))
		}
	}
	time.Sleep(1100 * time.Millisecond)
	round("removed")
}
