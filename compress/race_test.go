//go:build race

package compress_test

// raceEnabled: under the race detector sync.Pool drops a quarter of what
// it is given, on purpose, so tests of what the pools keep skip there.
const raceEnabled = true
