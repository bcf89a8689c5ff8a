package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// Directives the real-world configurations (shared/nginx-configs/real-world)
// set, against Debian's NGINX on the same configuration.

// bothFiles writes the same files, with the same modification time, under
// dir/nginx/www and dir/mosaic/www and returns a function giving each
// server's root.
func bothFiles(t *testing.T, dir string, files map[string]string) func(who string) string {
	t.Helper()
	root := func(who string) string {
		return filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "www")
	}
	// One modification time for both copies: it is in the ETag and
	// Last-Modified, and the writes may straddle a second.
	mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, who := range []string{"m", "n"} {
		for name, body := range files {
			path := filepath.Join(root(who), name)
			writeFile(t, path, body)
			if err := os.Chtimes(path, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// gzipAnswer is what a client sees of a compressed answer: status, the
// coding fields, whether a length came, the ETag and the decoded body.
// For mosaic, two differences that compress/README.md documents are left
// out: a gzip body that fits in gzip_buffers keeps a Content-Length (NGINX
// always sends it chunked), and gzip_vary's field goes on a response
// skipped for its size or type too. (gzip_proxied off is left out: there
// NGINX sends gzip_vary's field to a request with Via, mosaic does not, a
// difference compress/README.md lists.)
func gzipAnswer(t *testing.T, port int, req string, mosaic bool) string {
	t.Helper()
	// NGINX sends /nosf/ of TestSendfileChunkAndTCPFlagsAsNGINX a byte
	// an event loop turn (sendfile_max_chunk 1): seconds, past Raw's
	// 10 s on a loaded machine (its body came back cut short).
	r, body := testclient.RawWithin(t, fmt.Sprintf("127.0.0.1:%d", port), req, waitCeiling)
	if mosaic && r.Header.Get("Content-Encoding") == "gzip" {
		r.Header.Del("Content-Length")
	}
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(strings.NewReader(body))
		if err != nil {
			return fmt.Sprintf("undecodable: %v", err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			return fmt.Sprintf("undecodable: %v", err)
		}
		body = string(b)
	}
	return fmt.Sprintf("%d CE %q Vary %q length %q ETag %q body %d %x", r.StatusCode,
		r.Header.Get("Content-Encoding"), r.Header.Values("Vary"), r.Header.Values("Content-Length"),
		r.Header.Get("ETag"), len(body), crc(body))
}

func crc(s string) uint32 {
	var h uint32 = 2166136261
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// TestGzipLevelsAndBuffersAsNGINX: gzip_comp_level 1..9, gzip_buffers
// smaller and larger than the answer, and gzip_proxied's variants as
// h5bp and Debian set them: the answer decodes to the same bytes, with
// the same Content-Encoding, Vary, no Content-Length and a weak ETag.
func TestGzipLevelsAndBuffersAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	var big bytes.Buffer
	for i := 0; big.Len() < 300<<10; i++ {
		fmt.Fprintf(&big, "line %d of a compressible page, %x\n", i, i*7919)
	}
	root := bothFiles(t, dir, map[string]string{"a.html": big.String(), "s.css": strings.Repeat("a{b:c}", 50), "tiny.css": "a{}"})
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		var locs strings.Builder
		for l := 1; l <= 9; l++ {
			fmt.Fprintf(&locs, "location /l%d/ { alias %s/; gzip_comp_level %d; }\n", l, root(who), l)
		}
		return fmt.Sprintf(`types { text/html html; text/css css; } gzip on; gzip_vary on; gzip_min_length 256; gzip_comp_level 5;
			gzip_proxied expired no-cache no-store private auth; gzip_types text/css;
			server { listen 127.0.0.1:%d; root %s;
				%s
				location /b1/ { alias %[2]s/; gzip_buffers 1 1k; }
				location /b32/ { alias %[2]s/; gzip_buffers 32 4k; }
				location /b16/ { alias %[2]s/; gzip_buffers 16 8k; gzip_comp_level 6; }
				location /any/ { alias %[2]s/; gzip_proxied any; }
				location /noetag/ { alias %[2]s/; gzip_proxied no_etag; }
				location /off/ { alias %[2]s/; gzip_proxied off; }
			}`, port, root(who), locs.String())
	})
	var paths []string
	for l := 1; l <= 9; l++ {
		paths = append(paths, fmt.Sprintf("/l%d/", l))
	}
	paths = append(paths, "/", "/b1/", "/b32/", "/b16/", "/any/", "/noetag/", "/off/")
	for _, p := range paths {
		for _, file := range []string{"a.html", "s.css", "tiny.css"} {
			for _, extra := range []string{"", "\r\nVia: 1.1 p", "\r\nVia: 1.1 p\r\nAuthorization: x"} {
				req := "GET " + p + file + " HTTP/1.1\r\nHost: a.test\r\nAccept-Encoding: gzip" + extra + "\r\nConnection: close\r\n\r\n"
				if m, n := gzipAnswer(t, mport, req, true), gzipAnswer(t, nport, req, false); m != n {
					t.Errorf("%q:\nmosaic %s\nnginx  %s", req, m, n)
				}
			}
		}
	}
}

// TestSendfileChunkAndTCPFlagsAsNGINX: sendfile_max_chunk, tcp_nopush and
// tcp_nodelay (Debian's and h5bp's) change how a file goes out, not what:
// a large file and a range of it come the same. (A multipart range is
// left out: the boundaries are random, and of other lengths.)
func TestSendfileChunkAndTCPFlagsAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	big := strings.Repeat("0123456789abcdef", 256<<10/16*3)
	root := bothFiles(t, dir, map[string]string{"big.bin": big})
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`sendfile on; tcp_nopush on; tcp_nodelay on; sendfile_max_chunk 512k;
			server { listen 127.0.0.1:%d; root %s;
				location /small/ { alias %[2]s/; sendfile_max_chunk 4k; tcp_nodelay off; tcp_nopush off; }
				location /nosf/ { alias %[2]s/; sendfile off; sendfile_max_chunk 1; }
			}`, port, root(who))
	})
	for _, p := range []string{"/big.bin", "/small/big.bin", "/nosf/big.bin"} {
		for _, extra := range []string{"", "\r\nRange: bytes=100000-300000", "\r\nRange: bytes=-5"} {
			req := "GET " + p + " HTTP/1.1\r\nHost: a.test" + extra + "\r\nConnection: close\r\n\r\n"
			if m, n := gzipAnswer(t, mport, req, true), gzipAnswer(t, nport, req, false); m != n {
				t.Errorf("%q:\nmosaic %s\nnginx  %s", req, m, n)
			}
		}
	}
}

