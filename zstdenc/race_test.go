//go:build race

package zstdenc

import "testing"

// oneGoroutine skips the test under the race detector. The encoder has no
// goroutines of its own and an Encoder is for one goroutine at a time, so
// a test that encodes on its goroutine gives the detector nothing to find,
// and runs ten to twenty times slower under it: these tests were the
// package's whole race run, 42 s of CI (55.4 s at load 13, 0.7 s after;
// without -race they take 4.6 s: `go test [-race] -count=1 -json
// ./zstdenc` without ../shared/corpus). `make unit` runs the
// package once more without -race, where they run. Under -race the
// compress package's parallel zstd tests run the encoder's segments on
// several goroutines at once, and this package's fuzz seeds still run.
func oneGoroutine(t *testing.T) {
	t.Helper()
	t.Skip("one goroutine: runs without -race (make unit)")
}
