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

// TestOthersInFlight checks what decides whether a kept connection yields
// before it reads the next request (awaitRequest): a request another
// connection is reading or serving, not an idle connection.
func TestOthersInFlight(t *testing.T) {
	if !(*ConnStats)(nil).othersInFlight() {
		t.Fatal("without counts: no yield, want one (it cannot tell)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	inHandler := make(chan struct{})
	stats := &ConnStats{}
	srv := &Server{Stats: stats, Limits: Limits{HeaderTimeout: 5 * time.Second, KeepAliveTimeout: 5 * time.Second},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				inHandler <- struct{}{}
				<-release
			}
			io.WriteString(w, "ok")
		})}
	go srv.Serve(ln)
	defer srv.Close()
	expect := func(what string, want bool) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Second)
		for stats.othersInFlight() != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: others in flight %v, want %v (%+v)", what, !want, want, stats.Counts())
			}
			time.Sleep(5 * time.Millisecond)
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
	get := func(c net.Conn, br *bufio.Reader) {
		t.Helper()
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
	}
	idle := dial()
	io.WriteString(idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	get(idle, bufio.NewReader(idle))
	expect("one connection kept alive, idle", false)

	busy := dial()
	io.WriteString(busy, "GET /slow HTTP/1.1\r\n")
	expect("another's header begun", true)
	io.WriteString(busy, "Host: x\r\n\r\n")
	<-inHandler
	expect("another's handler running", true)
	close(release)
	get(busy, bufio.NewReader(busy))
	expect("both idle", false)
}
