//go:build linux

package proxy

import (
	"errors"
	"io"
	"net"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/rawsock"
)

// callSocket is an upstream socket that notes how the connection above it
// writes and reads: WriteRead, for the write held for the first read,
// writes at most short bytes when short is set, or fails with fail.
type callSocket struct {
	net.Conn // a *rawsock.Conn
	calls    []string
	short    int
	fail     error
}

func (s *callSocket) Write(p []byte) (int, error) {
	s.calls = append(s.calls, "write")
	return s.Conn.Write(p)
}

func (s *callSocket) Read(p []byte) (int, error) {
	s.calls = append(s.calls, "read")
	return s.Conn.Read(p)
}

func (s *callSocket) WriteRead(w, p []byte) (int, int, error) {
	s.calls = append(s.calls, "writeread")
	switch {
	case s.fail != nil:
		return 0, 0, s.fail
	case s.short > 0 && len(w) > s.short:
		n, err := s.Conn.Write(w[:s.short])
		return n, 0, err
	}
	return s.Conn.(*rawsock.Conn).WriteRead(w, p)
}

// TestRequestWrittenByTheFirstRead: a request without a body goes out
// with the read of its answer (one wait, no read that finds nothing);
// where the socket takes only part of it, the rest is written before the
// read; a write that fails is the send's (heldErr), not the header's.
func TestRequestWrittenByTheFirstRead(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const req, answer = "GET / HTTP/1.1\r\nHost: u\r\n\r\n", "HTTP/1.1 204 No Content\r\n\r\n"
	for _, tc := range []struct {
		name  string
		short int
		fail  error
		calls []string
	}{
		{"whole", 0, nil, []string{"writeread"}},
		{"in part", 5, nil, []string{"writeread", "write", "read"}},
		{"failed", 0, syscall.EPIPE, []string{"writeread"}},
	} {
		raw, s := dialPair(t, ln)
		sock := &callSocket{Conn: rawsock.Wrap(raw), short: tc.short, fail: tc.fail}
		dc := &deadlineConn{Conn: sock}
		c := newConn(dc, dc, nil, connID{})
		got := make(chan string, 1)
		go func() {
			b := make([]byte, len(req))
			_, err := io.ReadFull(s, b)
			got <- string(b)
			if err == nil {
				s.Write([]byte(answer))
			}
		}()
		c.begin(time.Second, time.Second, false, time.Now())
		c.bw.WriteString(req)
		if err := c.flush(); err != nil {
			t.Fatalf("%s: flush: %v", tc.name, err)
		}
		if len(sock.calls) != 0 {
			t.Errorf("%s: the flush made %v before the read", tc.name, sock.calls)
		}
		c.dc.armIdle()
		line, err := c.br.ReadString('\n')
		if tc.fail != nil {
			if !errors.Is(err, tc.fail) || !errors.Is(c.heldErr, tc.fail) || c.nsent.Load() != 0 {
				t.Errorf("%s: read %q, %v, held write's error %v", tc.name, line, err, c.heldErr)
			}
		} else {
			if err != nil || line != "HTTP/1.1 204 No Content\r\n" || c.heldErr != nil {
				t.Errorf("%s: read %q, %v", tc.name, line, err)
			}
			if b := <-got; b != req {
				t.Errorf("%s: the server read %q", tc.name, b)
			}
			if n := c.nsent.Load(); n != int64(len(req)) {
				t.Errorf("%s: %d bytes counted sent, want %d", tc.name, n, len(req))
			}
		}
		if !slices.Equal(sock.calls, tc.calls) {
			t.Errorf("%s: the socket saw %v, want %v", tc.name, sock.calls, tc.calls)
		}
		c.close()
		s.Close()
	}
}

// The read that writes a held request dates its deadline from the time
// begin was given (the try's start, read before the request was made), as
// NGINX arms its read timer with its event loop's time: a request begun
// all but the read timeout ago times out at once, where a read of the
// clock would wait the whole timeout.
func TestHeldRequestReadDeadlineFromBegin(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	raw, s := dialPair(t, ln)
	defer s.Close()
	// The upstream reads the request and answers nothing; it closes after
	// 10 s, which ends the read that this test finds too late.
	go func() {
		io.Copy(io.Discard, s)
	}()
	closer := time.AfterFunc(10*time.Second, func() { s.Close() })
	defer closer.Stop()
	dc := &deadlineConn{Conn: rawsock.Wrap(raw)}
	c := newConn(dc, dc, nil, connID{})
	defer c.close()
	if c.sr == nil {
		t.Fatal("the socket writes no request within its read")
	}
	const timeout = time.Minute
	begun := time.Now().Add(-timeout + 200*time.Millisecond)
	c.begin(timeout, time.Second, false, begun)
	c.bw.WriteString("GET / HTTP/1.1\r\nHost: u\r\n\r\n")
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	c.dc.armIdle()
	start := time.Now()
	_, err = c.br.ReadByte()
	if took := time.Since(start); !isTimeout(err) || took > 5*time.Second {
		t.Errorf("read: %v after %v, want a timeout within about 200ms", err, took)
	}
	if c.nsent.Load() == 0 || c.heldErr != nil {
		t.Errorf("the request: %d bytes sent, error %v", c.nsent.Load(), c.heldErr)
	}
}
