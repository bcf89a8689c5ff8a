//go:build race

package fastcgimod_test

// raceEnabled: the race detector's instrumentation allocates on its own.
const raceEnabled = true
