//go:build !race

package brotli

import "testing"

const raceEnabled = false

// oneGoroutine lets the test run: without -race, every test does (see
// race_test.go).
func oneGoroutine(*testing.T) {}
