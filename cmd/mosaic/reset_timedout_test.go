package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
		raw, err := dialEnd(t, port)
		if err != nil {
			return err.Error()
		}
		c = raw
		if port == secure["m"] || port == secure["n"] {
			tc := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, ServerName: "mosaic.test"})
			if err := tc.Handshake(); err != nil {
				raw.Close()
				t.Errorf("TLS handshake on %d: %v", port, err)
				return "no handshake"
			}
			c = tc
		}
		if port == proxied["m"] || port == proxied["n"] {
			partial = "PROXY TCP4 1.2.3.4 5.6.7.8 1111 80\r\n" + partial
		}
		return connEnd(c, partial)
	}
	// A partial request line, and a client that sends nothing, which
	// times out without a request: a FIN.
	first := atOnce(4, func(i int) string { return end([]int{mport, nport}[i%2], []string{"GET", ""}[i/2]) })
	if m, n := first[0], first[1]; !strings.HasPrefix(n, "reset") || m != n {
		t.Fatalf("the check itself: mosaic %s, nginx %s; want both reset", m, n)
	}
	if m, n := first[2], first[3]; !strings.HasPrefix(n, "close") || m != n {
		t.Errorf("nothing sent: mosaic %s, nginx %s; want both close", m, n)
	}
	type ask struct {
		partial string
		m, n    int
	}
	var asks []ask
	for _, partial := range []string{"GET / HTTP/1.1\r\nHost: a", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc"} {
		for _, p := range [][2]int{{mport, nport}, {plain["m"], plain["n"]}, {secure["m"], secure["n"]}, {proxied["m"], proxied["n"]}} {
			asks = append(asks, ask{partial, p[0], p[1]})
		}
	}
	got := atOnce(2*len(asks), func(i int) string {
		a := asks[i/2]
		return end([]int{a.m, a.n}[i%2], a.partial)
	})
	for i, a := range asks {
		if m, n := got[2*i], got[2*i+1]; m != n {
			t.Errorf("%q on %d/%d: mosaic %s, nginx %s", a.partial, a.m, a.n, m, n)
		}
	}
}

// atOnce calls f(0) to f(n-1), each on a goroutine of its own, and returns
// their results in that order. The connections of the timeout tests each
// wait out the server's client_header_timeout or client_body_timeout:
// together, they wait for it once rather than n times. f must not call
// t.Fatal.
func atOnce(n int, f func(i int) string) []string {
	out := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = f(i) })
	}
	wg.Wait()
	return out
}

// dialEnd connects to a test server's port for connEnd; a failure is the
// test's error (not t.Fatal: it may run on a goroutine of atOnce's).
func dialEnd(t *testing.T, port int) (net.Conn, error) {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Errorf("dial %d: %v", port, err)
	}
	return c, err
}

// connEnd sends partial on c and says how the server ends the
// connection, "reset" or "close", after what status line, if any. An
// empty partial is not written: a write, even of nothing, takes a reset
// that has come already as its own error, and the read then ends in EOF.
func connEnd(c net.Conn, partial string) string {
	defer c.Close()
	if partial != "" {
		io.WriteString(c, partial)
	}
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
		c, err := dialEnd(t, port)
		if err != nil {
			return err.Error()
		}
		return connEnd(c, partial)
	}
	post := func(path string) string {
		return "POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc"
	}
	cases := []struct {
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
	}
	got := atOnce(2*len(cases), func(i int) string {
		c, ports := cases[i/2], []int{mport, nport}
		if c.serverOn {
			ports = []int{on["m"], on["n"]}
		}
		return end(ports[i%2], c.ask)
	})
	compareEnds(t, got, func(i int) (string, string) {
		return fmt.Sprintf("%q (server on %v)", cases[i].ask, cases[i].serverOn), cases[i].want
	})
}

