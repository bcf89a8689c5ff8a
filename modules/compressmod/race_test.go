//go:build race

package compressmod_test

// raceEnabled: the race detector's instrumentation allocates on its own.
const raceEnabled = true
