package proxy_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

func TestBadGatewayOnRefusedConnection(t *testing.T) {
	addr := servertest.RefusedAddr(t)
	logs := &logBuffer{}
	f := newFront(t, proxyTo(t, "http://"+addr, proxy.Options{Logger: logs.logger()}))
	status, body, hdr := get(t, f.URL+"/x?y=1")
	if status != 502 || !strings.Contains(body, "502 Bad Gateway") || hdr.Get("Content-Type") != "text/html" {
		t.Errorf("got %d %q %v", status, body, hdr)
	}
	for name, want := range map[string]string{
		"upstream_addr": addr, "upstream_status": "502", "upstream_connect_time": "-", "upstream_header_time": "-",
	} {
		if got := f.lastVar(name); got != want {
			t.Errorf("$%s = %q, want %q", name, got, want)
		}
	}
	for _, want := range []string{
		"level=ERROR", "connect() failed while connecting to upstream",
		`upstream="http://` + addr + `/x?y=1"`, `request="GET /x?y=1 HTTP/1.1"`, "client=127.0.0.1", "connection refused",
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

func TestGatewayTimeoutReadingHeader(t *testing.T) {
	o := newNamedOrigin(t, "silent", modeSilent)
	logs := &logBuffer{}
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{ReadTimeout: 200 * time.Millisecond, Logger: logs.logger()}))
	start := time.Now()
	status, _, _ := get(t, f.URL+"/x")
	elapsed := time.Since(start)
	if status != 504 {
		t.Errorf("status %d, want 504", status)
	}
	if elapsed < 190*time.Millisecond || elapsed > 2*time.Second {
		t.Errorf("answered after %v, want about the 200ms read timeout", elapsed)
	}
	want := `msg="upstream timed out while reading response header from upstream"`
	if !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), "upstream=http://"+o.Addr()+"/x") {
		t.Errorf("log lacks %s:\n%s", want, logs)
	}
	if got := f.lastVar("upstream_status"); got != "504" {
		t.Errorf("$upstream_status %q", got)
	}
}

// slowBodyOrigin sends the header, then chunks spaced by gap.
func slowBodyOrigin(t *testing.T, chunks int, gap time.Duration) *testorigin.Raw {
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", chunks)
		for i := 0; i < chunks; i++ {
			time.Sleep(gap)
			if _, err := c.Write([]byte{'a' + byte(i)}); err != nil {
				return
			}
		}
	})
}

func TestReadTimeoutIsBetweenReads(t *testing.T) {
	// Twelve chunks 100ms apart take at least 1.2s, over the 1s limit,
	// but no single wait comes near it: a loaded machine (a -race build
	// among other tests) lengthens a wait by a few hundred ms at worst.
	o := slowBodyOrigin(t, 12, 100*time.Millisecond)
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{ReadTimeout: time.Second}))
	if status, body, _ := get(t, f.URL+"/"); status != 200 || body != "abcdefghijkl" {
		t.Errorf("got %d %q", status, body)
	}
}

// fetchBroken reads a response that should break off: the error comes
// from the header or the body, depending on what had gone out.
func fetchBroken(t *testing.T, url string) (string, error) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

func TestReadTimeoutInBody(t *testing.T) {
	o := slowBodyOrigin(t, 3, 300*time.Millisecond)
	logs := &logBuffer{}
	opts := proxy.Options{ReadTimeout: 150 * time.Millisecond, Logger: logs.logger()}
	// Buffered or not, the header was read: as NGINX, the client gets it
	// (the body's first byte is later than the timeout), then a broken
	// connection, not a 504.
	for _, off := range []bool{false, true} {
		opts.BufferingOff = off
		f := newFront(t, proxyTo(t, "http://"+o.Addr(), opts))
		if body, err := fetchBroken(t, f.URL+"/"); err == nil {
			t.Errorf("buffering off %v: response %q read without error", off, body)
		}
	}
	if want := "upstream timed out while reading upstream"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs)
	}
}

func TestPrematureCloseInBody(t *testing.T) {
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		http.ReadRequest(br)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
	})
	logs := &logBuffer{}
	// Buffered or not, the part received reaches the client before the
	// break, as NGINX sends it: the header was read, so no 502 either,
	// and OnFailure (proxy_cache_use_stale) is not told.
	for _, off := range []bool{false, true} {
		var told atomic.Uint32
		f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{BufferingOff: off, Logger: logs.logger(),
			OnFailure: func(_ http.ResponseWriter, _ *http.Request, f proxy.Failure) { told.Store(uint32(f)) },
		}))
		if body, err := fetchBroken(t, f.URL+"/"); err == nil || body != "hello" {
			t.Errorf("buffering off %v: body %q, err %v: want the part sent, then an error", off, body, err)
		}
		if f := told.Load(); f != 0 {
			t.Errorf("buffering off %v: OnFailure told %v", off, proxy.Failure(f))
		}
	}
	if want := "upstream prematurely closed connection while reading upstream"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs)
	}
	if want := "bytes=5"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs)
	}
}

