//go:build !race

package compress_test

// raceEnabled: see race_test.go.
const raceEnabled = false
