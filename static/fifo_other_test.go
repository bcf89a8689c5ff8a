//go:build !unix

package static

import "testing"

// mkfifo skips the test: the tree the tests serve has a named pipe, and
// this platform has none.
func mkfifo(t testing.TB, path string) {
	t.Skipf("no named pipe for %s on this platform", path)
}
