//go:build !race

package gunzip_test

import "testing"

// volumeOnly lets the test run: without -race, every test does (see
// race_test.go).
func volumeOnly(*testing.T) {}
