package http1

import (
	"context"
	"errors"
	"fmt"
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

// Contexts derived from a request's learn of its end through AfterFunc,
// without a goroutine each.
func TestRequestCtxChildren(t *testing.T) {
	c := newTestCtx()
	before := runtime.NumGoroutine()
	const n = 100
	children := make([]context.Context, n)
	stops := make([]context.CancelFunc, n)
	for i := range children {
		children[i], stops[i] = context.WithCancel(c)
	}
	timed, stopTimed := context.WithTimeout(c, time.Hour)
	defer stopTimed()
	if g := runtime.NumGoroutine(); g > before+5 {
		t.Errorf("%d goroutines for %d derived contexts", g-before, n)
	}
	stops[0]() // a child cancelled on its own unregisters
	c.mu.Lock()
	registered := len(c.funcs)
	c.mu.Unlock()
	if registered != n {
		t.Errorf("%d functions registered, want %d", registered, n)
	}
	c.cancel()
	for i, child := range append(children, timed) {
		select {
		case <-child.Done():
		case <-time.After(testTimeout):
			t.Fatalf("child %d not cancelled", i)
		}
		if !errors.Is(child.Err(), context.Canceled) {
			t.Errorf("child %d: Err = %v", i, child.Err())
		}
	}
	for _, stop := range stops {
		stop()
	}
}

func TestRequestCtxAfterFunc(t *testing.T) {
	c := newTestCtx()
	ran := make(chan string, 3)
	stopA := context.AfterFunc(c, func() { ran <- "a" })
	stopB := context.AfterFunc(c, func() { ran <- "b" })
	if !stopB() {
		t.Error("stop before cancel reports false")
	}
	if stopB() {
		t.Error("second stop reports true")
	}
	c.cancel()
	select {
	case got := <-ran:
		if got != "a" {
			t.Errorf("ran %q, want a", got)
		}
	case <-time.After(testTimeout):
		t.Fatal("AfterFunc did not run")
	}
	if stopA() {
		t.Error("stop after the function ran reports true")
	}
	// Registered after the end: runs at once.
	context.AfterFunc(c, func() { ran <- "late" })
	select {
	case got := <-ran:
		if got != "late" {
			t.Errorf("ran %q, want late", got)
		}
	case <-time.After(testTimeout):
		t.Fatal("AfterFunc after cancel did not run")
	}
	select {
	case got := <-ran:
		t.Errorf("stopped function %q ran", got)
	case <-time.After(20 * time.Millisecond):
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

func TestSortFields(t *testing.T) {
	for _, n := range []int{0, 1, 2, 5, 16, 17, 40} {
		fs := make([]headerField, n)
		for i := range fs {
			fs[i].name = fmt.Sprintf("X-%03d", (i*37)%n)
		}
		sortFields(fs)
		for i := 1; i < n; i++ {
			if fs[i-1].name >= fs[i].name {
				t.Fatalf("n=%d: %q before %q", n, fs[i-1].name, fs[i].name)
			}
		}
	}
}
