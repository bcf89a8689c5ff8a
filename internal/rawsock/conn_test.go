//go:build unix

package rawsock_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/rawsock"
)

// pair returns a connected TCP pair on loopback: the first wrapped.
func pair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	w := rawsock.Wrap(c)
	if _, ok := w.(*rawsock.Conn); !ok {
		t.Fatalf("a TCP connection is not wrapped: %T", w)
	}
	t.Cleanup(func() { w.Close(); s.Close() })
	return w, s
}

// TestConnReadWaits: a read waits for data through the poller, returns
// what came, and io.EOF once the peer has closed.
func TestConnReadWaits(t *testing.T) {
	c, s := pair(t)
	go func() {
		time.Sleep(50 * time.Millisecond)
		s.Write([]byte("hello"))
		time.Sleep(20 * time.Millisecond)
		s.Close()
	}()
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("%q %v", buf[:n], err)
	}
	n, err = c.Read(buf)
	if n != 0 || err != io.EOF {
		t.Fatalf("after close: %d %v", n, err)
	}
}

// TestConnDeadlines: deadlines bound the waits as on net.Conn, with the
// same errors, and a closed connection says so.
func TestConnDeadlines(t *testing.T) {
	c, _ := pair(t)
	c.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
	start := time.Now()
	_, err := c.Read(make([]byte, 8))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v", err)
	}
	if d := time.Since(start); d < 25*time.Millisecond || d > 2*time.Second {
		t.Errorf("the read waited %v", d)
	}
	// Nobody reads the other end: the socket's buffers fill and the
	// write waits until its deadline, having written part. (The buffer
	// is made first: making 64 MiB under -race on a busy machine took
	// longer than the deadline, and the write found it past.)
	big := make([]byte, 64<<20)
	c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	n, err := c.Write(big)
	if !errors.Is(err, os.ErrDeadlineExceeded) || n == 0 || n == 64<<20 {
		t.Fatalf("write past its deadline: %d %v", n, err)
	}
	c.Close()
	if _, err := c.Read(make([]byte, 8)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read of a closed connection: %v", err)
	}
}

// TestConnWriteWaitsForRoom: a write larger than the socket's buffers
// completes as the peer reads, byte for byte. The writer's send buffer is
// held to 64 KiB: Linux grows a loopback socket's to tcp_wmem's maximum,
// 4 MiB, and on a 6.18 kernel one write of the 4 MiB took all but 36 KB
// at once, so that a Write that never waited for room passed 11 runs of
// 30. The peer reads only after the write has been seen waiting: a write
// that ends first found all the room it needed, and the test says so.
func TestConnWriteWaitsForRoom(t *testing.T) {
	c, s := pair(t)
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 64<<10)
	}); err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	type result struct {
		n   int
		err error
	}
	wrote := make(chan result, 1)
	go func() {
		n, err := c.Write(want)
		wrote <- result{n, err}
		c.Close()
	}()
	// No sleep of the test's own: a write that cannot finish before the
	// peer reads waits out the 200 ms whatever the machine's load.
	select {
	case r := <-wrote:
		if r.err != nil {
			t.Fatalf("the write gave up after %d bytes rather than wait for room: %v", r.n, r.err)
		}
		t.Fatalf("the check itself: all %d bytes written before the peer read any: the write never waited for room", r.n)
	case <-time.After(200 * time.Millisecond):
	}
	b, _ := io.ReadAll(s)
	if r := <-wrote; r.err != nil || r.n != len(want) {
		t.Fatalf("%d %v", r.n, r.err)
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("the peer read %d bytes, not the %d written", len(b), len(want))
	}
}

// TestWrapLeavesOthers: what is not a plain socket is returned as is.
func TestWrapLeavesOthers(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if rawsock.Wrap(a) != a {
		t.Error("a pipe was wrapped")
	}
}

// TestWritev: one call sends the slices in order, no more of them than
// iov has room for; Consume drops what it sent.
func TestWritev(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			syscall.Close(fds[0])
		}
		syscall.Close(fds[1])
	}()
	syscall.SetNonblock(fds[0], true)
	syscall.SetNonblock(fds[1], true)
	bufs := [][]byte{[]byte("ab"), nil, []byte("cd"), []byte("ef")}
	iov := make([]syscall.Iovec, 0, 2)
	n, err := rawsock.Writev(fds[0], bufs, iov)
	if err != nil || n != 4 {
		t.Fatalf("%d %v", n, err)
	}
	if iov[:2][0].Base != nil || iov[:2][1].Base != nil {
		t.Error("the vector still points at what it sent")
	}
	all := bufs
	bufs = rawsock.Consume(bufs, n)
	if len(bufs) != 1 || string(bufs[0]) != "ef" {
		t.Fatalf("left %q", bufs)
	}
	if all[0] != nil || all[2] != nil {
		t.Error("the slices sent are still held")
	}
	bufs = rawsock.Consume([][]byte{[]byte("abc"), []byte("d")}, 1)
	if len(bufs) != 2 || string(bufs[0]) != "bc" {
		t.Fatalf("part of a slice: %q", bufs)
	}
	out := make([]byte, 16)
	n, err = rawsock.Read(fds[1], out)
	if err != nil || string(out[:n]) != "abcd" {
		t.Fatalf("%q %v", out[:n], err)
	}
	if _, err := rawsock.Read(fds[1], out); err != syscall.EAGAIN {
		t.Fatalf("an empty socket: %v", err)
	}
	syscall.Close(fds[0])
	closed = true
	if _, err := rawsock.Read(fds[1], out); err != io.EOF {
		t.Fatalf("a closed peer: %v", err)
	}
}

// socketPair returns a connected non-blocking Unix-domain stream pair.
func socketPair(b *testing.B) (int, int) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { syscall.Close(fds[0]); syscall.Close(fds[1]) })
	syscall.SetNonblock(fds[0], true)
	syscall.SetNonblock(fds[1], true)
	return fds[0], fds[1]
}

// BenchmarkReadEmpty: a read that finds nothing, as the kept upstream
// connection's check and a kept client's first read make once a
// request; nearly all of it is the kernel's.
func BenchmarkReadEmpty(b *testing.B) {
	a, _ := socketPair(b)
	buf := make([]byte, 4096)
	for b.Loop() {
		if _, err := rawsock.Read(a, buf); err != syscall.EAGAIN {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteRead: 200 bytes written to one end and read at the
// other, a FastCGI request's size.
func BenchmarkWriteRead(b *testing.B) {
	a, c := socketPair(b)
	msg, buf := make([]byte, 200), make([]byte, 4096)
	for b.Loop() {
		if _, err := rawsock.Write(a, msg); err != nil {
			b.Fatal(err)
		}
		if n, err := rawsock.Read(c, buf); n != len(msg) || err != nil {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkSockoptError: getsockopt(SO_ERROR), the call NGINX makes where
// mosaic reads a kept upstream connection that should have nothing to
// say (BenchmarkReadEmpty); what one costs against the other.
func BenchmarkSockoptError(b *testing.B) {
	a, _ := socketPair(b)
	for b.Loop() {
		if _, err := syscall.GetsockoptInt(a, syscall.SOL_SOCKET, syscall.SO_ERROR); err != nil {
			b.Fatal(err)
		}
	}
}
