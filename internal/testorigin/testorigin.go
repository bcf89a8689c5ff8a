// Package testorigin runs origins for tests of what talks to them: raw
// TCP servers whose connections a test answers by hand, byte for byte,
// where an httptest.Server would answer correctly.
package testorigin

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// Raw is a TCP server on 127.0.0.1 whose connections a test handles by
// hand.
type Raw struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

// NewRaw starts a Raw server that runs serve for each connection it
// accepts, with a reader on it, and closes the connection when serve
// returns. The test's cleanup closes the server.
func NewRaw(t testing.TB, serve func(c net.Conn, br *bufio.Reader)) *Raw {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &Raw{ln: ln}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			o.mu.Lock()
			o.conns = append(o.conns, c)
			o.mu.Unlock()
			o.wg.Add(1)
			go func() {
				defer o.wg.Done()
				defer c.Close()
				serve(c, bufio.NewReader(c))
			}()
		}
	}()
	t.Cleanup(o.Close)
	return o
}

// Addr is the server's host:port.
func (o *Raw) Addr() string { return o.ln.Addr().String() }

// Close stops accepting, closes the connections and waits for the serve
// calls to return.
func (o *Raw) Close() {
	o.ln.Close()
	o.mu.Lock()
	for _, c := range o.conns {
		c.Close()
	}
	o.mu.Unlock()
	o.wg.Wait()
}

// StrayAfter is a Raw server's serve that answers "/victim" with the body
// "victim-reply" and any other request with head and then, a moment
// later, with a whole response nobody asked for (the body "PWNED!"): the
// bytes an origin sends where no body belongs (after a HEAD's head, past
// its Content-Length), which a proxy must not take for another request's
// answer.
func StrayAfter(head string) func(c net.Conn, br *bufio.Reader) {
	return func(c net.Conn, br *bufio.Reader) {
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, req.Body)
			if req.URL.Path == "/victim" {
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nvictim-reply")
				continue
			}
			_, _ = io.WriteString(c, head)
			time.Sleep(10 * time.Millisecond)
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nPWNED!")
		}
	}
}
