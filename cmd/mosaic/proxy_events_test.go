package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// eventOrigin answers each request with a first part, then waits for the
// test's word (next) before it sends the rest: /chunked frames the body
// in chunks, one event a chunk, /filled sends 40000 bytes of chunks
// a while before the event (past mosaic's first buffer, so that the
// reading ahead relays it), and /length has a Content-Length.
func eventOrigin(t *testing.T, next chan struct{}) string {
	t.Helper()
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		head, err := br.ReadString('\n')
		if err != nil {
			return
		}
		first, rest := "data: one\n\n", "data: two\n\n"
		switch {
		case strings.Contains(head, "/length"):
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(first)+len(rest), first)
		case strings.Contains(head, "/filled"):
			fill := strings.Repeat("x", 10000)
			fmt.Fprint(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
			for range 4 {
				fmt.Fprintf(c, "%x\r\n%s\r\n", len(fill), fill)
			}
			// The event comes on its own, once the fill has gone.
			time.Sleep(300 * time.Millisecond)
			fmt.Fprintf(c, "%x\r\n%s\r\n", len(first), first)
			rest = fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(rest), rest)
		default:
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(first), first)
			rest = fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(rest), rest)
		}
		select {
		case <-next:
		case <-time.After(10 * time.Second):
		}
		io.WriteString(c, rest)
	}).Addr()
}

// fastcgiEvents is eventOrigin's /chunked for FastCGI: the head and the
// first event in one STDOUT record, the rest in another once the test
// says.
func fastcgiEvents(t *testing.T, next chan struct{}) string {
	return fastcgiSteps(t, func(_, _ []string, stdout func(string)) {
		stdout("Content-Type: text/event-stream\r\n\r\ndata: one\n\n")
		select {
		case <-next:
		case <-time.After(10 * time.Second):
		}
		stdout("data: two\n\n")
	})
}

// eventGet asks port for path and reports whether the first event reached
// the client before the origin sent more, and the whole body, read after.
func eventGet(t *testing.T, port int, path string, next chan struct{}) (early bool, body string) {
	t.Helper()
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(15 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", path)
	var mu sync.Mutex
	var got bytes.Buffer
	done := make(chan error, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			done <- err
			return
		}
		p := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(p)
			mu.Lock()
			got.Write(p[:n])
			mu.Unlock()
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				done <- err
				return
			}
		}
	}()
	// The event, sent whole, is waited for a while; a relay that holds
	// it never sends it before the origin's next word.
	for wait := time.Now().Add(3 * time.Second); time.Now().Before(wait) && !early; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		early = strings.Contains(got.String(), "data: one")
		mu.Unlock()
	}
	next <- struct{}{}
	if err := <-done; err != nil {
		t.Fatalf("GET %s from port %d: %v", path, port, err)
	}
	return early, got.String()
}

// compareEvents asks both servers for each path and compares whether the
// first event came early, and the bodies; early says what NGINX does.
func compareEvents(t *testing.T, mport, nport int, next chan struct{}, early map[string]bool) {
	t.Helper()
	for path, want := range early {
		nEarly, nBody := eventGet(t, nport, path, next)
		mEarly, mBody := eventGet(t, mport, path, next)
		if nEarly != want {
			t.Errorf("%s: NGINX passed the first event early: %v, expected %v", path, nEarly, want)
		}
		if mEarly != nEarly || mBody != nBody {
			t.Errorf("%s: mosaic early %v, body %d bytes; NGINX early %v, body %d bytes", path, mEarly, len(mBody), nEarly, len(nBody))
		}
	}
}

// TestProxyPassesChunkedEventsAsNGINX: with proxy_buffering on, NGINX's
// event pipe passes a chunked body's whole chunks on as soon as the
// upstream has nothing more to read, so each event of a server-sent-events
// stream reaches the client as it comes, whether in the first buffer or
// after it; a body with a Content-Length is held until its buffer fills
// or it ends.
func TestProxyPassesChunkedEventsAsNGINX(t *testing.T) {
	nginxPath(t)
	next := make(chan struct{})
	origin := eventOrigin(t, next)
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d;
			location / { proxy_pass http://%s; proxy_http_version 1.1; }
		}`, port, origin)
	})
	compareEvents(t, mport, nport, next, map[string]bool{"/chunked": true, "/filled": true, "/length": false})
}

// TestFastCGIPassesRecordsAsNGINX: with fastcgi_keep_conn on, NGINX's
// FastCGI filter passes a STDOUT record on once its content is in, and
// its event pipe writes it to the client while the application is
// silent; without keep_conn it holds the body until its buffer fills or
// the answer ends. mosaic does the same (fastcgi's Waits).
func TestFastCGIPassesRecordsAsNGINX(t *testing.T) {
	nginxPath(t)
	next := make(chan struct{})
	app := fastcgiEvents(t, next)
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d;
			location /keep { fastcgi_pass %s; fastcgi_keep_conn on; }
			location /close { fastcgi_pass %[2]s; }
		}`, port, app)
	})
	compareEvents(t, mport, nport, next, map[string]bool{"/keep": true, "/close": false})
}
