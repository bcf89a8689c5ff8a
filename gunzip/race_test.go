//go:build race

package gunzip_test

import "testing"

// volumeOnly skips the test under the race detector. A test that calls it
// decodes a large body: its time is the inflater's work on the reader's
// goroutine, ten to twenty times slower under the detector
// (TestGunzipBombBounded's 256 MiB: 62 of the package's 64 s at load 13,
// `go test -race -json ./gunzip`), while the hand-off between the
// handler's goroutine and the reader's, what the detector can check, is
// the same few channel steps the package's other tests take under it. It
// also counts the bytes allocated, which the detector's own sync.Pool
// behaviour (it drops a quarter of what is put back) would inflate.
// `make unit` runs it once more without -race.
func volumeOnly(t *testing.T) {
	t.Helper()
	t.Skip("decoding volume only: runs without -race (make unit)")
}
