package staticmod

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/server"
)

// fixedMtime is the modification time of every file the tests write, so
// that a replaced file differs from the one it replaces only by identity.
var fixedMtime = time.Unix(1600000000, 0)

const alphabet = "abcdefghijklmnopqrstuvwxyz"

// testTree writes a small site into a fresh directory and returns it.
func testTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range map[string]string{
		"a.txt":         alphabet,
		"dir/page.html": "<p>page</p>",
		"css/site.css":  "body{}",
	} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		replace(t, root, name, body, fixedMtime)
	}
	return root
}

// replace puts body at rel below root by renaming a new file over it, as
// a deploy does, and gives it mtime.
func replace(t *testing.T, root, rel, body string, mtime time.Time) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.WriteFile(p+".new", []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p+".new", mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
}

// startConfig runs src on a loopback listener and returns its base URL.
func startConfig(t *testing.T, src string) string {
	t.Helper()
	cfg, err := server.LoadString("test.conf", src)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return startLoaded(t, cfg)
}

func startLoaded(t *testing.T, cfg *server.Config) string {
	t.Helper()
	rt := server.NewRuntime()
	if err := rt.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rt.Shutdown(ctx)
	})
	return "http://" + rt.Addrs()[0].String()
}

func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// The open_file_cache directives through the server: a cached file is
// served from its descriptor after it was replaced, a location that turns
// the cache off sees the new file at once, and errors are cached where
// open_file_cache_errors says so.
func TestOpenFileCacheDirectives(t *testing.T) {
	root := testTree(t)
	base := startConfig(t, `http { server { listen 127.0.0.1:0; root `+root+`;
		open_file_cache max=100 inactive=20s;
		open_file_cache_valid 60s;
		open_file_cache_min_uses 1;
		log_not_found off;
		location /dir/ { open_file_cache off; }
		location /css/ { open_file_cache_errors on; }
	} }`)
	for _, p := range []string{"/a.txt", "/dir/page.html", "/css/missing.css"} {
		getBody(t, base+p)
	}
	replace(t, root, "a.txt", "new a", fixedMtime)
	replace(t, root, "dir/page.html", "new page", fixedMtime)
	replace(t, root, "css/missing.css", "now here", fixedMtime)
	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/a.txt", 200, alphabet},           // cached descriptor
		{"/dir/page.html", 200, "new page"}, // open_file_cache off
		{"/css/missing.css", 404, ""},       // cached error
	} {
		status, body := getBody(t, base+c.path)
		if status != c.status || (c.body != "" && body != c.body) {
			t.Errorf("GET %s: %d %q, want %d %q", c.path, status, body, c.status, c.body)
		}
	}
}

// Without open_file_cache, locations share the configuration's checked
// cache: descriptors are kept, yet a replaced file is seen at once. A
// location with "open_file_cache off" keeps none.
func TestCheckedCacheByDefault(t *testing.T) {
	root := testTree(t)
	cfg, err := server.LoadString("test.conf", `http { server { listen 127.0.0.1:0; root `+root+`;
		open_file_cache_valid 1h; # without open_file_cache, of no effect
		location /dir/ { open_file_cache off; }
	} }`)
	if err != nil {
		t.Fatal(err)
	}
	base := startLoaded(t, cfg)
	checked := server.MainConf[*mainConf](cfg, module).checked
	if checked == nil {
		t.Fatal("no checked cache")
	}
	for range 2 {
		getBody(t, base+"/a.txt")
		getBody(t, base+"/dir/page.html")
	}
	if n := checked.Len(); n != 1 {
		t.Errorf("%d entries, want 1 (a.txt)", n)
	}
	replace(t, root, "a.txt", "new a", fixedMtime)
	if status, body := getBody(t, base+"/a.txt"); status != 200 || body != "new a" {
		t.Errorf("after the file was replaced: %d %q", status, body)
	}
}

func TestOpenFileCacheDirectiveErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{"open_file_cache inactive=20s;", `"open_file_cache" must have the "max" parameter in test.conf:1`},
		{"open_file_cache max=0;", `invalid "open_file_cache" parameter "max=0" in test.conf:1`},
		{"open_file_cache max=10 size=1;", `invalid "open_file_cache" parameter "size=1"`},
		{"open_file_cache max=10 inactive=x;", `invalid "open_file_cache" parameter "inactive=x"`},
		{"open_file_cache max=10; open_file_cache off;", `"open_file_cache" directive is duplicate`},
		{"open_file_cache_valid soon;", `invalid value "soon" in "open_file_cache_valid" directive`},
		{"open_file_cache_min_uses -1;", `invalid value "-1" in "open_file_cache_min_uses" directive`},
		{"open_file_cache_errors yes;", `invalid value "yes" in "open_file_cache_errors" directive`},
	} {
		_, err := server.LoadString("test.conf", "http { "+c.conf+" }")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.conf, err, c.want)
		}
	}
}

// A location's file options come from the compression module as well:
// gzip_static serves the .gz copy, with the Vary that gzip_vary adds, to a
// client that takes gzip, and the file itself to one that does not.
func TestPrecompressedCopiesThroughCompressmod(t *testing.T) {
	root := testTree(t)
	replace(t, root, "a.txt.gz", "(gzip bytes)", fixedMtime)
	base := startConfig(t, `http { server { listen 127.0.0.1:0; root `+root+`;
		gzip_static on; gzip_vary on;
	} }`)
	for _, tc := range []struct{ accept, encoding, vary, body string }{
		{"gzip", "gzip", "Accept-Encoding", "(gzip bytes)"},
		{"identity", "", "", alphabet},
	} {
		req, err := http.NewRequest("GET", base+"/a.txt", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept-Encoding", tc.accept) // also keeps the client from decoding
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("Content-Encoding"); got != tc.encoding || string(body) != tc.body ||
			resp.Header.Get("Vary") != tc.vary {
			t.Errorf("Accept-Encoding %s: Content-Encoding %q, Vary %q, body %q; want %q, %q, %q", tc.accept,
				got, resp.Header.Get("Vary"), body, tc.encoding, tc.vary, tc.body)
		}
	}
}
