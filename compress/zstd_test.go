package compress_test

import (
	"net/http"
	"runtime"
	"strconv"
	"testing"

	"github.com/mosaic-edge/mosaic/compress"
)

// frameWindow reads the window a decoder needs from a zstd frame header
// (RFC 8878 §3.1.1.1): Window_Size, or for a single-segment frame its
// content size.
func frameWindow(t *testing.T, frame []byte) int64 {
	t.Helper()
	if len(frame) < 6 || string(frame[:4]) != "\x28\xb5\x2f\xfd" {
		t.Fatalf("not a zstd frame: % x", frame[:min(6, len(frame))])
	}
	fhd := frame[4]
	if fhd&0x20 == 0 {
		wd := frame[5]
		base := int64(1) << (10 + wd>>3)
		return base + base/8*int64(wd&7)
	}
	pos := 5 + []int{0, 1, 2, 4}[fhd&3] // skip the dictionary ID
	var size int64
	switch fcs := fhd >> 6; fcs {
	case 0:
		size = int64(frame[pos])
	case 1:
		size = int64(frame[pos]) | int64(frame[pos+1])<<8 + 256
	default:
		for i := range 4 << (fcs - 2) {
			size |= int64(frame[pos+i]) << (8 * i)
		}
	}
	return size
}

func TestZstdWindow(t *testing.T) {
	for _, tc := range []struct {
		size    int
		declare bool
		want    int64 // the largest window allowed
	}{
		{5000, true, 8 << 10},
		{100, true, 1 << 10},
		{300 << 10, true, 512 << 10},
		{3 << 20, false, 8 << 20}, // unknown length: the RFC 9659 limit
		{20 << 20, true, 8 << 20}, // never above it
	} {
		page := text(tc.size)
		headers := []string{"Content-Type: text/html"}
		if tc.declare {
			headers = append(headers, "Content-Length: "+strconv.Itoa(tc.size))
		}
		url := serve(t, mustNew(t, respond(200, page, headers...), allOn(func(o *compress.Options) { o.Brotli.Enable = false })))
		resp, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: zstd")
		if resp.Header.Get("Content-Encoding") != "zstd" || string(decode(t, "zstd", raw)) != string(page) {
			t.Fatalf("%d bytes: no zstd round trip", tc.size)
		}
		if got := frameWindow(t, raw); got > tc.want || (tc.size > 1<<20 && got != tc.want) {
			t.Errorf("%d bytes (declared %v): window %d, want at most %d", tc.size, tc.declare, got, tc.want)
		}
	}
}

func TestZstdLevels(t *testing.T) {
	js := jquery(t)
	size := map[int]int{}
	for _, level := range []int{1, compress.DefaultZstdLevel, 7, 19} {
		url := serve(t, mustNew(t, respond(200, js, "Content-Type: text/html"), allOn(func(o *compress.Options) { o.Zstd.Level = level })))
		_, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: zstd")
		if string(decode(t, "zstd", raw)) != string(js) {
			t.Fatalf("level %d: no round trip", level)
		}
		size[level] = len(raw)
	}
	if !(size[1] > size[3] && size[3] > size[7] && size[7] > size[19]) {
		t.Errorf("zstd_comp_level has no effect: %v", size)
	}
}

// A server answering one request at a time reuses its zstd encoder, whichever
// P a response runs on and however many collections run between responses:
// at level 19 a new encoder is most of a response's allocation.
func TestZstdEncoderReusedSequentially(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	js := jquery(t)
	url := serve(t, mustNew(t, respond(200, js, "Content-Type: text/html"), allOn(func(o *compress.Options) { o.Zstd.Level = 19 })))
	allocated := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.TotalAlloc
	}
	// The first response may build the encoder (or find one an earlier
	// test left); each after it must not: a level-19 encoder is about 45
	// MB of allocation, a response with one reused about 0.14 MB.
	const bound = 4 << 20
	for i := range 9 {
		rawClient.CloseIdleConnections()
		runtime.GC()
		runtime.GC()
		before := allocated()
		_, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: zstd")
		n := allocated() - before
		if string(decode(t, "zstd", raw)) != string(js) {
			t.Fatalf("response %d: no zstd round trip", i)
		}
		if i > 0 && n > bound {
			t.Errorf("response %d allocated %d bytes, more than the %d of one that reuses the encoder", i, n, bound)
		}
	}
}
