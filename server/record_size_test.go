package server

import (
	"testing"
	"unsafe"
)

// TestRequestRecordSize keeps the record every request allocates (the
// core's, the variables' State and the filter layer, one reqRoot) within
// the Go allocator's 1,024-byte size class: past it the next class is
// 1,152 bytes, 128 more for every request to allocate and the collector
// to sweep. A field added to reqInfo or vars.State must find its room,
// or go with the rarely used ones (reqSeldom, vars.Rare), made only for
// a request that has them. An object of more than 512 bytes that holds
// pointers carries an 8-byte header in the allocator
// (mallocgcSmallScanHeader): the record itself must be 1,016 bytes at
// most.
func TestRequestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(reqRoot{}); n > 1024-8 {
		t.Errorf("reqRoot is %d bytes, past the 1,024-byte size class with its 8-byte header", n)
	}
}

// TestH1RecordSize keeps the record of a request that http1 reads (the
// reqRoot and http1's exchange, one h1Record) within the 1,792-byte size
// class, with its 8-byte header: the record took 2,048 bytes before the
// rarely used fields left it (BenchmarkPHPCurl 3,456 B/op, then 3,205).
// Past it the next class is 2,048 bytes.
func TestH1RecordSize(t *testing.T) {
	if n := unsafe.Sizeof(h1Record{}); n > 1792-8 {
		t.Errorf("h1Record is %d bytes, past the 1,792-byte size class with its 8-byte header", n)
	}
}
