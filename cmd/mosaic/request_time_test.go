package main

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRequestTimeCountsHeaderAsNGINX: NGINX's request begins with its
// first byte, so $request_time counts the time the client took to send
// its header, and a 408's the wait until client_header_timeout: a slow
// client (a slowloris) shows in the log as one. mosaic counted from the
// end of the header, 0.000 for both.
func TestRequestTimeCountsHeaderAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format t '$request_uri $status $request_time';
			access_log %s/%s.log t; client_header_timeout 1s;
			server { listen 127.0.0.1:%d; return 204; }`, dir, who, port)
	})
	for who, port := range map[string]int{"m": mport, "n": nport} {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprint(c, "GET /slow HTTP/1.1\r\n")
		time.Sleep(600 * time.Millisecond)
		fmt.Fprint(c, "Host: x\r\n\r\n")
		b := make([]byte, 512)
		_, _ = c.Read(b)
		fmt.Fprint(c, "GET /timeout HTTP/1.1\r\n") // and no more
		_, _ = c.Read(b)
		c.Close()
		lines := waitLog(t, filepath.Join(dir, who+".log"), 2)
		for i, want := range []struct {
			start    string
			min, max float64
		}{{"/slow 204 ", 0.5, 0.9}, {"/timeout 408 ", 0.9, 1.5}} {
			f, err := strconv.ParseFloat(strings.TrimPrefix(lines[i], want.start), 64)
			if !strings.HasPrefix(lines[i], want.start) || err != nil || f < want.min || f > want.max {
				t.Errorf("%s: line %q, want %s with $request_time from %.1f to %.1f", map[string]string{"m": "mosaic", "n": "NGINX"}[who], lines[i], want.start, want.min, want.max)
			}
		}
	}
}
