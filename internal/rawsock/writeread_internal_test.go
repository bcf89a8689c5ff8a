//go:build linux

package rawsock

import (
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// countReads replaces syscall6 for the test with one that counts the
// reads that found nothing (EAGAIN) and those that found something.
func countReads(t *testing.T) (empty, full func() int) {
	var mu sync.Mutex
	var e, f int
	orig := syscall6
	syscall6 = func(trap, a1, a2, a3, a4, a5, a6 uintptr) (uintptr, uintptr, syscall.Errno) {
		r1, r2, err := orig(trap, a1, a2, a3, a4, a5, a6)
		if trap == sysRead {
			mu.Lock()
			if err == syscall.EAGAIN {
				e++
			} else {
				f++
			}
			mu.Unlock()
		}
		return r1, r2, err
	}
	t.Cleanup(func() { syscall6 = orig })
	get := func(v *int) func() int {
		return func() int { mu.Lock(); defer mu.Unlock(); return *v }
	}
	return get(&e), get(&f)
}

// unixPair returns a connected Unix-domain pair, the first wrapped.
func unixPair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("unix", t.TempDir()+"/s")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	w := Wrap(c).(*Conn)
	t.Cleanup(func() { w.Close(); s.Close() })
	return w, s
}

// answer reads one request of n bytes from s and writes reply, after
// delay, each time it is told to.
func answer(s net.Conn, n int, reply string, delay time.Duration, times int) {
	buf := make([]byte, n)
	for range times {
		if _, err := s.Read(buf); err != nil {
			return
		}
		time.Sleep(delay)
		if _, err := s.Write([]byte(reply)); err != nil {
			return
		}
	}
}

// TestWriteReadNoEmptyRead: an answer that comes later, or at once, is
// read by the one read the wait ends with; no read finds nothing first,
// where Write and then Read make one (the count below is what tells the
// two apart).
func TestWriteReadNoEmptyRead(t *testing.T) {
	for _, delay := range []time.Duration{20 * time.Millisecond, 0} {
		c, s := unixPair(t)
		const rounds = 200
		go answer(s, 4, "pong", delay, rounds)
		empty, full := countReads(t)
		buf := make([]byte, 64)
		n := rounds
		if delay > 0 {
			n = 3
		}
		for i := range n {
			wn, rn, err := c.WriteRead([]byte("ping"), buf)
			if err != nil || wn != 4 || string(buf[:rn]) != "pong" {
				t.Fatalf("delay %v, round %d: wrote %d, read %q, %v", delay, i, wn, buf[:rn], err)
			}
		}
		if e, f := empty(), full(); f != n || (delay > 0 && e != 0) {
			t.Errorf("delay %v: %d reads found the answer, %d nothing, want %d and 0", delay, f, e, n)
		}
		// What Write and Read make instead: a read that finds nothing
		// before the answer that takes 20 ms.
		if delay > 0 {
			before := empty()
			c.Write([]byte("ping"))
			if _, err := c.Read(buf); err != nil {
				t.Fatal(err)
			}
			if empty() != before+1 {
				t.Errorf("Write and Read: %d reads found nothing, want 1", empty()-before)
			}
		}
	}
}

// TestWriteReadShortAndFailed: a socket without room for all of w leaves
// the rest to the caller, nothing read; a write to a peer that has closed
// fails as a write; a wait past the read deadline times out as a read.
func TestWriteReadShortAndFailed(t *testing.T) {
	c, s := unixPair(t)
	big := make([]byte, 64<<20)
	wn, rn, err := c.WriteRead(big, make([]byte, 8))
	if err != nil || wn == 0 || wn == len(big) || rn != 0 {
		t.Fatalf("a write without room: wrote %d, read %d, %v", wn, rn, err)
	}

	// The deadline leaves room for a loaded machine to reach the write
	// first: one already past when WriteRead starts fails its write.
	c2, s2 := unixPair(t)
	c2.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	wn, rn, err = c2.WriteRead([]byte("ping"), make([]byte, 8))
	var op *net.OpError
	if wn != 4 || rn != 0 || !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &op) || op.Op != "read" {
		t.Fatalf("no answer: wrote %d, read %d, %v", wn, rn, err)
	}
	s2.Close()
	s.Close()
	time.Sleep(10 * time.Millisecond)
	c3, s3 := unixPair(t)
	s3.Close()
	wn, _, err = c3.WriteRead([]byte("ping"), make([]byte, 8))
	if wn != 0 || !errors.Is(err, syscall.EPIPE) || !errors.As(err, &op) || op.Op != "write" {
		t.Fatalf("a closed peer: wrote %d, %v", wn, err)
	}
}
