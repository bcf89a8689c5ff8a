package grpcproxy_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/grpcproxy"
	"github.com/mosaic-edge/mosaic/internal/testgrpc"
	"github.com/mosaic-edge/mosaic/vars"
)

// backend starts a testgrpc backend over h2c and returns its address.
func backend(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := testgrpc.Serve(l, nil)
	t.Cleanup(func() { s.Close() })
	return l.Addr().String()
}

// front serves h over h2c and returns its base URL.
func front(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewUnstartedServer(h)
	s.Config.Protocols = new(http.Protocols)
	s.Config.Protocols.SetUnencryptedHTTP2(true)
	s.Start()
	t.Cleanup(s.Close)
	return s.URL
}

// handler passes to addrs, trying them in turn.
func handler(t *testing.T, o grpcproxy.Options, addrs ...string) http.Handler {
	t.Helper()
	o.Select = func(*http.Request) grpcproxy.Selection { return &inTurn{addrs: addrs} }
	h, err := grpcproxy.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// inTurn tries its servers in order, each once.
type inTurn struct {
	addrs []string
	next  int
}

func (s *inTurn) Next() (string, bool) {
	if s.next >= len(s.addrs) {
		return "", false
	}
	s.next++
	return s.addrs[s.next-1], true
}

func (s *inTurn) Done(bool) bool { return false }
func (s *inTurn) More() bool     { return s.next < len(s.addrs) }

func TestCalls(t *testing.T) {
	addr := backend(t)
	url := front(t, handler(t, grpcproxy.Options{
		Authority:  "backend",
		SetHeaders: []grpcproxy.Header{{Name: "X-Test", Value: func(*http.Request) string { return "set" }}},
	}, addr))
	c := testgrpc.Client(nil)
	ctx := context.Background()

	res, err := testgrpc.Call(ctx, c, url+"/test.Echo/Unary", nil, "hi")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 200 || res.GRPCStatus() != "0" || !slices.Equal(res.Messages, []string{"echo:hi"}) {
		t.Errorf("unary: %v", res)
	}
	h := res.Header
	if h.Get("X-Authority") != "backend" || h.Get("X-Te") != "trailers" || h.Get("X-Seen") != "set" {
		t.Errorf("unary: the backend saw authority %q, te %q, x-test %q", h.Get("X-Authority"), h.Get("X-Te"), h.Get("X-Seen"))
	}
	if h.Get("Server") == "testgrpc" {
		t.Error("the backend's Server field was relayed")
	}

	res, err = testgrpc.Call(ctx, c, url+"/test.Echo/Stream", nil, "3")
	if err != nil {
		t.Fatal(err)
	}
	if res.GRPCStatus() != "0" || !slices.Equal(res.Messages, []string{"0", "1", "2"}) {
		t.Errorf("stream: %v", res)
	}

	res, err = testgrpc.Bidi(ctx, c, url+"/test.Echo/Bidi", "a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	if res.GRPCStatus() != "0" || !slices.Equal(res.Messages, []string{"a", "b", "c"}) {
		t.Errorf("bidi: %v", res)
	}

	res, err = testgrpc.Call(ctx, c, url+"/test.Echo/Fail", nil, "x")
	if err != nil {
		t.Fatal(err)
	}
	if res.GRPCStatus() != "5" || res.GRPCMessage() != "not found here" {
		t.Errorf("fail: %v", res)
	}
}

func TestErrors(t *testing.T) {
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()
	c := testgrpc.Client(nil)
	ctx := context.Background()

	res, err := testgrpc.Call(ctx, c, front(t, handler(t, grpcproxy.Options{}, down))+"/test.Echo/Unary", nil, "x")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != http.StatusBadGateway {
		t.Errorf("backend down: %v", res)
	}

	// The next server of the group takes a request the first refused.
	res, err = testgrpc.Call(ctx, c, front(t, handler(t, grpcproxy.Options{}, down, backend(t)))+"/test.Echo/Unary", nil, "x")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 200 || res.GRPCStatus() != "0" {
		t.Errorf("next upstream: %v", res)
	}

	res, err = testgrpc.Call(ctx, c, front(t, handler(t, grpcproxy.Options{ReadTimeout: 200 * time.Millisecond}, backend(t)))+"/test.Echo/Slow", nil, "x")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != http.StatusGatewayTimeout {
		t.Errorf("read timeout: %v", res)
	}
}

// A Unix-domain socket is a server like any other.
func TestUnixSocket(t *testing.T) {
	path := t.TempDir() + "/grpc.sock"
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	s := testgrpc.Serve(l, nil)
	t.Cleanup(func() { s.Close() })
	h, err := grpcproxy.New(grpcproxy.Options{Addr: "unix:" + path, Authority: "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	url := front(t, h)
	res, err := testgrpc.Bidi(context.Background(), testgrpc.Client(nil), url+"/test.Echo/Bidi", "u", "v")
	if err != nil {
		t.Fatal(err)
	}
	if res.GRPCStatus() != "0" || !slices.Equal(res.Messages, []string{"u", "v"}) || res.Header.Get("X-Authority") != "localhost" {
		t.Errorf("unix: %v, authority %q", res, res.Header.Get("X-Authority"))
	}
}

// The read timeout starts once the request has gone whole, as NGINX's
// grpc_read_timeout: a client-streaming call whose client takes longer
// than it to send its messages is answered.
func TestReadTimeoutAfterRequest(t *testing.T) {
	up := front(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 0
		for {
			if _, err := testgrpc.ReadMessage(r.Body); err != nil {
				break
			}
			n++
		}
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Set("Trailer", "Grpc-Status")
		w.Write(testgrpc.Frame([]byte(strconv.Itoa(n))))
		w.Header().Set("Grpc-Status", "0")
	}))
	url := front(t, handler(t, grpcproxy.Options{ReadTimeout: 300 * time.Millisecond}, strings.TrimPrefix(up, "http://")))
	pr, pw := io.Pipe()
	go func() {
		for range 5 {
			time.Sleep(150 * time.Millisecond)
			pw.Write(testgrpc.Frame([]byte("m")))
		}
		pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPost, url+"/test.Echo/Upload", pr)
	req.Header.Set("Content-Type", "application/grpc")
	resp, err := testgrpc.Client(nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	msg, err := testgrpc.ReadMessage(resp.Body)
	if resp.StatusCode != 200 || err != nil || string(msg) != "5" {
		t.Errorf("status %d, message %q, %v; want 200 and \"5\"", resp.StatusCode, msg, err)
	}
}

// counting counts the tries Next started and Done has not ended.
type counting struct {
	addr   string
	tried  bool
	active *atomic.Int32
}

func (s *counting) Next() (string, bool) {
	if s.tried {
		return "", false
	}
	s.tried = true
	s.active.Add(1)
	return s.addr, true
}

func (s *counting) Done(bool) bool { s.active.Add(-1); return false }
func (s *counting) More() bool     { return !s.tried }

// A stream the upstream breaks after its head still ends its try: the
// server's count of active requests (max_conns, least_conn) must not
// keep it.
func TestBrokenStreamEndsTry(t *testing.T) {
	up := front(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/grpc")
		w.Write(testgrpc.Frame([]byte("first")))
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler) // resets the stream
	}))
	var active atomic.Int32
	h, err := grpcproxy.New(grpcproxy.Options{Select: func(*http.Request) grpcproxy.Selection {
		return &counting{addr: strings.TrimPrefix(up, "http://"), active: &active}
	}})
	if err != nil {
		t.Fatal(err)
	}
	url := front(t, h)
	res, err := testgrpc.Call(context.Background(), testgrpc.Client(nil), url+"/test.Echo/Unary", nil, "x")
	if err == nil {
		t.Errorf("the broken stream was answered whole: %v", res)
	}
	deadline := time.Now().Add(2 * time.Second)
	for active.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := active.Load(); n != 0 {
		t.Errorf("%d tries still active after the stream broke", n)
	}
}

