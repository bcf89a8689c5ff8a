package server

import (
	"testing"
	"unsafe"
)

// TestRequestRecordSize keeps the record every request allocates (the
// core's, the variables' State and the filter layer, one reqRoot) within
// the Go allocator's 1,152-byte size class: past it the next class is
// 1,280 bytes, 128 more for every request to allocate and the collector
// to sweep. A field added to reqInfo or vars.State must find its room.
func TestRequestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(reqRoot{}); n > 1152 {
		t.Errorf("reqRoot is %d bytes, past the 1,152-byte size class", n)
	}
}