// TestResetTimedoutServerLevelAsNGINX: a body left unread after the
// response NGINX discards waiting lingering_timeout for each read
// (ngx_http_discarded_request_body_handler), and a client that stops
// sending it has timed out: the connection ends with a reset under
// reset_timedout_connection, else with a FIN, within seconds (mosaic
// waited keepalive_timeout). A request answered at the server level, before
// any location (a server-level return), takes the value of the server its
// Host chose, not the address's default server's: on the first address
// the default server has it off, on the second on.
func TestResetTimedoutServerLevelAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	second := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`client_header_timeout 1s; client_body_timeout 1s; lingering_timeout 1s;
			server { listen 127.0.0.1:%[1]d default_server; server_name off.test; return 200 "off\n"; }
			server { listen 127.0.0.1:%[1]d; server_name on.test; reset_timedout_connection on; return 200 "on\n"; }
			server { listen 127.0.0.1:%[1]d; server_name loc.test; reset_timedout_connection on;
				location / { return 200 "loc\n"; } }
			server { listen 127.0.0.1:%[2]d default_server; server_name on.test; reset_timedout_connection on;
				return 200 "on\n"; }
			server { listen 127.0.0.1:%[2]d; server_name off.test; return 200 "off\n"; }`, port, second[who])
	})
	cases := []struct {
		host string
		m, n int
	}{
		{"off.test", mport, nport}, {"on.test", mport, nport}, {"loc.test", mport, nport},
		{"off.test", second["m"], second["n"]}, {"on.test", second["m"], second["n"]},
	}
	got := atOnce(2*len(cases), func(i int) string {
		c := cases[i/2]
		return stoppedBodyEnd(t, c.host, []int{c.m, c.n}[i%2])
	})
	for i, c := range cases {
		if m, n := got[2*i], got[2*i+1]; m != n {
			t.Errorf("%s on %d/%d: mosaic %s, nginx %s", c.host, c.m, c.n, m, n)
		}
	}
}

// TestDiscardLingerPerLocationAsNGINX: NGINX discards a body's rest after
// the response by the lingering_timeout of the request's location
// (ngx_http_finalize_connection, ngx_http_discarded_request_body_handler),
// and a server-level answer by the chosen server's: here 1s, where the
// address's default (http-level) value is 20s, so a client that stops
// sending has timed out within a second (reset under the location's
// reset_timedout_connection) where mosaic, by the default server's
// value, waited past the test's 5s deadline.
func TestDiscardLingerPerLocationAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return fmt.Sprintf(`client_header_timeout 1s; client_body_timeout 1s; lingering_timeout 20s;
			server { listen 127.0.0.1:%[1]d default_server; server_name loc.test;
				location / { lingering_timeout 1s; reset_timedout_connection on; return 200 "loc\n"; } }
			server { listen 127.0.0.1:%[1]d; server_name srv.test; lingering_timeout 1s; return 200 "srv\n"; }`, port)
	})
	hosts := []string{"loc.test", "srv.test"}
	got := atOnce(2*len(hosts), func(i int) string { return stoppedBodyEnd(t, hosts[i/2], []int{mport, nport}[i%2]) })
	for i, host := range hosts {
		if m, n := got[2*i], got[2*i+1]; m != n {
			t.Errorf("%s: mosaic %s, nginx %s", host, m, n)
		}
	}
}

// stoppedBodyEnd sends port a POST for host whose body stops after 3 of
// its 10 bytes, and says how the server ended the connection (connEnd).
// Each waits out a timeout of the server's: the tests ask all at once
// (atOnce).
func stoppedBodyEnd(t *testing.T, host string, port int) string {
	c, err := dialEnd(t, port)
	if err != nil {
		return err.Error()
	}
	return connEnd(c, "POST / HTTP/1.1\r\nHost: "+host+"\r\nContent-Length: 10\r\n\r\nabc")
}

