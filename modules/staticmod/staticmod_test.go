package staticmod

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testfs"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/server/servertest"
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
		testfs.Replace(t, root, name, body, fixedMtime)
	}
	return root
}

// The open_file_cache directives through the server: a cached file is
// served from its descriptor after it was replaced, a location that turns
// the cache off sees the new file at once, and errors are cached where
// open_file_cache_errors says so.
func TestOpenFileCacheDirectives(t *testing.T) {
	root := testTree(t)
	base := servertest.Start(t, `http { server { listen 127.0.0.1:0; root `+root+`;
		open_file_cache max=100 inactive=20s;
		open_file_cache_valid 60s;
		open_file_cache_min_uses 1;
		log_not_found off;
		location /dir/ { open_file_cache off; }
		location /css/ { open_file_cache_errors on; }
	} }`)
	for _, p := range []string{"/a.txt", "/dir/page.html", "/css/missing.css"} {
		testclient.Get(t, base+p)
	}
	testfs.Replace(t, root, "a.txt", "new a", fixedMtime)
	testfs.Replace(t, root, "dir/page.html", "new page", fixedMtime)
	testfs.Replace(t, root, "css/missing.css", "now here", fixedMtime)
	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/a.txt", 200, alphabet},           // cached descriptor
		{"/dir/page.html", 200, "new page"}, // open_file_cache off
		{"/css/missing.css", 404, ""},       // cached error
	} {
		resp, body := testclient.Get(t, base+c.path)
		if resp.StatusCode != c.status || (c.body != "" && body != c.body) {
			t.Errorf("GET %s: %d %q, want %d %q", c.path, resp.StatusCode, body, c.status, c.body)
		}
	}
}

// Without open_file_cache, locations share the configuration's checked
// cache: descriptors are kept, yet a replaced file is seen at once. A
// location with "open_file_cache off" keeps none.
func TestCheckedCacheByDefault(t *testing.T) {
	root := testTree(t)
	cfg := servertest.Load(t, `http { server { listen 127.0.0.1:0; root `+root+`;
		open_file_cache_valid 1h; # without open_file_cache, of no effect
		location /dir/ { open_file_cache off; }
	} }`)
	base := servertest.Serve(t, cfg)
	checked := server.MainConf[*mainConf](cfg, module).checked
	if checked == nil {
		t.Fatal("no checked cache")
	}
	for range 2 {
		testclient.Get(t, base+"/a.txt")
		testclient.Get(t, base+"/dir/page.html")
	}
	if n := checked.Len(); n != 1 {
		t.Errorf("%d entries, want 1 (a.txt)", n)
	}
	testfs.Replace(t, root, "a.txt", "new a", fixedMtime)
	if resp, body := testclient.Get(t, base+"/a.txt"); resp.StatusCode != 200 || body != "new a" {
		t.Errorf("after the file was replaced: %d %q", resp.StatusCode, body)
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
		servertest.WantError(t, "http { "+c.conf+" }", c.want)
	}
}

// A location's file options come from the compression module as well:
// gzip_static serves the .gz copy, with the Vary that gzip_vary adds, to a
// client that takes gzip, and the file itself to one that does not, with
// the same Vary (the copy is there), as NGINX.
func TestPrecompressedCopiesThroughCompressmod(t *testing.T) {
	root := testTree(t)
	testfs.Replace(t, root, "a.txt.gz", "(gzip bytes)", fixedMtime)
	base := servertest.Start(t, `http { server { listen 127.0.0.1:0; root `+root+`;
		gzip_static on; gzip_vary on;
	} }`)
	for _, tc := range []struct{ accept, encoding, vary, body string }{
		{"gzip", "gzip", "Accept-Encoding", "(gzip bytes)"},
		{"identity", "", "Accept-Encoding", alphabet},
	} {
		// The Accept-Encoding also keeps the client from decoding.
		resp, body := testclient.Get(t, base+"/a.txt", "Accept-Encoding", tc.accept)
		if got := resp.Header.Get("Content-Encoding"); got != tc.encoding || body != tc.body ||
			resp.Header.Get("Vary") != tc.vary {
			t.Errorf("Accept-Encoding %s: Content-Encoding %q, Vary %q, body %q; want %q, %q, %q", tc.accept,
				got, resp.Header.Get("Vary"), body, tc.encoding, tc.vary, tc.body)
		}
	}
}
