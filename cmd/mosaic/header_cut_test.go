package main

import (
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"
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
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(c, "GET /probe HTTP/1.1\r\nHost: x\r\nUser-Agent: scanner\r\n")
		time.Sleep(200 * time.Millisecond)
		c.Close()
		got[who] = waitLog(t, filepath.Join(dir, who+".log"), 1)[0]
	}
	if got["m"] != got["n"] {
		t.Errorf("mosaic %q, NGINX %q", got["m"], got["n"])
	}
}
