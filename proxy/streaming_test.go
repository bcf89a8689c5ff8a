package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/proxy"
)

// TestStreamsResponse: the client gets the first part of the body while
// the origin is still waiting to send the rest; a buffering proxy would
// deadlock here, since the origin goes on only once the client has it.
func TestStreamsResponse(t *testing.T) {
	for _, tt := range []struct {
		name  string
		off   bool
		chunk int
	}{
		{"buffering off, small chunk", true, 16},
		{"buffering on, large chunk", false, 64 << 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gotFirst := make(chan struct{})
			var gaveUp atomic.Bool
			origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write(bytes.Repeat([]byte("a"), tt.chunk))
				w.(http.Flusher).Flush()
				select {
				case <-gotFirst:
				case <-time.After(20 * time.Second):
					gaveUp.Store(true)
					return
				}
				io.WriteString(w, "end")
			}))
			defer origin.Close()
			f := newFront(t, proxyTo(t, origin.URL, proxy.Options{BufferingOff: tt.off}))
			resp, err := http.Get(f.URL + "/")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			first := make([]byte, tt.chunk)
			if _, err := io.ReadFull(resp.Body, first); err != nil {
				t.Fatal(err)
			}
			// Not a clock: the deadlock, had the proxy held the chunk,
			// ends only with the origin giving up on the client.
			if gaveUp.Load() {
				t.Fatal("the first chunk came only once the origin gave up waiting for it")
			}
			close(gotFirst)
			rest, err := io.ReadAll(resp.Body)
			if err != nil || string(rest) != "end" {
				t.Errorf("rest %q, %v", rest, err)
			}
		})
	}
}

// TestStreamsUpload: the origin receives the start of an upload before the
// client has sent the rest, for bodies of known and unknown length.
func TestStreamsUpload(t *testing.T) {
	const first, total = 1 << 20, 32 << 20
	for _, tt := range []struct {
		name    string
		version string
		known   bool
	}{
		{"Content-Length", "1.0", true},
		{"chunked", "1.1", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			started := make(chan struct{})
			origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				buf := make([]byte, 64<<10)
				var n int64
				signalled := false
				for {
					m, err := r.Body.Read(buf)
					n += int64(m)
					if n >= first && !signalled {
						close(started)
						signalled = true
					}
					if err != nil {
						break
					}
				}
				fmt.Fprintf(w, "%d", n)
			}))
			defer origin.Close()
			f := newFront(t, proxyTo(t, origin.URL, proxy.Options{HTTPVersion: tt.version}))

			pr, pw := io.Pipe()
			go func() {
				chunk := make([]byte, 64<<10)
				sent := 0
				for sent < first {
					n, _ := pw.Write(chunk)
					sent += n
				}
				select {
				case <-started:
				case <-time.After(5 * time.Second):
					pw.CloseWithError(fmt.Errorf("origin saw nothing of the first %d bytes", first))
					return
				}
				for sent < total {
					n, _ := pw.Write(chunk)
					sent += n
				}
				pw.Close()
			}()
			req, _ := http.NewRequest(http.MethodPost, f.URL+"/upload", pr)
			if tt.known {
				req.ContentLength = total
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || string(body) != strconv.Itoa(total) {
				t.Errorf("got %d %q, want %d bytes received", resp.StatusCode, body, total)
			}
		})
	}
}

// sseOrigin sends one event, waits until release is closed (2 s at most,
// then released stays false), and sends another.
func sseOrigin(t *testing.T, accelBuffering string, release <-chan struct{}, released *atomic.Bool) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if accelBuffering != "" {
			w.Header().Set("X-Accel-Buffering", accelBuffering)
		}
		io.WriteString(w, "data: 1\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
			released.Store(true)
		case <-time.After(2 * time.Second):
		}
		io.WriteString(w, "data: 2\n\n")
	}))
	t.Cleanup(s.Close)
	return s
}

// firstEvent reads the first event, closes release, and returns the
// whole stream.
func firstEvent(t *testing.T, url string, release chan<- struct{}) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	close(release)
	rest, _ := io.ReadAll(br)
	return line + string(rest)
}

// TestServerSentEvents: an unbuffered response passes the origin's first
// event on at once, a buffered one only with the rest. The origin pauses
// after its first event until the client has read it (2 s at most):
// passed on at once, the client ends the pause; buffered, it cannot.
// (Bounds of 250 ms and 350 ms against a 400 ms pause were bets on the
// machine's load.)
func TestServerSentEvents(t *testing.T) {
	tests := []struct {
		name      string
		off       bool
		accel     string
		immediate bool
	}{
		{"proxy_buffering off", true, "", true},
		{"proxy_buffering on", false, "", false},
		{"X-Accel-Buffering: no", false, "no", true},
		{"X-Accel-Buffering: yes", true, "yes", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			var released atomic.Bool
			origin := sseOrigin(t, tt.accel, release, &released)
			f := newFront(t, proxyTo(t, origin.URL, proxy.Options{BufferingOff: tt.off}))
			if stream := firstEvent(t, f.URL+"/events", release); stream != "data: 1\n\ndata: 2\n\n" {
				t.Errorf("stream %q", stream)
			}
			if got := released.Load(); got != tt.immediate {
				t.Errorf("the client ended the origin's pause: %v, want %v (the first event passed on at once)", got, tt.immediate)
			}
		})
	}
}

