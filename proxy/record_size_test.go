package proxy

import (
	"testing"
	"unsafe"
)

// TestRecordSize keeps the record of the $upstream_* values, which every
// proxied request allocates (publishProxy), within the allocator's
// 128-byte size class; the next is 144 bytes, and the record was 152
// with its try's start time (fastcgi README, *Benchmark*).
func TestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(record{}); n > 128 {
		t.Errorf("record is %d bytes, past the 128-byte size class", n)
	}
}
