package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// A TLS connection closed by a timeout closes its socket at once, as
// NGINX's does, with no close_notify alert after send_timeout or
// client_header_timeout or client_body_timeout (NGINX's quiet shutdown); before, Go's tls.Conn
// spent up to 5 s trying to send the alert to a client that had stopped
// reading. A close that ends a connection normally (Connection: close,
// keepalive_timeout, HTTP/2's GOAWAY after keepalive_timeout) still
// sends the alert, as NGINX's does. The clients
// speak TLS 1.2, whose record headers name an alert as one (21) where TLS
// 1.3 disguises it as application data.
func TestTLSTimeoutClosesAtOnceAsNGINX(t *testing.T) {
	nginxPath(t)
	if runtime.GOOS != "linux" {
		t.Skip("tells a closed peer by POLLHUP, as Linux sets it")
	}
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	root := filepath.Join(dir, "www")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	// Larger than the socket buffers of both ends can hold.
	writeFile(t, filepath.Join(root, "big"), strings.Repeat("0123456789abcdef", 2<<20))
	writeFile(t, filepath.Join(root, "small"), "small\n")
	const timeout = time.Second
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer origin.Close()
	// The TCP ports are startBoth's, to wait on; the clients use the
	// Unix-domain sockets (see closeOf).
	startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`send_timeout 1s; keepalive_timeout 1s; client_header_timeout 1s;
			client_body_timeout 1s;
			server { listen 127.0.0.1:%d ssl http2; listen unix:%s/%s.sock ssl http2;
				ssl_certificate %s; ssl_certificate_key %s; root %s;
				location /body { proxy_pass %s; }
				location /body0 { client_body_timeout 0; proxy_pass %[7]s; } } `,
			port, dir, who, cert, key, root, origin.URL)
	})
	servers := []struct {
		name, sock string
	}{{"mosaic", filepath.Join(dir, "m.sock")}, {"NGINX", filepath.Join(dir, "n.sock")}}

	cases := []struct {
		name  string
		proto string // ALPN's
		alert bool   // a close_notify alert is due
		// stalls says the client stops reading: the server's socket must
		// close within the timeout and a margin.
		stalls bool
		run    func(t *testing.T, c *tls.Conn)
	}{
		{"Connection: close", "http/1.1", true, false, func(t *testing.T, c *tls.Conn) {
			fmt.Fprint(c, "GET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		}},
		{"keepalive_timeout", "http/1.1", true, false, func(t *testing.T, c *tls.Conn) {
			fmt.Fprint(c, "GET /small HTTP/1.1\r\nHost: x\r\n\r\n")
		}},
		{"client_header_timeout", "http/1.1", false, false, func(t *testing.T, c *tls.Conn) {
			fmt.Fprint(c, "GET /small HTTP/1.1\r\nHost: x\r\n")
		}},
		{"client_body_timeout", "http/1.1", false, false, func(t *testing.T, c *tls.Conn) {
			fmt.Fprint(c, "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789")
		}},
		// A timeout of 0 times out at once, as NGINX's timer of 0 does.
		{"client_body_timeout 0", "http/1.1", false, false, func(t *testing.T, c *tls.Conn) {
			fmt.Fprint(c, "POST /body0 HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789")
		}},
		{"send_timeout", "http/1.1", false, true, func(t *testing.T, c *tls.Conn) {
			fmt.Fprint(c, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
		}},
		{"HTTP/2 send_timeout", "h2", false, true, stalledH2},
		// The GOAWAY at keepalive_timeout goes only if the socket takes
		// it at once, as does the alert after it: here both have room.
		{"HTTP/2 keepalive_timeout", "h2", true, false, idleH2},
		// A preface that never comes times out a read
		// (client_header_timeout): NGINX's HTTP/2 then sends its GOAWAY
		// and the alert; it sets no c->timedout for a shutdown as quiet
		// as HTTP/1's, nor does mosaic, whose HTTP/2 server is no
		// hijacker (a hijacker's close after a read timeout is quiet).
		{"HTTP/2 client_header_timeout", "h2", true, false, func(t *testing.T, c *tls.Conn) {}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got [2]string
			var wg sync.WaitGroup
			for i, srv := range servers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got[i] = closeOf(t, srv.sock, tc.proto, tc.stalls, timeout, tc.run)
				}()
			}
			wg.Wait()
			want := "closed in time, close_notify " + strconv.FormatBool(tc.alert)
			for i, srv := range servers {
				if got[i] != want {
					t.Errorf("%s: %s; want %s", srv.name, got[i], want)
				}
			}
		})
	}
}

