//go:build !unix

package cache_test

import "testing"

// freeze skips the test: a process cannot be stopped and resumed with a
// signal here.
func (r *redisServer) freeze(t testing.TB) (thaw func()) {
	t.Skip("no SIGSTOP on this platform")
	return nil
}
