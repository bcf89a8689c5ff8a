//go:build !race

package compress_test

import "testing"

// raceEnabled: see race_test.go.
const raceEnabled = false

// encoderOnly lets the test run: without -race, every test does (see
// race_test.go).
func encoderOnly(*testing.T) {}