// idleH2 opens an HTTP/2 connection and leaves it idle.
func idleH2(t *testing.T, c *tls.Conn) {
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Error(err)
		return
	}
	if err := http2.NewFramer(c, c).WriteSettings(); err != nil {
		t.Error(err)
	}
}

// stalledH2 asks for the big file over HTTP/2 with windows wide enough
// for the server to fill the socket.
func stalledH2(t *testing.T, c *tls.Conn) {
	fr := http2.NewFramer(c, c)
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Error(err)
		return
	}
	_ = fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1<<31 - 1})
	_ = fr.WriteWindowUpdate(0, 1<<31-1-65535)
	var hb strings.Builder
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "https"}, {":authority", "x"}, {":path", "/big"}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: []byte(hb.String()), EndStream: true, EndHeaders: true})
}

// closeOf runs a TLS 1.2 connection to the Unix-domain socket sock, of
// ALPN protocol proto, starting it with run. A client that stalls reads
// nothing until the server has closed its end, which must happen within
// timeout and a margin (Go's close_notify took 5 s more); any other
// reads as it comes. Then it reads to the end and says whether a
// close_notify alert came.
//
// A Unix-domain socket, as a TCP one on a real network, takes nothing
// more once its peer has stopped reading and its buffer is full; over
// TCP on the loopback, the acknowledgements that come after the server's
// last write often leave room for the alert, which then went at once.
func closeOf(t *testing.T, sock, proto string, stalls bool, timeout time.Duration, run func(*testing.T, *tls.Conn)) string {
	raw, err := net.Dial("unix", sock)
	if err != nil {
		t.Error(err)
		return err.Error()
	}
	defer raw.Close()
	rec := &recordTypes{Conn: raw}
	c := tls.Client(rec, &tls.Config{InsecureSkipVerify: true, ServerName: "x", NextProtos: []string{proto},
		MaxVersion: tls.VersionTLS12})
	_ = raw.SetDeadline(time.Now().Add(15 * time.Second))
	if err := c.Handshake(); err != nil {
		t.Error(err)
		return err.Error()
	}
	start := time.Now()
	run(t, c)
	verdict := "closed in time"
	if stalls {
		for !testclient.HungUp(t, raw.(*net.UnixConn)) && time.Since(start) < 4*timeout+5*time.Second {
			time.Sleep(20 * time.Millisecond)
		}
		if d := time.Since(start); d > timeout+2*time.Second {
			verdict = fmt.Sprintf("server's end open for %v", d.Round(10*time.Millisecond))
		}
	}
	// Through TLS while it decodes (a record cut short ends that), then
	// the socket's rest.
	_, _ = io.Copy(io.Discard, bufio.NewReader(c))
	_, _ = io.Copy(io.Discard, rec)
	return fmt.Sprintf("%s, close_notify %v", verdict, rec.alert)
}

// recordTypes reads a TLS connection's socket and notes whether a record
// of type alert (21) came: a server sends none in a handshake that
// succeeds, and on the connection after it close_notify alone.
type recordTypes struct {
	net.Conn
	hdr   []byte // the record header being read
	skip  int    // what is left of the current record's body
	alert bool
}

func (r *recordTypes) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	for b := p[:n]; len(b) > 0; {
		if r.skip > 0 {
			k := min(r.skip, len(b))
			r.skip -= k
			b = b[k:]
			continue
		}
		k := min(5-len(r.hdr), len(b))
		r.hdr = append(r.hdr, b[:k]...)
		b = b[k:]
		if len(r.hdr) == 5 {
			if r.hdr[0] == 21 {
				r.alert = true
			}
			r.skip = int(r.hdr[3])<<8 | int(r.hdr[4])
			r.hdr = r.hdr[:0]
		}
	}
	return n, err
}
