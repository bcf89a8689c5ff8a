package http1

import (
	"testing"
	"unsafe"
)

// TestExchangeSize keeps what every request allocates here (the
// response, the request's context, the parse's memory and the
// http.Request, one exchange) within the allocator's 896-byte size
// class: an object of more than 512 bytes that holds pointers carries an
// 8-byte header, so the exchange must be 888 bytes at most. The exchange
// without the http.Request (568 bytes) filled the 576-byte class and the
// request's own copy the 320-byte one: 896 bytes in two allocations,
// now in one. The next class is 1,024 bytes, 128 more for every request
// to allocate and for the collector to pay for (fastcgi README,
// *Benchmark*). A field added to response, requestCtx or reqMem must
// find its room.
func TestExchangeSize(t *testing.T) {
	if n := unsafe.Sizeof(exchange{}); n > 896-8 {
		t.Errorf("exchange is %d bytes, past the 896-byte size class with its 8-byte header", n)
	}
}
