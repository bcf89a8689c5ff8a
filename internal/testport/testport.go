// Package testport picks loopback ports for servers that tests start in
// other processes (mosaic, NGINX, redis-server), which bind a port some
// time after the test chose it.
//
// A port taken from the kernel (listening on port 0, then closing) lies in
// its ephemeral range, from which it also gives every other listener on
// port 0 and every outgoing connection its local port: under the load of
// the whole suite, another package's test server was given the same port
// before mosaic or NGINX had bound it, and the test spoke to the wrong
// server. Ports below the range (Linux's starts at 32768) are never handed
// out so.
//
// A port is chosen at random there, and three checks keep it from being
// handed out twice before its server binds it: the process remembers what
// it gave (one test asked for twelve ports and was given one of them
// twice, so two of its servers shared a port), a lock file held until the
// process ends keeps the other test binaries of a `go test ./...` run off
// it, and binding it first skips ports already in use.
package testport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// The ports chosen from: below Linux's ephemeral range (32768-60999) and
// above the fixed ports of the repository's benchmark scripts (18xxx).
const lo, hi = 20000, 32768

var (
	mu    sync.Mutex
	given = map[int]*os.File{} // port -> its lock, held until exit
)

// Free returns a loopback port that nothing listens on at the moment, below
// the kernel's ephemeral range, that no other call in this process or in
// another process using this package has returned.
func Free() (int, error) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("mosaic-testport-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("testport: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for range 200 {
		p := lo + rand.IntN(hi-lo)
		if _, ok := given[p]; ok {
			continue
		}
		lock, err := claim(dir, p)
		if err != nil {
			return 0, err
		}
		if lock == nil {
			continue
		}
		l, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			lock.Close()
			continue
		}
		l.Close()
		given[p] = lock
		return p, nil
	}
	return 0, fmt.Errorf("no free port in %d-%d", lo, hi-1)
}

// claim takes port p's lock file in dir without waiting: nil when another
// process holds it.
func claim(dir string, p int) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprint(p)), os.O_CREATE|os.O_RDONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("testport: %w", err)
	}
	busy, err := lockNow(f)
	if busy || err != nil {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("testport: lock port %d: %w", p, err)
		}
		return nil, nil
	}
	return f, nil
}

// Refused returns a loopback port that refuses connections until release is
// called: a socket bound to it that never listens holds it. A port that
// is merely free, or a listener closed at once, can be handed to a server
// started meanwhile (another test's, run in parallel), which would then
// answer where a test wants a dead server. The port lies in the
// ephemeral range, which does no harm here: the kernel hands out neither
// a bound port to a listener on port 0 nor to an outgoing connection.
func Refused() (port int, release func() error, err error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return 0, nil, fmt.Errorf("testport: %w", err)
	}
	// (Not SOCK_CLOEXEC, which not every system has: a child started
	// meanwhile holds the port a little longer, and nothing more.)
	syscall.CloseOnExec(fd)
	release = func() error { return closeSocket(fd) }
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		release()
		return 0, nil, fmt.Errorf("testport: bind: %w", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		release()
		return 0, nil, fmt.Errorf("testport: %w", err)
	}
	return sa.(*syscall.SockaddrInet4).Port, release, nil
}
