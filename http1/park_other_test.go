//go:build !linux

package http1

import (
	"testing"
	"time"
)

// waitParked waits until idle connections have moved to fresh goroutines:
// the sweeper asks after one to two parkDelay intervals.
func waitParked(t *testing.T, n int) {
	t.Helper()
	time.Sleep(3 * parkDelay)
}
