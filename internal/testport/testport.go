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
// out so; tests choosing at random among them collide only by chance,
// which binding the port first rules out for ports already in use.
package testport

import (
	"fmt"
	"math/rand/v2"
	"net"
)

// The ports chosen from: below Linux's ephemeral range (32768-60999) and
// above the fixed ports of the repository's benchmark scripts (18xxx).
const lo, hi = 20000, 32768

// Free returns a loopback port that nothing listens on at the moment, below
// the kernel's ephemeral range.
func Free() (int, error) {
	for range 200 {
		p := lo + rand.IntN(hi-lo)
		l, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", p))
		if err == nil {
			l.Close()
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free port in %d-%d", lo, hi-1)
}
