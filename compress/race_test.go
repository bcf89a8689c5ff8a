//go:build race

package compress_test

import "testing"

// raceEnabled: under the race detector sync.Pool drops a quarter of what
// it is given, on purpose, so tests of what the pools keep skip there.
const raceEnabled = true

// sizesOnly skips the test under the race detector. A test that calls it
// weighs the output of every level against serial output on a 1 MB
// body: what it checks is bytes, which the detector does not see, and it
// took 75 s of CI under it (305 s on a loaded machine), most of the
// package's time. `make unit` runs the package once more without -race,
// where it runs; the segments and the pool are run under -race by the
// other parallel tests here, and the encoder's segments at every level
// on several goroutines by the brotli package's own.
func sizesOnly(t *testing.T) {
	t.Helper()
	t.Skip("output sizes only: runs without -race (make unit)")
}