// TestFullDuplex: an origin that answers while it still reads the upload
// (an echo) works through the proxy piece by piece.
func TestFullDuplex(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		rc.EnableFullDuplex()
		w.WriteHeader(200)
		rc.Flush()
		buf := make([]byte, 1024)
		for {
			n, err := r.Body.Read(buf)
			if n > 0 {
				w.Write(bytes.ToUpper(buf[:n]))
				rc.Flush()
			}
			if err != nil {
				return
			}
		}
	}))
	defer origin.Close()
	f := newFront(t, proxyTo(t, origin.URL, proxy.Options{HTTPVersion: "1.1", BufferingOff: true}))

	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, f.URL+"/echo", pr)
	respc := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			close(respc)
			return
		}
		respc <- resp
	}()
	io.WriteString(pw, "ping\n")
	resp, ok := <-respc
	if !ok {
		return
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for _, word := range []string{"ping", "pong", "done"} {
		if word != "ping" {
			io.WriteString(pw, word+"\n")
		}
		line, err := br.ReadString('\n')
		if err != nil || line != strings.ToUpper(word)+"\n" {
			t.Fatalf("echo of %q: %q, %v", word, line, err)
		}
	}
	pw.Close()
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Errorf("after close: %q, %v", rest, err)
	}
}

// TestEarlyResponse: an origin that rejects an upload without reading it
// gets its answer to the client, and the upload is abandoned.
func TestEarlyResponse(t *testing.T) {
	stop := make(chan struct{})
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		http.ReadRequest(br)
		io.WriteString(c, "HTTP/1.1 413 Request Entity Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\ntoo big!")
		<-stop
	})
	t.Cleanup(func() { close(stop) })
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{}))
	const size = 64 << 20
	req, _ := http.NewRequest(http.MethodPut, f.URL+"/upload", io.LimitReader(endless{context.Background()}, size))
	req.ContentLength = size
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || string(body) != "too big!" {
		t.Errorf("got %d %q", resp.StatusCode, body)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("answer took %v", took)
	}
	// The variables are complete once the handler has returned.
	if got := f.waitVar("upstream_status", "413"); got != "413" {
		t.Errorf("$upstream_status %q", got)
	}
}

// TestStreamedUploadHeadGoesFirst: without request buffering, the head
// reaches the upstream before any of the body has come, so an upstream
// that answers from the head alone (a refusal, an authentication check)
// is heard while the client's body stalls.
func TestStreamedUploadHeadGoesFirst(t *testing.T) {
	origin := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if line == "\r\n" {
				break
			}
		}
		io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno")
	})
	f := newFront(t, proxyTo(t, "http://"+origin.Addr(), proxy.Options{HTTPVersion: "1.1"}))
	c, err := net.Dial("tcp", f.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("status %d", resp.StatusCode)
	}
}

// TestAheadUploadOutlastsResponse: an upstream that answers in full while
// the upload still goes on, with the answer read ahead of the client: the
// client gets all of the answer before the exchange waits for the upload
// to end (a client that sends the rest only after it has the answer must
// not be stuck behind a buffer the proxy never flushed).
func TestAheadUploadOutlastsResponse(t *testing.T) {
	const size = 1<<20 + 1000 // not a whole number of the writers' buffers
	body := bytes.Repeat([]byte("0123456789"), size/10+1)[:size]
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		rc.EnableFullDuplex()
		w.Header().Set("Content-Length", fmt.Sprint(size))
		w.Write(body)
		rc.Flush()
		io.Copy(io.Discard, r.Body)
	}))
	defer origin.Close()
	f := newFront(t, proxyTo(t, origin.URL, proxy.Options{HTTPVersion: "1.1", AheadMemory: 32 << 10, AheadFileMax: 1 << 20}))

	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, f.URL+"/up", pr)
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		got, err := io.ReadAll(io.LimitReader(resp.Body, size))
		if err == nil && !bytes.Equal(got, body) {
			err = fmt.Errorf("answer of %d bytes, not the %d sent", len(got), size)
		}
		done <- err
	}()
	io.WriteString(pw, "first part")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		pw.Close() // lets the exchange end
		t.Fatal("the answer did not arrive whole while the upload went on")
	}
	pw.Close()
}

