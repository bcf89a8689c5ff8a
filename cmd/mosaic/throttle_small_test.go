package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestLimitRateSendfileSmallFilesAsNGINX (fidelity18): NGINX rounds a
// send from a file up to a page of the file only where that page ends
// inside the file (ngx_linux_sendfile_chain), so a file of a page or
// less goes in sends of exactly the allowance, header included, with
// sendfile on as with it off, with limit_rate_after too: as mosaic sends
// it. A file of more than a page that mosaic reads into memory (up to
// 16 KB) is where the two part (kept apart, throttle README): 12,000
// bytes at limit_rate 5000 come from NGINX as the header and 8,192
// bytes, then the rest 1.69 s later (the wait of those bytes), from
// mosaic in 5,000-byte runs a second apart. The runs are compared
// whole, header included: the allowance counts it, and the servers'
// headers differ in length.
func TestLimitRateSendfileSmallFilesAsNGINX(t *testing.T) {
	files := map[string]string{"small": strings.Repeat("s", 3000), "mid": strings.Repeat("m", 12000)}
	bases := limitBoth(t, files, func(listen, root string) string {
		return fmt.Sprintf(`access_log off;
			server {
				%s
				location /on/ { alias %s/; limit_rate 2000; sendfile on; }
				location /after/ { alias %[2]s/; limit_rate 1000; limit_rate_after 1500; sendfile on; }
				location /mid/ { alias %[2]s/; limit_rate 5000; sendfile on; }
				location /off/ { alias %[2]s/; limit_rate 5000; sendfile off; }
			}`, listen, root)
	})
	reqs := map[string]string{
		"small":       "GET /on/small HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
		"range small": "GET /on/small HTTP/1.1\r\nHost: t\r\nRange: bytes=100-\r\nConnection: close\r\n\r\n",
		"after small": "GET /after/small HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
		"mid":         "GET /mid/mid HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
		"off mid":     "GET /off/mid HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
	}
	// The runs before the last, header included; the last is the rest.
	want := map[string][]int{
		"small": {2000}, "range small": {2000}, "after small": {2500}, "off mid": {5000, 5000},
		"mosaic mid": {5000, 5000}, "nginx mid": {8192}, // NGINX's: body bytes, the page
	}
	readRunsBoth(t, bases, reqs, func(name, req string, runs testclient.Runs, header int) {
		w, ok := want[req]
		if !ok {
			w = want[name+" "+req]
		}
		got := runs.Sizes
		if len(got) > 0 {
			got = got[:len(got)-1]
		}
		if name+" "+req == "nginx mid" && len(got) > 0 {
			got = []int{got[0] - header}
		}
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s %s: runs %v at %v (header %d), want %v and the rest", name, req, runs.Sizes, runs.At, header, w)
		}
	})
}
