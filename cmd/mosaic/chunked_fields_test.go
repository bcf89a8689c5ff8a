package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestChunkedFieldsAsNGINX: a chunked request's Transfer-Encoding field
// is $http_transfer_encoding as the client wrote it ("Chunked", spaces
// around it dropped), where mosaic's was empty (the parse moves the
// field into the framing); and once a proxy has read the body whole,
// $content_length in the access log is the body's length, as NGINX counts
// it while it reads the chunks. A request with a Content-Length logs that
// field. (A `return` location's $content_length is left out: NGINX's
// discard leaves 0 there, or 8192 while it waits for more, not a length.)
func TestChunkedFieldsAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"n": "nginx", "m": "mosaic"}[who]
		up := freePort(t)
		return fmt.Sprintf(`log_format te '$request_uri|$http_transfer_encoding|$content_length';
		server { listen 127.0.0.1:%[4]d; access_log off; return 204; }
		server {
			listen 127.0.0.1:%[1]d;
			access_log %[2]s/%[3]s/access.log te;
			location /p/ { proxy_pass http://127.0.0.1:%[4]d; }
			location /e/ { access_log off; return 200 "te=$http_transfer_encoding|\n"; }
		}`, port, dir, sub, up)
	})
	reqs := []string{
		"POST /p/a HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n",
		"POST /p/b HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:  Chunked \r\nConnection: close\r\n\r\n0\r\n\r\n",
		"POST /p/c HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
		"POST /e/a HTTP/1.1\r\nHost: a\r\ntransfer-encoding: Chunked\r\nConnection: close\r\n\r\n0\r\n\r\n",
		"GET /e/b HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
	}
	logged := 0
	for _, req := range reqs {
		var got [2]string
		for i, port := range []int{mport, nport} {
			resp := sendUntilClosed(t, port, req)
			_, got[i], _ = strings.Cut(resp, "\r\n\r\n")
		}
		if got[0] != got[1] {
			t.Errorf("%q: mosaic %q, nginx %q", req, got[0], got[1])
		}
		if strings.HasPrefix(req, "POST /p/") {
			logged++
		}
	}
	mlog := refusedLines(t, filepath.Join(dir, "mosaic/access.log"), logged)
	nlog := refusedLines(t, filepath.Join(dir, "nginx/access.log"), logged)
	if strings.Join(mlog, "\n") != strings.Join(nlog, "\n") {
		t.Errorf("access log:\nmosaic %q\n nginx %q", mlog, nlog)
	}
}
