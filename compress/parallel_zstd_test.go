package compress_test

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"runtime"
	"strconv"
	"testing"

	"github.com/mosaic-edge/mosaic/compress"
)

// zstdFrames counts the frames of a zstd body by walking their headers
// and blocks (RFC 8878, section 3.1.1), failing on anything else.
func zstdFrames(t *testing.T, body []byte) int {
	t.Helper()
	frames := 0
	for p := 0; p < len(body); frames++ {
		if len(body)-p < 6 || binary.LittleEndian.Uint32(body[p:]) != 0xFD2FB528 {
			t.Fatalf("frame %d at %d: no zstd magic number", frames, p)
		}
		fhd := body[p+4]
		p += 5
		single := fhd&0x20 != 0
		if !single {
			p++ // window descriptor
		}
		p += []int{0, 1, 2, 4}[fhd&3]
		fcs := []int{0, 2, 4, 8}[fhd>>6]
		if fhd>>6 == 0 && single {
			fcs = 1
		}
		p += fcs
		for last := false; !last; {
			if len(body)-p < 3 {
				t.Fatalf("frame %d: cut short in its blocks", frames)
			}
			h := uint32(body[p]) | uint32(body[p+1])<<8 | uint32(body[p+2])<<16
			last = h&1 != 0
			size := int(h >> 3)
			if (h>>1)&3 == 1 {
				size = 1 // RLE
			}
			p += 3 + size
		}
		if fhd&4 != 0 {
			p += 4 // checksum
		}
		if p > len(body) {
			t.Fatalf("frame %d runs past the body", frames)
		}
	}
	return frames
}

// At zstd levels 10-22 the segments are pieces of one frame from mosaic's
// own encoder, however the body ends: its length declared or not, the last
// segment flushed before the handler returns (the frame still gets its
// last block), flushes along the way. Below 10 each segment is a frame of
// its own. Both decode with zstd -d and klauspost/compress's decoder.
func TestParallelZstdJoinedOneFrame(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	const seg = 64 << 10
	pool := newTestPool(t, 2, 64)
	body := words(5*seg + 1)
	cases := []struct {
		name           string
		declare        bool
		flushAt        []int // after these writes of 32 KiB
		flushLast      bool
		joined, frames int // want, at level 19 and at 7
	}{
		{"declared", true, nil, false, 1, 5},
		{"unknown length", false, nil, false, 1, 6},
		{"flushed last", true, nil, true, 1, 5},
		{"flushes along the way", false, []int{2, 3, 7}, true, 1, 7},
	}
	for _, level := range []int{19, 7} {
		for _, tc := range cases {
			h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				if tc.declare {
					w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				}
				for i, rest := 0, body; len(rest) > 0; i++ {
					k := min(32<<10, len(rest))
					w.Write(rest[:k])
					rest = rest[k:]
					for _, f := range tc.flushAt {
						if f == i {
							w.(http.Flusher).Flush()
						}
					}
				}
				if tc.flushLast {
					w.(http.Flusher).Flush()
				}
			}), parallelOn(pool, seg, 3, func(o *compress.Options) { o.Zstd.Level = level }))
			_, raw := fetch(t, http.MethodGet, serve(t, h), "Accept-Encoding: zstd")
			want := tc.frames
			if level >= 10 {
				want = tc.joined
			}
			if n := zstdFrames(t, raw); n != want {
				t.Errorf("level %d, %s: %d frames, want %d", level, tc.name, n, want)
			}
			if got := cliDecode(t, "zstd", raw); !bytes.Equal(got, body) {
				t.Errorf("level %d, %s: zstd -d gave %d bytes, want %d", level, tc.name, len(got), len(body))
			}
			if got := decode(t, "zstd", raw); !bytes.Equal(got, body) {
				t.Errorf("level %d, %s: Go decoder gave %d bytes, want %d", level, tc.name, len(got), len(body))
			}
		}
	}
}

// Joined segments copy from the input before them: at level 19 the
// parallel body is within 1% of the serial one (klauspost/compress's best
// encoder), where frames per segment were 3.6% over it on react-dom in
// 512k segments.
func TestParallelZstdSizeNearSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	body := largeBody(t)
	level := func(o *compress.Options) { o.Zstd.Level = 19 }
	serial := mustNew(t, respond(200, body, "Content-Type: text/html"), parallelOn(nil, 0, 0, level))
	_, s := fetch(t, http.MethodGet, serve(t, serial), "Accept-Encoding: zstd")
	for _, seg := range []int{512 << 10, 256 << 10} {
		parallel := mustNew(t, respond(200, body, "Content-Type: text/html"),
			parallelOn(newTestPool(t, 2, 64), seg, 4, level))
		_, p := fetch(t, http.MethodGet, serve(t, parallel), "Accept-Encoding: zstd")
		if got := decode(t, "zstd", p); !bytes.Equal(got, body) {
			t.Fatalf("segments of %d: decoded %d bytes, want %d", seg, len(got), len(body))
		}
		if diff := float64(len(p))/float64(len(s)) - 1; diff > 0.01 {
			t.Errorf("segments of %d: parallel zstd %d bytes, serial %d: %.2f%% larger", seg, len(p), len(s), 100*diff)
		} else {
			t.Logf("segments of %d: parallel zstd %d bytes, serial %d: %+.2f%%", seg, len(p), len(s), 100*diff)
		}
	}
}