// Past maxTransports local addresses (or TLS names) taken from the
// requests, a new one is still served: the oldest client gives way
// instead of every later name failing until a reload.
func TestManyLocalAddresses(t *testing.T) {
	addr := backend(t)
	url := front(t, handler(t, grpcproxy.Options{
		Bind: func(r *http.Request) string { return r.Header.Get("X-Bind") },
	}, addr))
	c := testgrpc.Client(nil)
	for i := range 70 {
		bind := http.Header{"X-Bind": {fmt.Sprintf("127.0.0.%d", i+2)}}
		res, err := testgrpc.Call(context.Background(), c, url+"/test.Echo/Unary", bind, "x")
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != 200 || res.GRPCStatus() != "0" {
			t.Fatalf("local address %s: %v", bind.Get("X-Bind"), res)
		}
	}
}

// grpc_read_timeout bounds the upstream's silence, not the client's pace:
// a stream the client reads slowly (its HTTP/2 window full, the
// relay's write waiting) is not cut while the upstream has answered.
func TestReadTimeoutSlowClient(t *testing.T) {
	msg := testgrpc.Frame(make([]byte, 16<<10))
	const count = 1024 // 16 MiB, more than the client's stream window
	up := front(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Set("Trailer", "Grpc-Status")
		for range count {
			if _, err := w.Write(msg); err != nil {
				return
			}
		}
		w.Header().Set("Grpc-Status", "0")
	}))
	url := front(t, handler(t, grpcproxy.Options{ReadTimeout: 300 * time.Millisecond}, strings.TrimPrefix(up, "http://")))
	req, _ := http.NewRequest(http.MethodPost, url+"/test.Echo/Download", nil)
	req.Header.Set("Content-Type", "application/grpc")
	resp, err := testgrpc.Client(nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.Sleep(time.Second) // the client reads nothing for a while
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n != count*int64(len(msg)) || resp.Trailer.Get("Grpc-Status") != "0" {
		t.Errorf("got %d of %d bytes, %v, grpc-status %q", n, count*len(msg), err, resp.Trailer.Get("Grpc-Status"))
	}
}

