package throttle

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/net/http2/hpack"
)

// h2FrameHead is an HTTP/2 frame's head; h2ChunkSize is NGINX's default
// http2_chunk_size, the most a DATA frame of its carries.
const (
	h2FrameHead = 9
	h2ChunkSize = 8 << 10
)

// h2HeaderBlock is the size of the HPACK block NGINX would send for a
// response's status and header: the status indexed where the static table
// has it, the fields as literals that are never indexed (NGINX keeps no
// dynamic table for what it sends), their strings Huffman-coded where
// that is shorter, as Go's encoder makes them. Go's server adds a date
// where the handler set none, as NGINX sends one.
func h2HeaderBlock(code int, h http.Header) int64 {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	enc.WriteField(hpack.HeaderField{Name: ":status", Value: strconv.Itoa(code)})
	if _, ok := h["Date"]; !ok {
		// Any date: they are all as long, and code alike but for digits.
		enc.WriteField(hpack.HeaderField{Name: "date", Value: http.TimeFormat, Sensitive: true})
	}
	for name, values := range h {
		for _, v := range values {
			enc.WriteField(hpack.HeaderField{Name: strings.ToLower(name), Value: v, Sensitive: true})
		}
	}
	return int64(buf.Len())
}
