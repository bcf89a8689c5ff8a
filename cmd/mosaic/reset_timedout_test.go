package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestResetTimedoutConnectionAsNGINX: with reset_timedout_connection on, a
// client that stops sending its header mid-way past client_header_timeout
// gets a reset (RST), not an orderly close (FIN); with it off, a FIN.
func TestResetTimedoutConnectionAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	// A second server, without the reset, on a port of its own.
	plain := map[string]int{"m": freePort(t), "n": freePort(t)}
	origin := headerOrigin(t)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`client_header_timeout 1s; client_body_timeout 1s;
			server { listen 127.0.0.1:%d; reset_timedout_connection on; location / { proxy_pass http://%[3]s; } }
			server { listen 127.0.0.1:%[2]d; location / { proxy_pass http://%[3]s; } }`, port, plain[who], origin)
	})
	// How the connection ends after a partial request, "reset" or
	// "close", and the status line that came before, if any.
	end := func(port int, partial string) string {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, partial)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		all, err := io.ReadAll(c)
		b, _, _ := strings.Cut(string(all), "\r\n")
		switch {
		case errors.Is(err, syscall.ECONNRESET):
			return fmt.Sprintf("reset after %q", b)
		case err != nil:
			return fmt.Sprintf("%v after %q", err, b)
		}
		return fmt.Sprintf("close after %q", b)
	}
	for _, partial := range []string{"GET / HTTP/1.1\r\nHost: a", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc"} {
		for _, p := range [][2]int{{mport, nport}, {plain["m"], plain["n"]}} {
			if m, n := end(p[0], partial), end(p[1], partial); m != n {
				t.Errorf("%q on %d/%d: mosaic %s, nginx %s", partial, p[0], p[1], m, n)
			}
		}
	}
}
