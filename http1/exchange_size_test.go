package http1

import (
	"testing"
	"unsafe"
)

// TestExchangeSize keeps what every request allocates here (the
// response, the request's context and the parse's memory, one exchange)
// within the allocator's 576-byte size class: an object of more than 512
// bytes that holds pointers carries an 8-byte header, so the exchange
// must be 568 bytes at most. The next class is 640 bytes, 64 more for
// every request to allocate and for the collector to pay for (fastcgi
// README, *Benchmark*). A field added to response, requestCtx or reqMem
// must find its room.
func TestExchangeSize(t *testing.T) {
	if n := unsafe.Sizeof(exchange{}); n > 576-8 {
		t.Errorf("exchange is %d bytes, past the 576-byte size class with its 8-byte header", n)
	}
}
