package http1

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

type testKey struct{}

func newTestCtx() *requestCtx {
	return &requestCtx{Context: context.WithValue(context.Background(), testKey{}, "conn")}
}

func TestRequestCtxCancel(t *testing.T) {
	c := newTestCtx()
	if c.Err() != nil {
		t.Fatalf("Err before cancel = %v", c.Err())
	}
	if _, ok := c.Deadline(); ok {
		t.Error("a request context has a deadline")
	}
	if got := c.Value(testKey{}); got != "conn" {
		t.Errorf("Value = %v, want the connection's", got)
	}
	done := c.Done()
	if done != c.Done() {
		t.Error("Done returns a different channel each time")
	}
	select {
	case <-done:
		t.Fatal("Done closed before cancel")
	default:
	}
	c.cancel()
	c.cancel() // a second cancel does nothing
	select {
	case <-done:
	default:
		t.Fatal("Done not closed by cancel")
	}
	if !errors.Is(c.Err(), context.Canceled) || !errors.Is(context.Cause(c), context.Canceled) {
		t.Errorf("Err = %v, Cause = %v, want context.Canceled", c.Err(), context.Cause(c))
	}
}

func TestRequestCtxDoneAfterCancel(t *testing.T) {
	c := newTestCtx()
	c.cancel()
	select {
	case <-c.Done(): // made after the cancel: already closed
	default:
		t.Fatal("Done asked for after cancel is open")
	}
}

// wrapped is a context type of the kind a server puts around a request's
// context (mosaic's core does): it answers some keys itself and hides
// the type underneath.
type wrapped struct{ context.Context }

func (w wrapped) Value(key any) any {
	if key == (testKey{}) {
		return "wrapper"
	}
	return w.Context.Value(key)
}

// Contexts derived from a request's, even behind wrappers, are ordinary
// children of its cancel context: no goroutine each, and done as soon as
// the request's context is.
func TestRequestCtxChildren(t *testing.T) {
	c := newTestCtx()
	parents := []context.Context{c, wrapped{c}, context.WithValue(wrapped{c}, testKey{}, "v")}
	before := runtime.NumGoroutine()
	const n = 50
	var children []context.Context
	var stops []context.CancelFunc
	ran := make(chan int, 3*n)
	for i := 0; i < n; i++ {
		for _, p := range parents {
			child, stop := context.WithCancel(p)
			children, stops = append(children, child), append(stops, stop)
			timed, stopTimed := context.WithTimeout(p, time.Hour)
			children, stops = append(children, timed), append(stops, stopTimed)
			context.AfterFunc(p, func() { ran <- i })
		}
	}
	if g := runtime.NumGoroutine(); g > before+5 {
		t.Errorf("%d goroutines for %d derived contexts", g-before, len(children))
	}
	c.cancel()
	for i, child := range children {
		select {
		case <-child.Done():
		default:
			t.Fatalf("child %d not done when the request's context is", i)
		}
		if !errors.Is(child.Err(), context.Canceled) {
			t.Errorf("child %d: Err = %v", i, child.Err())
		}
	}
	for i := 0; i < len(parents)*n; i++ {
		select {
		case <-ran:
		case <-time.After(testTimeout):
			t.Fatalf("%d of %d AfterFunc functions ran", i, len(parents)*n)
		}
	}
	for _, stop := range stops {
		stop()
	}
}

// A connection's context that can end (a Server.ConnContext's) ends its
// requests, whether or not their Done channel was asked for first; an
// end that came first stays their Err.
func TestRequestCtxConnectionEnds(t *testing.T) {
	for _, early := range []bool{false, true} {
		base, stop := context.WithCancel(context.Background())
		c := &requestCtx{Context: base}
		var done <-chan struct{}
		if early {
			done = c.Done()
		}
		stop()
		if !errors.Is(c.Err(), context.Canceled) {
			t.Errorf("early=%v: Err = %v after the connection's context ended", early, c.Err())
		}
		if !early {
			done = c.Done()
		}
		select {
		case <-done:
		case <-time.After(testTimeout):
			t.Fatalf("early=%v: Done not closed", early)
		}
	}
	base, stop := context.WithTimeout(context.Background(), time.Nanosecond)
	defer stop()
	<-base.Done()
	c := &requestCtx{Context: base}
	c.cancel()
	if !errors.Is(c.Err(), context.DeadlineExceeded) {
		t.Errorf("Err = %v, want the connection's DeadlineExceeded", c.Err())
	}
}

