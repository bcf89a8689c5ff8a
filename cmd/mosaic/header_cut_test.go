package main

import (
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"testing"
)

// TestHeaderCutShortLoggedAsNGINX: a client that closes its connection in
// the middle of a request header is a request all the same to NGINX
// ("client prematurely closed connection"): the access log has a 400
// line with nothing sent and the request line as received. mosaic wrote
// no line, so a scanner that sends half a request and leaves was not in
// the log that fail2ban reads.
func TestHeaderCutShortLoggedAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format s '"$request" $status $body_bytes_sent';
			access_log %s/%s.log s;
			server { listen 127.0.0.1:%d; return 204; }`, dir, who, port)
	})
	got := map[string]string{}
	for who, port := range map[string]int{"m": mport, "n": nport} {
		c := sendThenWait(t, port, "GET /probe HTTP/1.1\r\nHost: x\r\nUser-Agent: scanner\r\n")
		c.Close()
		got[who] = waitLog(t, filepath.Join(dir, who+".log"), 1)[0]
	}
	if got["m"] != got["n"] {
		t.Errorf("mosaic %q, NGINX %q", got["m"], got["n"])
	}
}

// TestHeaderBrokenOffLoggedAsNGINX: what else NGINX logs as a request
// ended in the middle of its header ("" 400 0 and the line as received):
// empty lines only, then the close; a header whose connection is reset
// (recv() fails); the same on a kept-alive connection after a request
// served. A connection closed between two requests leaves no line. mosaic
// logged none of the first three.
func TestHeaderBrokenOffLoggedAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		// escape=json: an empty $request is written as nothing, as
		// NGINX writes it (the default escaping writes "-" for it).
		return fmt.Sprintf(`log_format s escape=json '"$request" $status $body_bytes_sent $connection_requests';
			access_log %s/%s.log s;
			server { listen 127.0.0.1:%d; return 204; }`, dir, who, port)
	})
	cases := []struct {
		send  string
		reset bool
		lines int // NGINX logs
	}{
		{"\r\n", false, 1},
		{"GET /probe HTTP/1.1\r\nHost: x\r\n", true, 1},
		{"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\n", true, 2},
		{"GET /c HTTP/1.1\r\nHost: x\r\n\r\n", false, 1},
	}
	lines := 0
	for _, tc := range cases {
		lines += tc.lines
	}
	for _, port := range []int{mport, nport} {
		for _, tc := range cases {
			c := sendThenWait(t, port, tc.send)
			if tc.reset {
				c.SetLinger(0) // the close sends a reset
			}
			c.Close()
		}
	}
	got := map[string][]string{}
	for _, who := range []string{"m", "n"} {
		// The lines of the last closes come in the servers' own time.
		// Sorted: a reset may be seen after a later connection's line.
		got[who] = slices.Sorted(slices.Values(waitLog(t, filepath.Join(dir, who+".log"), lines)))
	}
	if !slices.Equal(got["m"], got["n"]) {
		t.Errorf("mosaic %q\nNGINX  %q", got["m"], got["n"])
	}
}

// sendThenWait connects to the server on port, sends text and waits
// until the server has read it, then hands the connection over to be
// closed as the test needs (a close, a reset, a half close): a reset that
// came before the read would discard the bytes unread, and the server
// would see a different request.
func sendThenWait(t *testing.T, port int, text string) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, text); err != nil {
		t.Fatal(err)
	}
	tc := c.(*net.TCPConn)
	waitPeerRead(t, tc)
	return tc
}
