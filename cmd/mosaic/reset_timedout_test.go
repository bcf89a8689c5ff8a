package main

import (
	"crypto/tls"
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
// gets a reset (RST), not an orderly close (FIN); with it off, a FIN. The
// same over TLS and behind the PROXY protocol, whose readers wrap the
// socket that takes the reset.
func TestResetTimedoutConnectionAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	// Servers without the reset, with TLS and with the PROXY protocol,
	// each on a port of its own.
	plain := map[string]int{"m": freePort(t), "n": freePort(t)}
	secure := map[string]int{"m": freePort(t), "n": freePort(t)}
	proxied := map[string]int{"m": freePort(t), "n": freePort(t)}
	origin := headerOrigin(t)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`client_header_timeout 1s; client_body_timeout 1s;
			server { listen 127.0.0.1:%d; reset_timedout_connection on; location / { proxy_pass http://%[3]s; } }
			server { listen 127.0.0.1:%[2]d; location / { proxy_pass http://%[3]s; } }
			server { listen 127.0.0.1:%[4]d ssl; ssl_certificate %[6]s; ssl_certificate_key %[7]s;
				reset_timedout_connection on; location / { proxy_pass http://%[3]s; } }
			server { listen 127.0.0.1:%[5]d proxy_protocol; reset_timedout_connection on;
				location / { proxy_pass http://%[3]s; } }`, port, plain[who], origin, secure[who], proxied[who], cert, key)
	})
	// How the connection ends after a partial request, "reset" or
	// "close", and the status line that came before, if any.
	end := func(port int, partial string) string {
		var c net.Conn
		raw, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		c = raw
		if port == secure["m"] || port == secure["n"] {
			tc := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, ServerName: "mosaic.test"})
			if err := tc.Handshake(); err != nil {
				t.Fatal(err)
			}
			c = tc
		}
		if port == proxied["m"] || port == proxied["n"] {
			partial = "PROXY TCP4 1.2.3.4 5.6.7.8 1111 80\r\n" + partial
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
	if m, n := end(mport, "GET"), end(nport, "GET"); !strings.HasPrefix(n, "reset") || m != n {
		t.Fatalf("the check itself: mosaic %s, nginx %s; want both reset", m, n)
	}
	// A client that sends nothing times out without a request: a FIN.
	if m, n := end(mport, ""), end(nport, ""); !strings.HasPrefix(n, "close") || m != n {
		t.Errorf("nothing sent: mosaic %s, nginx %s; want both close", m, n)
	}
	for _, partial := range []string{"GET / HTTP/1.1\r\nHost: a", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc"} {
		for _, p := range [][2]int{{mport, nport}, {plain["m"], plain["n"]}, {secure["m"], secure["n"]}, {proxied["m"], proxied["n"]}} {
			if m, n := end(p[0], partial), end(p[1], partial); m != n {
				t.Errorf("%q on %d/%d: mosaic %s, nginx %s", partial, p[0], p[1], m, n)
			}
		}
	}
}