// TestOpenFileCacheChangesAsNGINX: with open_file_cache (h5bp's max=1000
// inactive=20s, valid 30s, min_uses 2, errors on), a file removed, added
// or rewritten while its entry is valid is answered from the entry, and
// once open_file_cache_valid has passed from the disk.
func TestOpenFileCacheChangesAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	dir := t.TempDir()
	// Each location has files of its own: the cache is keyed by file
	// name, and locations sharing files would share their entries.
	files := map[string]string{}
	for _, sub := range []string{"", "e/", "u/"} {
		files[sub+"gone.txt"], files[sub+"changed.txt"], files[sub+"later.txt"] = "to be removed", "version one", "x"
	}
	root := bothFiles(t, dir, files)
	for _, who := range []string{"m", "n"} {
		for _, sub := range []string{"", "e/", "u/"} {
			os.Remove(filepath.Join(root(who), sub+"later.txt"))
		}
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`open_file_cache max=1000 inactive=20s; open_file_cache_valid 2s;
			open_file_cache_min_uses 1; open_file_cache_errors on;
			server { listen 127.0.0.1:%d; root %s;
				location /e/ { open_file_cache_errors off; }
				location /u/ { open_file_cache_min_uses 3; }
			}`, port, root(who))
	})
	type answer struct{ status, body string }
	get := func(port int, path string) answer {
		r, b := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET "+path+" HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
		if r.StatusCode != http.StatusOK {
			b = ""
		}
		return answer{r.Status, b}
	}
	var paths []string
	for _, pre := range []string{"/", "/e/", "/u/"} {
		paths = append(paths, pre+"gone.txt", pre+"changed.txt", pre+"later.txt")
	}
	round := func(when string) {
		for _, p := range paths {
			if m, n := get(mport, p), get(nport, p); m != n {
				t.Errorf("%s, %s: mosaic %v, nginx %v", when, p, m, n)
			}
		}
	}
	round("first")
	round("second")
	for _, who := range []string{"m", "n"} {
		for _, sub := range []string{"", "e/", "u/"} {
			d := filepath.Join(root(who), sub)
			os.Remove(filepath.Join(d, "gone.txt"))
			writeFile(t, filepath.Join(d, "later.txt"), "now here")
			// Same size, so only the content and the time differ.
			writeFile(t, filepath.Join(d, "changed.txt"), "version two")
			os.Chtimes(filepath.Join(d, "changed.txt"), time.Now().Add(time.Minute), time.Now().Add(time.Minute))
		}
	}
	round("just after the changes")
	time.Sleep(2500 * time.Millisecond)
	round("after open_file_cache_valid")
}