// A request's context ends when its handler returns, and a context
// derived from it with it.
func TestRequestContextEndsWithHandler(t *testing.T) {
	kept := make(chan context.Context, 2)
	stops := make(chan context.CancelFunc, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		child, stop := context.WithCancel(r.Context())
		stops <- stop // called only once the test has seen it end
		kept <- r.Context()
		kept <- child
		if err := r.Context().Err(); err != nil {
			t.Errorf("context ended while the handler runs: %v", err)
		}
	}))
	c := dial(t, ts.addr)
	if resp, _ := c.roundTrip("GET", get("/")); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for i := 0; i < 2; i++ {
		ctx := <-kept
		select {
		case <-ctx.Done():
		case <-time.After(testTimeout):
			t.Fatalf("context %d not ended after the handler returned", i)
		}
	}
	(<-stops)()
}

// The response header map is reused on a connection: nothing one
// response set shows in the next.
func TestResponseHeaderFreshPerRequest(t *testing.T) {
	n := 0
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if len(w.Header()) != 0 {
			t.Errorf("request %d: header starts with %v", n, w.Header())
		}
		w.Header().Set(fmt.Sprintf("X-Only-%d", n), "1")
		w.Header().Set("X-Every", fmt.Sprint(n))
	}))
	c := dial(t, ts.addr)
	for i := 1; i <= 3; i++ {
		c.send(get("/"))
		head := c.rawHead()
		joined := strings.Join(head, "\n")
		for j := 1; j <= 3; j++ {
			if has := strings.Contains(joined, fmt.Sprintf("X-Only-%d:", j)); has != (j == i) {
				t.Errorf("response %d: X-Only-%d present = %v\n%s", i, j, has, joined)
			}
		}
		if v, count := field(head, "X-Every"); v != fmt.Sprint(i) || count != 1 {
			t.Errorf("response %d: X-Every = %q (%d lines)", i, v, count)
		}
	}
}

// testRecord is a server's record of a request, as mosaic's: its
// context is over the server's and tells it (testKey).
type testRecord struct{ x Exchange }

func (r *testRecord) Exchange() *Exchange { return &r.x }

func (r *testRecord) Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, testKey{}, ctx)
}

// TestPlainFieldNames checks what the parse tells of a request's field
// names through its context: plain when all are letters, digits and '-',
// not when one has '_' or another token byte.
func TestPlainFieldNames(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan bool, 1)
	srv := &Server{Limits: Limits{HeaderTimeout: 5 * time.Second, KeepAliveTimeout: 5 * time.Second},
		NewRecord: func() Record { return new(testRecord) },
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			base, _ := r.Context().Value(testKey{}).(context.Context)
			got <- base != nil && PlainFieldNames(base)
		})}
	go srv.Serve(ln)
	defer srv.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for _, tc := range []struct {
		fields string
		plain  bool
	}{
		{"Host: x\r\n", true},
		{"host: x\r\nX-Forwarded-For: 1\r\naccept: */*\r\nX-2: y\r\n", true},
		{"Host: x\r\nX_Forwarded_For: 1\r\n", false},
		{"Host: x\r\nx.y: 1\r\n", false},
		{"X~: 1\r\nHost: x\r\n", false},
		{"X@A: 1\r\nHost: x\r\n", false}, // no token: NGINX's invalid name
		{"Host: x\r\n", true},
	} {
		io.WriteString(c, "GET / HTTP/1.1\r\n"+tc.fields+"\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		if p := <-got; p != tc.plain {
			t.Errorf("%q: PlainFieldNames %v, want %v", tc.fields, p, tc.plain)
		}
	}
	if PlainFieldNames(context.Background()) {
		t.Error("PlainFieldNames of another context: true")
	}
}

// TestConnContext checks that the context a record is given leads to
// the connection's own (Server.ConnContext's), the same one for every
// request of a connection and another for the next connection, and that
// any other context leads nowhere.
func TestConnContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	type connKey struct{}
	made := make(chan context.Context, 4)
	got := make(chan context.Context, 4)
	srv := &Server{Limits: Limits{HeaderTimeout: 5 * time.Second, KeepAliveTimeout: 5 * time.Second},
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			ctx = context.WithValue(ctx, connKey{}, c.RemoteAddr().String())
			made <- ctx
			return ctx
		},
		NewRecord: func() Record { return new(testRecord) },
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			base, _ := r.Context().Value(testKey{}).(context.Context)
			got <- ConnContext(base)
		})}
	go srv.Serve(ln)
	defer srv.Close()
	for range 2 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(c)
		var conn context.Context
		for i := range 2 {
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			io.ReadAll(resp.Body)
			if i == 0 {
				conn = <-made
			}
			if g := <-got; g != conn {
				t.Errorf("request %d: ConnContext gave %v, want the connection's %v", i, g, conn)
			}
		}
		c.Close()
	}
	if g := ConnContext(context.Background()); g != nil {
		t.Errorf("ConnContext of another context: %v, want nil", g)
	}
}
