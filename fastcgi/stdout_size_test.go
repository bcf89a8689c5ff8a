package fastcgi

import (
	"testing"
	"unsafe"
)

// TestStdoutSize keeps the body reader every FastCGI response allocates
// (with its Response and header values) within the allocator's 320-byte
// size class; the next is 352 bytes, 32 more for every request to
// allocate and for the collector to pay for (README, *Benchmark*).
func TestStdoutSize(t *testing.T) {
	if n := unsafe.Sizeof(stdout{}); n > 320 {
		t.Errorf("stdout is %d bytes, past the 320-byte size class", n)
	}
}