// endless is an upload body that never ends on its own.
type endless struct{ ctx context.Context }

func (e endless) Read(p []byte) (int, error) {
	if err := e.ctx.Err(); err != nil {
		return 0, err
	}
	clear(p)
	return len(p), nil
}

func TestSendTimeout(t *testing.T) {
	// The origin reads the head and never the body, so the upload stalls
	// once the socket buffers are full.
	stop := make(chan struct{})
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		http.ReadRequest(br)
		<-stop
	})
	t.Cleanup(func() { close(stop) }) // runs before the origin's cleanup
	logs := &logBuffer{}
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{HTTPVersion: "1.1", SendTimeout: 200 * time.Millisecond, Logger: logs.logger()}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, f.URL+"/upload", endless{ctx})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 504 {
		t.Errorf("status %d, want 504", resp.StatusCode)
	}
	if want := "upstream timed out while sending request to upstream"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs)
	}
}

func TestTooBigHeader(t *testing.T) {
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		http.ReadRequest(br)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Big: "+strings.Repeat("x", 2*proxy.MaxHeaderBytes)+"\r\n\r\n")
	})
	logs := &logBuffer{}
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{Logger: logs.logger()}))
	if status, _, _ := get(t, f.URL+"/"); status != 502 {
		t.Errorf("status %d", status)
	}
	if want := "upstream sent too big header while reading response header from upstream"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs)
	}
}

// TestMalformedHeadIsBadGateway: heads that net/http's reader lets
// through and NGINX refuses are 502 with "upstream sent invalid header":
// a field name with a space before its colon (which the framing would
// otherwise not see as Content-Length), a folded line, and a status below
// 100 (on which WriteHeader panics; NGINX relays it as it came).
func TestMalformedHeadIsBadGateway(t *testing.T) {
	heads := map[string]string{
		"/space": "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok",
		"/fold":  "HTTP/1.1 200 OK\r\nX-F: a\r\n b\r\nContent-Length: 2\r\n\r\nok",
		"/tab":   "HTTP/1.1 200 OK\r\nX-F: a\r\n\tb\r\nContent-Length: 2\r\n\r\nok",
		"/099":   "HTTP/1.1 099 X\r\nContent-Length: 2\r\n\r\nok",
		"/000":   "HTTP/1.1 000 X\r\nContent-Length: 2\r\n\r\nok",
	}
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if req, err := http.ReadRequest(br); err == nil {
			io.WriteString(c, heads[req.URL.Path])
		}
	})
	for path := range heads {
		logs := &logBuffer{}
		f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{Logger: logs.logger()}))
		if status, body, _ := get(t, f.URL+path); status != 502 {
			t.Errorf("%s: %d %q, want 502", path, status, body)
		}
		if want := "upstream sent invalid header while reading response header from upstream"; !strings.Contains(logs.String(), want) {
			t.Errorf("%s: log lacks %q:\n%s", path, want, logs)
		}
	}
}

func TestClientGoneClosesUpstream(t *testing.T) {
	closed := make(chan struct{})
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		http.ReadRequest(br)
		io.Copy(io.Discard, br) // returns when the proxy closes the connection
		close(closed)
	})
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{}))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.URL+"/", nil)
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Error("upstream connection still open after the client left")
	}
}

func TestErrorResponseHook(t *testing.T) {
	var got int
	f := newFront(t, proxyTo(t, "http://"+servertest.RefusedAddr(t), proxy.Options{ErrorResponse: func(w http.ResponseWriter, r *http.Request, status int) {
		got = status
		w.WriteHeader(503)
		io.WriteString(w, "custom")
	}}))
	if status, body, _ := get(t, f.URL+"/"); status != 503 || body != "custom" || got != 502 {
		t.Errorf("got %d %q, hook saw %d", status, body, got)
	}
}

