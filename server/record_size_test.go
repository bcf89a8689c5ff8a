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
// An object of more than 512 bytes that holds pointers carries an
// 8-byte header in the allocator (mallocgcSmallScanHeader): the record
// itself must be 1,144 bytes at most (at 1,152 BenchmarkPHP's B/op rose
// by 128).
func TestRequestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(reqRoot{}); n > 1152-8 {
		t.Errorf("reqRoot is %d bytes, past the 1,152-byte size class with its 8-byte header", n)
	}
}

// TestH1RecordSize keeps the record of a request that http1 reads (the
// reqRoot and http1's exchange, one h1Record) within the 2,048-byte size
// class, with its 8-byte header: the two apart took 1,152 and 896 bytes,
// 2,048 in two allocations. Past it the next class is 2,304 bytes.
func TestH1RecordSize(t *testing.T) {
	if n := unsafe.Sizeof(h1Record{}); n > 2048-8 {
		t.Errorf("h1Record is %d bytes, past the 2,048-byte size class with its 8-byte header", n)
	}
}
