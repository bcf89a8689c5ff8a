//go:build !race

package zstdenc

import "testing"

// oneGoroutine lets the test run: without -race, every test does (see
// race_test.go).
func oneGoroutine(*testing.T) {}
