package limit

import "time"

// epoch anchors the zones' millisecond clock. NGINX reads a monotonic
// millisecond clock (ngx_current_msec); time.Since keeps the monotonic
// reading, so a change of the wall clock moves no bucket.
var epoch = time.Now()

// epochMS starts the clock far from zero, as NGINX's does: a state made
// by a limit that was not the last to be looked up has "last" 0, which
// then reads as long ago.
var epochMS = epoch.UnixMilli()

// nowMS is the zones' clock, in milliseconds; tests replace it.
var nowMS = func() int64 { return epochMS + int64(time.Since(epoch)/time.Millisecond) }

// pageSize is the page of NGINX's slab allocator, in which zones are
// sized: a zone of less than 8 pages is refused.
const pageSize = 4096

// MinZoneSize is the smallest zone NGINX accepts ("zone ... is too small").
const MinZoneSize = 8 * pageSize

// zoneCapacity is the memory a zone of size bytes has for its states:
// NGINX's slab allocator keeps a header and a page descriptor per page
// out of the size, about 24 bytes a page after a first page of overhead.
func zoneCapacity(size int64) int64 {
	pages := (size - pageSize) / (pageSize + 24)
	if pages < 1 {
		pages = 1
	}
	return pages * pageSize
}

// slabChunk is what NGINX's slab allocator gives for n bytes: the next
// power of two, at least 8.
func slabChunk(n int) int64 {
	c := int64(8)
	for c < int64(n) {
		c <<= 1
	}
	return c
}