// OnFailure hears of the upstream's failures, with the kind that decides
// the status, just before the error response; not of the client's.
func TestOnFailure(t *testing.T) {
	type report struct {
		f     proxy.Failure
		wrote bool // ErrorResponse had already written when OnFailure ran
	}
	for _, c := range []struct {
		what   string
		target string
		opts   proxy.Options
		status int
		want   []proxy.Failure
	}{
		{"refused", servertest.RefusedAddr(t), proxy.Options{}, 502, []proxy.Failure{proxy.FailError}},
		{"timeout", newNamedOrigin(t, "silent", modeSilent).Addr(), proxy.Options{ReadTimeout: 100 * time.Millisecond}, 504, []proxy.Failure{proxy.FailTimeout}},
		{"garbage", newNamedOrigin(t, "garbage", modeGarbage).Addr(), proxy.Options{}, 502, []proxy.Failure{proxy.FailInvalidHeader}},
		{"answered", newNamedOrigin(t, "ok", modeOK).Addr(), proxy.Options{}, 200, nil},
	} {
		var got []report
		wrote := false
		c.opts.OnFailure = func(_ http.ResponseWriter, _ *http.Request, f proxy.Failure) {
			got = append(got, report{f, wrote})
		}
		c.opts.ErrorResponse = func(w http.ResponseWriter, _ *http.Request, status int) {
			wrote = true
			w.WriteHeader(status)
		}
		f := newFront(t, proxyTo(t, "http://"+c.target, c.opts))
		status, _, _ := get(t, f.URL+"/")
		if status != c.status || len(got) != len(c.want) {
			t.Errorf("%s: %d with reports %v, want %d with %v", c.what, status, got, c.status, c.want)
			continue
		}
		for i, r := range got {
			if r.f != c.want[i] || r.wrote {
				t.Errorf("%s: report %v (after the error response: %t), want %v before it", c.what, r.f, r.wrote, c.want[i])
			}
		}
	}

	// A client whose body breaks off is no failure of the upstream's.
	reported := false
	h := proxyTo(t, "http://"+newNamedOrigin(t, "ok", modeOK).Addr(), proxy.Options{
		OnFailure: func(http.ResponseWriter, *http.Request, proxy.Failure) { reported = true },
	})
	if status := postOverLimit(t, h); status != 413 || reported {
		t.Errorf("body over the limit: %d, reported %t", status, reported)
	}
}

// postOverLimit posts 100 bytes to h behind a server that takes bodies of
// 10 bytes at most, and returns the status.
func postOverLimit(t *testing.T, h http.Handler) int {
	t.Helper()
	f := newFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 10)
		h.ServeHTTP(w, r)
	}))
	resp, err := http.Post(f.URL+"/", "text/plain", strings.NewReader(strings.Repeat("x", 100)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestUpstreamVariables(t *testing.T) {
	o := newNamedOrigin(t, "a", modeOK)
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{}))
	get(t, f.URL+"/")
	if got := f.lastVar("upstream_addr"); got != o.Addr() {
		t.Errorf("$upstream_addr %q", got)
	}
	if got := f.lastVar("upstream_status"); got != "200" {
		t.Errorf("$upstream_status %q", got)
	}
	for _, name := range []string{"upstream_response_time", "upstream_connect_time", "upstream_header_time"} {
		v := f.lastVar(name)
		if len(v) != 5 || v[1] != '.' {
			t.Errorf("$%s = %q, want seconds with milliseconds", name, v)
		}
	}
	if got := f.lastVar("proxy_port"); got != o.Addr()[strings.LastIndexByte(o.Addr(), ':')+1:] {
		t.Errorf("$proxy_port %q", got)
	}
}

func TestClientBodyFailures(t *testing.T) {
	a, b := newNamedOrigin(t, "a", modeOK), newNamedOrigin(t, "b", modeOK)
	up := mustUpstream(t, "backend", 0, server(a.Addr()), server(b.Addr()))
	logs := &logBuffer{}
	h := proxyTo(t, "http://backend", proxy.Options{Upstream: up, Logger: logs.logger()})

	t.Run("body cut short", func(t *testing.T) {
		f := newFront(t, h)
		c, err := net.Dial("tcp", hostOf(f.Server))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly ten..")
		c.(*net.TCPConn).CloseWrite()
		// NGINX terminates the request: nothing is sent.
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
			t.Errorf("status %d, want no answer", resp.StatusCode)
		}
		if want := "level=INFO msg=\"client prematurely closed connection while sending request to upstream\""; !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	})
	t.Run("body over the server's limit", func(t *testing.T) {
		if status := postOverLimit(t, h); status != 413 {
			t.Errorf("status %d, want 413", status)
		}
	})
	for addr, n := range proxy.PrimaryFails(up) {
		if n != 0 {
			t.Errorf("client failure counted against %s", addr)
		}
	}
}

// cutContext ends as a server's request context does when the server cut
// the request itself (mosaic at its shutdown limit).
type cutContext struct{ context.Context }

func (c cutContext) Err() error {
	if c.Context.Err() != nil {
		return errCut{}
	}
	return nil
}

type errCut struct{}

func (errCut) Error() string { return "request cut by the shutdown deadline" }
func (errCut) Unwrap() error { return context.Canceled }

// A request its server cut is logged as what happened, not as a client
// that left.
func TestServerCutIsNotClientClose(t *testing.T) {
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		http.ReadRequest(br)
		io.Copy(io.Discard, br) // no answer: the request waits for its header
	})
	logs := &logBuffer{}
	h := proxyTo(t, "http://"+o.Addr(), proxy.Options{Logger: logs.logger()})
	for _, cut := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		r := httptest.NewRequest("GET", "/", nil)
		if cut {
			r = r.WithContext(cutContext{ctx})
		} else {
			r = r.WithContext(ctx)
		}
		time.AfterFunc(50*time.Millisecond, cancel)
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	for _, want := range []string{
		`msg="client closed connection while reading response header from upstream"`,
		`msg="request cut by the shutdown deadline while reading response header from upstream"`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}
