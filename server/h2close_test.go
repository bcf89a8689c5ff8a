//go:build linux

package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testpki"
)

// fullH2 serves HTTP/2 over TLS, or with prior knowledge if not
// overTLS, on a Unix-domain socket with keepalive_timeout idle,
// send_timeout 30s and the server's content conf; opens a connection
// that sends the preface, and a request if path is not empty (a GET of
// path on stream 1), and then reads nothing; and fills the server's end
// of it once the server reports it idle (or, with the request, busy), as
// a client that stopped reading leaves a socket whose last response
// ended at its buffer's end. (A Unix-domain socket whose buffer is full
// takes nothing more; on the loopback TCP's late acknowledgements often
// leave room.) It returns the runtime and the client's socket.
func fullH2(t *testing.T, overTLS bool, idle, conf, path string) (*Runtime, *net.UnixConn) {
	t.Helper()
	dir := t.TempDir()
	cert, key := testpki.WriteKeyPair(t, dir, "tls", testpki.SelfSigned(t, "a.example"))
	sock := filepath.Join(dir, "s.sock")
	rt := NewRuntime()
	if err := rt.Apply(mustLoadNoCleanup(t, fmt.Sprintf(`http { keepalive_timeout %s; send_timeout 30s;
		server { listen unix:%s %s http2; ssl_certificate %s; ssl_certificate_key %s; %s } }`,
		idle, sock, map[bool]string{true: "ssl"}[overTLS], cert, key, conf))); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rt.Shutdown(ctx)
	})
	var h2 *h2Server
	for _, l := range rt.listeners {
		h2 = l.h2
	}
	raw, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = raw.Close() })
	var c net.Conn = raw
	if overTLS {
		c = tls.Client(raw, &tls.Config{InsecureSkipVerify: true, ServerName: "a.example", NextProtos: []string{"h2"}})
	}
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	var srv net.Conn
	for start := time.Now(); srv == nil && time.Since(start) < 5*time.Second; time.Sleep(5 * time.Millisecond) {
		h2.idle.Range(func(k, _ any) bool {
			srv = k.(net.Conn)
			return false
		})
	}
	if srv == nil {
		t.Fatal("no idle connection")
	}
	if path != "" {
		var hb bytes.Buffer
		enc := hpack.NewEncoder(&hb)
		for _, f := range [][2]string{{":method", "GET"}, {":scheme", "https"}, {":authority", "a.example"}, {":path", path}} {
			_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
			t.Fatal(err)
		}
		for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(5 * time.Millisecond) {
			if _, idle := h2.idle.Load(srv); !idle {
				break
			}
		}
	}
	// Under TLS and http1's wrapper of the socket, or the wrapper that
	// replays the preface.
	under := srv
	for {
		u, ok := under.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		under = u.NetConn()
	}
	if err := testclient.Fill(under); err != nil {
		t.Fatalf("filling: %v", err)
	}
	return rt, raw.(*net.UnixConn)
}

// hangUp waits up to limit for the server to close its end of c and
// says how long that took.
func hangUp(t *testing.T, c *net.UnixConn, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for !testclient.HungUp(t, c) && time.Since(start) < limit {
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

// An idle HTTP/2 connection whose client left its socket full closes at
// keepalive_timeout and Go's wait of 1 s after its GOAWAY: the GOAWAY and
// close_notify go only if the socket takes them at once. Before, the
// GOAWAY waited for room until send_timeout (30 s here); NGINX sends it
// once, closes quietly what its socket did not take and lingers for
// lingering_timeout (5 s) at most. So does one of HTTP/2 with prior
// knowledge on a plain socket: its GOAWAY too waited for room.
//
// The close comes about 2 s after the socket filled; the bound is 10 s,
// short of send_timeout (30 s), so that load delaying the close or the
// client's look is no failure (a bound of 2.5 s failed when either lost
// half a second).
func TestH2IdleCloseOfFullSocket(t *testing.T) {
	t.Parallel()
	for name, overTLS := range map[string]bool{"tls": true, "plain": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, c := fullH2(t, overTLS, "1s", "return 200 ok;", "")
			d := hangUp(t, c, 12*time.Second)
			t.Logf("closed %v after the socket filled", d.Round(10*time.Millisecond))
			if d > 10*time.Second {
				t.Errorf("the server closed its idle connection %v after its socket filled; want keepalive_timeout (1s)", d.Round(10*time.Millisecond))
			}
		})
	}
}

// A graceful shutdown ends an idle HTTP/2 connection whose client left
// its socket full without waiting for room, as NGINX closes its idle
// connections and as http1 does: its GOAWAY goes if the socket takes it,
// and Go's server closes the connection 1 s later. Before, the GOAWAY
// waited for room until send_timeout (30 s), and the shutdown until its
// limit (12 s here). Shutdown takes about 1 s; the bound is 10 s, short
// of the limit, so that load is no failure (1.5 s was).
func TestH2ShutdownOfFullIdleConnection(t *testing.T) {
	t.Parallel()
	rt, c := fullH2(t, true, "60s", "return 200 ok;", "")
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Second)
	defer cancel()
	start := time.Now()
	if err := rt.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	d := time.Since(start)
	t.Logf("Shutdown took %v", d.Round(10*time.Millisecond))
	if d > 10*time.Second {
		t.Errorf("Shutdown took %v; want the idle connection closed without waiting for room", d.Round(10*time.Millisecond))
	}
	if d := hangUp(t, c, time.Second); d >= time.Second {
		t.Error("the connection is still open after Shutdown")
	}
}

// A stop whose limit ends while a stream waits on a connection whose
// client left its socket full ends at its limit (worker_shutdown_timeout,
// 1 s here): the GOAWAY waits for room, and the close at the limit
// breaks that write off without an alert. Without that close it would
// wait for room until send_timeout (30 s), the stream until its context
// ended: the bound of 10 s tells those apart from a loaded machine's
// pauses, which an earlier bound of 1.5 s did not.
func TestH2ShutdownLimitWithFullSocket(t *testing.T) {
	rt, c := fullH2(t, true, "60s", "location /hang { subtest_post hang; }", "/hang")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	took := make(chan time.Duration, 1)
	go func() {
		start := time.Now()
		_ = rt.Shutdown(ctx)
		took <- time.Since(start)
	}()
	select {
	case d := <-took:
		t.Logf("Shutdown took %v", d.Round(10*time.Millisecond))
		if d > 10*time.Second {
			t.Errorf("Shutdown took %v; want its limit, 1s", d.Round(10*time.Millisecond))
		}
	case <-time.After(12 * time.Second):
		t.Fatal("Shutdown still runs 12s after it began; want its limit, 1s")
	}
	if d := hangUp(t, c, 10*time.Second); d >= 10*time.Second {
		t.Error("the connection is still open after Shutdown")
	}
	select {
	case <-postHung: // subtest_post's report, which no other test is to see
	case <-time.After(10 * time.Second):
		t.Error("the request did not end")
	}
}
