//go:build race

package brotli

import "testing"

const raceEnabled = true

// oneGoroutine skips the test under the race detector. The encoder runs
// on the goroutine that calls it, so a test that calls it from one
// goroutine gives the detector nothing to find, and runs ten to twenty
// times slower under it: those tests took most of CI's five minutes in
// this package. `make unit` runs the package once more without -race,
// where they run; the tests that encode on several goroutines at once
// (segments, a shared Dictionary) run under both.
func oneGoroutine(t *testing.T) {
	t.Helper()
	t.Skip("one goroutine: runs without -race (make unit)")
}
