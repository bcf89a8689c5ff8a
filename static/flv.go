package static

import (
	"io"
	"net/http"

	"github.com/mosaic-edge/mosaic/vars"
)

// flvHeader is the FLV file header that goes before a file sent from an
// offset: signature, version 1, audio and video present, a 9-byte
// header, and the first PreviousTagSize, 0.
var flvHeader = []byte("FLV\x01\x05\x00\x00\x00\x09\x00\x00\x00\x00")

// FLV is the Cutter of NGINX's flv module: "?start=N" sends the FLV
// header followed by the file from byte N, which a player asks for at
// the position of a key frame it found in the file's metadata. A start
// that is not a decimal number, that overflows, that is 0, or that is not
// before the end of the file serves the whole file. The argument is read
// raw, as NGINX reads it: "start=%31" is not a number.
func FLV(r *http.Request, _ io.ReaderAt, size int64) (Cut, int) {
	whole := Cut{To: size}
	v, ok := vars.Arg(r, "start")
	if !ok {
		return whole, 0
	}
	start, ok := parseOffset(v)
	if !ok || start == 0 || start >= size {
		return whole, 0
	}
	return Cut{Head: flvHeader, From: start, To: size}, 0
}

// parseOffset reads a non-negative decimal offset as ngx_atoof does:
// digits only, at least one, no sign, and no value beyond int64.
func parseOffset(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	const maxInt64 = 1<<63 - 1
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (maxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}
