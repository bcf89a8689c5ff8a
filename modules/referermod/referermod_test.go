package referermod

import (
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	_ "github.com/mosaic-edge/mosaic/modules/rewritemod"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// TestInvalidRefererThroughServer: the server level's list serves the
// locations without one, server_names takes the server's names even
// when server_name comes later, and a location outside any list finds
// every Referer valid.
func TestInvalidRefererThroughServer(t *testing.T) {
	base := servertest.Start(t, `http {
		server {
			listen 127.0.0.1:0;
			valid_referers none server_names;
			location /own { valid_referers blocked *.example.com; return 200 "[$invalid_referer]"; }
			location /img { if ($invalid_referer) { return 403; } return 200 "ok"; }
			server_name site.test;
		}
	}`)
	for _, c := range []struct {
		path, ref, want string
	}{
		{"/img", "", "ok"},
		{"/img", "http://site.test/page", "ok"},
		{"/img", "http://evil.test/", "403"},
		{"/own", "", "[1]"},
		{"/own", "junk", "[]"},
		{"/own", "http://www.example.com/", "[]"},
		{"/own", "http://site.test/", "[1]"},
	} {
		var h []string
		if c.ref != "" {
			h = []string{"Referer", c.ref}
		}
		resp, body := testclient.Get(t, base+c.path, h...)
		if resp.StatusCode == 403 {
			body = "403"
		}
		if body != c.want {
			t.Errorf("%s %q: %q, want %q", c.path, c.ref, body, c.want)
		}
	}
}
