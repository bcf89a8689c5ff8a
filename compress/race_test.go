//go:build race

package compress_test

import "testing"

// raceEnabled: under the race detector sync.Pool drops a quarter of what
// it is given, on purpose, so tests of what the pools keep skip there.
const raceEnabled = true

// encoderOnly skips the test under the race detector. A test that calls
// it checks what an encoder does with a large body on one goroutine: the
// size of every level against serial output on a 1 MB body, jQuery's
// bytes at every brotli level against the brotli package's own and
// through Google's decoder, or the memory a level 11 encoder grows for
// 1 MiB. What it checks is bytes, which the detector does not see, and
// the encoding, most of its time, runs ten to twenty times slower under
// it: the sizes took 75 s of CI under it (305 s on a loaded machine),
// jQuery's levels 84 s and the footprint 39 s at load 13
// (`go test -race -json ./compress`). `make unit` runs the package once
// more without -race, where they run. Under -race the segments and the
// pool are run by the other parallel tests here, a reused brotli encoder
// through a server by TestBrotliAgainstReferenceEncoder, and the
// encoder's segments at every level on several goroutines by the brotli
// package's own.
func encoderOnly(t *testing.T) {
	t.Helper()
	t.Skip("one encoder's work: runs without -race (make unit)")
}
