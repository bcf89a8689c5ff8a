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
		return connEnd(c, partial)
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

// connEnd sends partial on c and says how the server ends the
// connection, "reset" or "close", after what status line, if any.
func connEnd(c net.Conn, partial string) string {
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

// TestResetTimedoutPerLocationAsNGINX: NGINX reads
// reset_timedout_connection from the request's location when it frees a
// request whose client timed out (ngx_http_free_request), so a location
// turns it on or off against its server's value, for a body that stops
// coming. A header that stops before any location is chosen takes the
// server's.
func TestResetTimedoutPerLocationAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	on := map[string]int{"m": freePort(t), "n": freePort(t)}
	origin := headerOrigin(t)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`client_header_timeout 1s; client_body_timeout 1s;
			server { listen 127.0.0.1:%d; location / { proxy_pass http://%[3]s; }
				location /r { reset_timedout_connection on; proxy_pass http://%[3]s; } }
			server { listen 127.0.0.1:%[2]d; reset_timedout_connection on;
				location / { proxy_pass http://%[3]s; }
				location /f { reset_timedout_connection off; proxy_pass http://%[3]s; } }`, port, on[who], origin)
	})
	end := func(port int, partial string) string {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		return connEnd(c, partial)
	}
	post := func(path string) string {
		return "POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc"
	}
	for _, c := range []struct {
		serverOn bool // the server's value
		ask      string
		want     string
	}{
		{false, post("/"), "close"},
		{false, post("/r"), "reset"},
		{true, post("/"), "reset"},
		{true, post("/f"), "close"},
		{true, "GET /f HTTP/1.1\r\nHost: a", "reset"},
		{false, "GET /r HTTP/1.1\r\nHost: a", "close"},
	} {
		m, n := end(mport, c.ask), end(nport, c.ask)
		if c.serverOn {
			m, n = end(on["m"], c.ask), end(on["n"], c.ask)
		}
		if !strings.HasPrefix(n, c.want) {
			t.Errorf("the check itself: %q: nginx %s, want %s", c.ask, n, c.want)
		}
		if m != n {
			t.Errorf("%q (server on %v): mosaic %s, nginx %s", c.ask, c.serverOn, m, n)
		}
	}
}
