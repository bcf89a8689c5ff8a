package http1

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestConnStats follows one connection through the states stub_status
// reports: waiting after the accept, reading once a request begins,
// writing while the handler runs, waiting again while kept alive, gone
// after it closes.
func TestConnStats(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	inHandler := make(chan struct{})
	stats := &ConnStats{}
	srv := &Server{Stats: stats, Limits: Limits{HeaderTimeout: 5 * time.Second, KeepAliveTimeout: 5 * time.Second},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inHandler <- struct{}{}
			<-release
			io.WriteString(w, "ok")
		})}
	go srv.Serve(ln)
	defer srv.Close()
	expect := func(what string, want ConnCounts) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Second)
		for {
			got := stats.Counts()
			if got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %+v, want %+v", what, got, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	expect("accepted", ConnCounts{Accepted: 1, Active: 1, Waiting: 1})
	io.WriteString(c, "GET / HTTP/1.1\r\n")
	expect("header begun", ConnCounts{Accepted: 1, Requests: 1, Active: 1, Reading: 1})
	io.WriteString(c, "Host: x\r\n\r\n")
	<-inHandler
	expect("in the handler", ConnCounts{Accepted: 1, Requests: 1, Active: 1, Writing: 1})
	close(release)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	expect("kept alive", ConnCounts{Accepted: 1, Requests: 1, Active: 1, Waiting: 1})
	c.Close()
	expect("closed", ConnCounts{Accepted: 1, Requests: 1})
}

// TestOthersOpen checks what decides whether a kept connection yields
// before it reads the next request (awaitRequest): another open
// connection, idle between requests or not. An idle one counts: its next
// request may have arrived, and its goroutine be ready to run, while it
// still counts as waiting (under wrk -c8 on a static file, a test of
// requests being read or served skipped 95% of the yields, and the
// failed reads they save came back: http1 README).
func TestOthersOpen(t *testing.T) {
	if !(*ConnStats)(nil).othersOpen() {
		t.Fatal("without counts: no yield, want one (it cannot tell)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stats := &ConnStats{}
	srv := &Server{Stats: stats, Limits: Limits{HeaderTimeout: 5 * time.Second, KeepAliveTimeout: 5 * time.Second},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(ln)
	defer srv.Close()
	// expect waits until the connections open are all waiting (idle
	// between requests, none being read or served), then checks the
	// decision.
	expect := func(what string, open int64, want bool) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Second)
		for n := stats.Counts(); n.Active != open || n.Waiting != open || n.Reading+n.Writing != 0; n = stats.Counts() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: counts %+v, want %d connections waiting", what, n, open)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if got := stats.othersOpen(); got != want {
			t.Fatalf("%s: others open %v, want %v (%+v)", what, got, want, stats.Counts())
		}
	}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	get := func(c net.Conn) {
		t.Helper()
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
	}
	first := dial()
	get(first)
	expect("one connection kept alive, idle", 1, false)

	second := dial()
	get(second)
	expect("two connections kept alive, both idle", 2, true)
	second.Close()
	expect("the other closed", 1, false)
}