// panicWriter is a filter in front of the proxy whose Write panics with
// http.ErrAbortHandler once the first piece has gone through: as ESI's
// replay does when the stored page differs from its plan after a run was
// sent, cutting the response.
type panicWriter struct {
	http.ResponseWriter
	writes int
}

func (w *panicWriter) Write(p []byte) (int, error) {
	if w.writes++; w.writes > 1 {
		panic(http.ErrAbortHandler)
	}
	return w.ResponseWriter.Write(p)
}

// TestAheadEndsWhenWriterPanics: a writer that panics while the body is
// read ahead unwinds the handler; the reading ahead is stopped with it,
// its temporary file removed and the upstream connection closed, before
// the exchange is recycled (its goroutine must not end an exchange that
// another request may already use).
func TestAheadEndsWhenWriterPanics(t *testing.T) {
	release := make(chan struct{})
	originErr := make(chan error, 1)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		w.Write(chunk)
		w.(http.Flusher).Flush()
		<-release
		var err error
		for range 64 {
			if _, err = w.Write(chunk); err != nil {
				break
			}
			w.(http.Flusher).Flush()
		}
		originErr <- err
	}))
	defer origin.Close()
	defer close(release)
	dir := t.TempDir()
	h := proxyTo(t, origin.URL, proxy.Options{HTTPVersion: "1.1", AheadMemory: 32 << 10, AheadFileMax: 1 << 30,
		AheadTempFile: func() (*os.File, error) { return os.CreateTemp(dir, "ahead-") }})
	returned := make(chan struct{})
	f := newFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			// Not for /again, whose writer panics as well: a second
			// close would panic past ErrAbortHandler, and net/http
			// would print the goroutine's stack.
			defer close(returned)
		}
		h.ServeHTTP(&panicWriter{ResponseWriter: w}, r)
	}))
	resp, err := http.Get(f.URL + "/big")
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	<-returned
	// The handler has unwound: nothing of the exchange may go on.
	release <- struct{}{}
	select {
	case err := <-originErr:
		if err == nil {
			t.Error("the upstream was read to its end after the handler had unwound")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the origin is still being read")
	}
	// A later request, which may take the recycled exchange.
	if resp, err := http.Get(f.URL + "/again"); err == nil {
		resp.Body.Close()
	}
	time.Sleep(100 * time.Millisecond)
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestMaxConnsFreedWhenWriterPanics: a request whose writer panics
// (http.ErrAbortHandler from a filter) still frees its place at the
// server: with max_conns=1 the next request is served, not refused as if
// the server were still busy.
func TestMaxConnsFreedWhenWriterPanics(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 256<<10))
	}))
	defer origin.Close()
	up, err := proxy.NewUpstream("backend", []proxy.Server{{Addr: origin.Listener.Addr().String(), MaxConns: 1}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := proxy.ParsePass("http://backend")
	for _, buffering := range []string{"on", "off"} {
		t.Run("buffering "+buffering, func(t *testing.T) {
			h, err := proxy.New(proxy.Options{Pass: pass, Upstream: up, HTTPVersion: "1.1",
				BufferingOff: buffering == "off", AheadMemory: 32 << 10})
			if err != nil {
				t.Fatal(err)
			}
			f := newFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/cut" {
					w = &panicWriter{ResponseWriter: w}
				}
				h.ServeHTTP(w, r)
			}))
			if resp, err := http.Get(f.URL + "/cut"); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			resp, err := http.Get(f.URL + "/next")
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("next request: %d, want 200 (the cut one still counts at max_conns)", resp.StatusCode)
			}
		})
	}
}

// TestServeViaWriterPanicsReleasesOwnGroup: a request sent with ServeVia
// whose writer panics ends its count at the server under the lock of the
// request's own group, not the handler's: run with -race, requests on the
// same group at the same time see no race on the server's count.
func TestServeViaWriterPanicsReleasesOwnGroup(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 64<<10))
	}))
	defer origin.Close()
	h := proxyTo(t, "http://name.test", proxy.Options{HTTPVersion: "1.1"})
	up := mustUpstream(t, "name.test", 0, server(hostOf(origin)))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { _ = recover() }()
			var w http.ResponseWriter = httptest.NewRecorder()
			if i%2 == 0 {
				w = &panicWriter{ResponseWriter: w}
			}
			h.ServeVia(w, httptest.NewRequest("GET", "/", nil), up, "")
		}()
	}
	wg.Wait()
	// Every request has ended its count: the group's server takes more.
	rec := httptest.NewRecorder()
	h.ServeVia(rec, httptest.NewRequest("GET", "/", nil), up, "")
	if rec.Code != http.StatusOK {
		t.Errorf("after the requests: %d", rec.Code)
	}
}
