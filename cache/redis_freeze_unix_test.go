//go:build unix

package cache_test

import (
	"sync"
	"syscall"
	"testing"
)

// freeze stops r (SIGSTOP): it keeps its connections and answers
// nothing, until thaw (SIGCONT), which the test's cleanup calls too.
func (r *redisServer) freeze(t testing.TB) (thaw func()) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	thaw = func() { once.Do(func() { _ = r.cmd.Process.Signal(syscall.SIGCONT) }) }
	t.Cleanup(thaw)
	return thaw
}