// TestLingeringTimeEndAsNGINX: the end of lingering_time while NGINX
// discards a body's rest after the response
// (ngx_http_discarded_request_body_handler). A client still trickling
// then has its bytes left unread by NGINX's close, and the kernel resets,
// with reset_timedout_connection on or off; one that stopped has the last
// timer (lingering_timeout 5s, shortened to the whole seconds left of
// lingering_time: its first is a whole lingering_timeout) goes off: a timeout,
// a reset under reset_timedout_connection. mosaic ended the wait at
// lingering_time's end with a FIN in both. (A lingering close has sent
// its FIN before it waits, so the client cannot tell how it ends.)
func TestLingeringTimeEndAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	dir := t.TempDir()
	ports := map[string][]int{}
	for _, who := range []string{"m", "n"} {
		ports[who] = []int{freePort(t), freePort(t), freePort(t)}
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		p := ports[who]
		return fmt.Sprintf(`lingering_time 2s; lingering_timeout 1s;
			server { listen 127.0.0.1:%d; reset_timedout_connection on; return 200 "on\n"; }
			server { listen 127.0.0.1:%d; return 200 "off\n"; }
			server { listen 127.0.0.1:%d; lingering_timeout 5s; reset_timedout_connection on; return 200 "long\n"; }
			server { listen 127.0.0.1:%d; lingering_timeout 5s; return 200 "long off\n"; }`,
			port, p[0], p[1], p[2])
	})
	cases := []struct {
		name  string
		bytes int // trickled after the first, every 300ms; -1: on and on
		m, n  int
		want  string
	}{
		{"trickling, reset on", -1, mport, nport, "reset"},
		{"trickling, reset off", -1, ports["m"][0], ports["n"][0], "reset"},
		{"stopped, timer shortened, reset on", 3, ports["m"][1], ports["n"][1], "reset"},
		{"stopped, timer shortened, reset off", 3, ports["m"][2], ports["n"][2], "close"},
	}
	got := atOnce(2*len(cases), func(i int) string {
		c := cases[i/2]
		conn, err := dialEnd(t, []int{c.m, c.n}[i%2])
		if err != nil {
			return err.Error()
		}
		go trickle(conn, 300*time.Millisecond, c.bytes)
		return connEnd(conn, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\na")
	})
	compareEnds(t, got, func(i int) (string, string) { return cases[i].name, cases[i].want })
}

// compareEnds checks the ends atOnce got, mosaic's (got[2i]) and
// NGINX's (got[2i+1]) for each case i, which of(i) names along with the
// end NGINX is to have: a check of the test itself, then mosaic against
// NGINX.
func compareEnds(t *testing.T, got []string, of func(i int) (name, want string)) {
	t.Helper()
	for i := range len(got) / 2 {
		name, want := of(i)
		m, n := got[2*i], got[2*i+1]
		if !strings.HasPrefix(n, want) {
			t.Errorf("the check itself: %s: nginx %s, want %s", name, n, want)
		}
		if m != n {
			t.Errorf("%s: mosaic %s, nginx %s", name, m, n)
		}
	}
}

// trickle writes a byte to c every period, n times (n < 0: until a write
// fails, as when connEnd closes c once the server has ended the
// connection).
func trickle(c net.Conn, period time.Duration, n int) {
	for ; n != 0; n-- {
		time.Sleep(period)
		if _, err := c.Write([]byte("b")); err != nil {
			return
		}
	}
}

// TestResetTimedoutRefusedAsNGINX: a request refused at parse (here a
// second Host, 400) whose answer, an error page too large for the
// socket's buffers, runs past send_timeout while the client reads
// nothing: NGINX frees it as timed out and resets under the
// reset_timedout_connection of the location that answered (the error
// page's, inheriting the server's), not of the location the request
// before it on the connection went to. mosaic closed with a FIN after
// every refusal whose answer timed out.
func TestResetTimedoutRefusedAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 32<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	off := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`send_timeout 1s; error_page 400 /big;
			server { listen 127.0.0.1:%d; reset_timedout_connection on;
				location /big { root %[3]s; } location /f { reset_timedout_connection off; return 200 "f\n"; } }
			server { listen 127.0.0.1:%[2]d;
				location /big { root %[3]s; } location /r { reset_timedout_connection on; return 200 "r\n"; } }`,
			port, off[who], dir)
	})
	refused := "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"
	cases := []struct {
		serverOn bool
		ask      string
		want     string
	}{
		{true, refused, "reset"},
		{true, "GET /f HTTP/1.1\r\nHost: a\r\n\r\n" + refused, "reset"},
		{false, refused, "close"},
		{false, "GET /r HTTP/1.1\r\nHost: a\r\n\r\n" + refused, "close"},
	}
	got := atOnce(2*len(cases), func(i int) string {
		c, ports := cases[i/2], []int{off["m"], off["n"]}
		if c.serverOn {
			ports = []int{mport, nport}
		}
		conn, err := dialEnd(t, ports[i%2])
		if err != nil {
			return err.Error()
		}
		io.WriteString(conn, c.ask)
		// Nothing is read until the answer has timed out.
		time.Sleep(3 * time.Second)
		return connEnd(conn, "")
	})
	compareEnds(t, got, func(i int) (string, string) {
		return fmt.Sprintf("%q (server on %v)", cases[i].ask, cases[i].serverOn), cases[i].want
	})
}