// A call the upstream ends while the client still sends (a server that
// fails a bidirectional stream, or answers before the client's last
// message) is ended at once: the client hears the trailers without
// ending its side first.
func TestUpstreamEndsBeforeClient(t *testing.T) {
	url := front(t, handler(t, grpcproxy.Options{}, backend(t)))
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, url+"/test.Echo/Stream", pr)
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("Te", "trailers")
	go pw.Write(testgrpc.Frame([]byte("2")))
	resp, err := testgrpc.Client(nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var n int64
	done := make(chan struct{})
	go func() {
		n, err = io.Copy(io.Discard, resp.Body)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		pw.Close() // the client's side ends, and with it the call
		<-done
		t.Fatal("the call ended only with the client's side")
	}
	pw.Close()
	if err != nil || n != 12 || resp.Trailer.Get("Grpc-Status") != "0" {
		t.Errorf("got %d bytes, %v, grpc-status %q; want the two messages and 0", n, err, resp.Trailer.Get("Grpc-Status"))
	}
}

// $upstream_addr and $upstream_status list the servers tried and their
// answers, as the proxy's do: a refusing server's 502, then the status
// of the one that answered.
func TestUpstreamAddrAndStatus(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()
	up := backend(t)
	var st *vars.State
	h := handler(t, grpcproxy.Options{}, down, up)
	url := front(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st = &vars.State{Start: time.Now()}
		h.ServeHTTP(w, r.WithContext(vars.NewContext(r.Context(), st)))
	}))
	res, err := testgrpc.Call(context.Background(), testgrpc.Client(nil), url+"/test.Echo/Unary", nil, "x")
	if err != nil || res.Status != 200 {
		t.Fatalf("%v, %v", res, err)
	}
	addr, _ := st.Get("upstream_addr")
	status, _ := st.Get("upstream_status")
	if want := down + ", " + up; addr != want || status != "502, 200" {
		t.Errorf("upstream_addr %q, upstream_status %q; want %q, %q", addr, status, want, "502, 200")
	}
}
