package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestStaticTypesAsNGINX: a static file's Content-Type is the types of
// its location's level, as NGINX merges them: a location's own block
// replaces the inherited one whole (an extension it does not name gets
// default_type), a server's block written after its locations still
// applies to them, extensions match in any case, a dotfile and a name
// without an extension get default_type. Each name is asked twice over,
// the locations in turn, since the types a location found are kept
// (server.Types' slots): the second answer must be the first's. Status
// and Content-Type are compared with Debian's NGINX on the same
// configuration, for GET and HEAD.
func TestStaticTypesAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	// h.jpeg's extension, named in no block here, shares css's slot
	// (server.typeSlot): asked after a.css, it must not take css's type.
	names := []string{"a.css", "b.json", "c.txt", "d.JPG", "e.unknown", "noext", ".css", "x.b.css", "f.CSS", "g.html", "h.jpeg"}
	for _, name := range names {
		writeFile(t, filepath.Join(dir, "www", name), "body of "+name+"\n")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`
			types { text/plain txt; text/css css; application/json json; }
			default_type application/x-default;
			server { listen 127.0.0.1:%d; root %s/www;
				location /own/ { alias %[2]s/www/; types { text/x-own css html; } default_type text/x-own-default; }
				location /typeless/ { alias %[2]s/www/; types { } }
				location / { }
				types { text/x-server css jpg json; }
			}`, port, dir)
	})
	// A few answers pinned, so that agreeing on errors cannot pass.
	for path, want := range map[string]string{
		"/a.css": "text/x-server", "/c.txt": "application/x-default", "/d.JPG": "text/x-server",
		"/own/f.CSS": "text/x-own", "/own/b.json": "text/x-own-default", "/typeless/a.css": "application/x-default",
	} {
		resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), "GET "+path+" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
		if got := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || got != want {
			t.Errorf("GET %s: %d %q, want 200 %q", path, resp.StatusCode, got, want)
		}
	}
	for round := range 2 {
		for _, name := range names {
			for _, loc := range []string{"/", "/own/", "/typeless/"} {
				for _, method := range []string{"GET", "HEAD"} {
					req := fmt.Sprintf("%s %s%s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", method, loc, name)
					answer := func(port int) string {
						resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
						return fmt.Sprintf("%d %q", resp.StatusCode, resp.Header.Values("Content-Type"))
					}
					if m, n := answer(mport), answer(nport); m != n {
						t.Errorf("round %d: %s %s%s: mosaic %s, nginx %s", round, method, loc, name, m, n)
					}
				}
			}
		}
	}
}
