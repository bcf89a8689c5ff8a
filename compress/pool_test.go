package compress_test

import (
	"bytes"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"testing"

	ownbrotli "github.com/mosaic-edge/mosaic/brotli"
	"github.com/mosaic-edge/mosaic/compress"
)

// brotliSite serves a page at /N compressed at level N, through one pool.
func brotliSite(t *testing.T, pool *compress.EncoderPool, retention compress.Retention, reuse bool, page []byte) string {
	t.Helper()
	mux := http.NewServeMux()
	for level := 0; level <= 11; level++ {
		mux.Handle("/"+strconv.Itoa(level), mustNew(t, respond(200, page, "Content-Type: text/html"), allOn(func(o *compress.Options) {
			o.Brotli.Level = level
			o.Brotli.Encoders = pool
			o.Brotli.Retention = retention
			o.Brotli.ReuseMemory = reuse
		})))
	}
	return serve(t, mux)
}

func getBrotli(t *testing.T, url string, want []byte) []byte {
	t.Helper()
	resp, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: br")
	if resp.Header.Get("Content-Encoding") != "br" || !bytes.Equal(decode(t, "br", raw), want) {
		t.Fatalf("%s: no brotli round trip", url)
	}
	return raw
}

func TestEncoderReuse(t *testing.T) {
	page := text(50 << 10)
	pool := compress.NewEncoderPool(4)
	url := brotliSite(t, pool, compress.Retention{}, true, page)
	for range 3 {
		getBrotli(t, url+"/9", page)
	}
	if s := pool.Stats(); s.Allocated != 1 || s.Reused != 2 || s.Idle != 1 {
		t.Errorf("three level-9 responses: %+v; want one encoder, reused twice", s)
	}
	getBrotli(t, url+"/5", page)
	if s := pool.Stats(); s.Allocated != 2 || s.Idle != 2 {
		t.Errorf("another level gets its own encoder: %+v", s)
	}
}

func TestReuseMemoryOff(t *testing.T) {
	page := text(50 << 10)
	pool := compress.NewEncoderPool(4)
	url := brotliSite(t, pool, compress.Retention{}, false, page)
	for range 3 {
		getBrotli(t, url+"/9", page)
	}
	if s := pool.Stats(); s != (compress.PoolStats{}) {
		t.Errorf("brotli_reuse_memory off touched the pool: %+v", s)
	}
}

// A reused encoder produces exactly what a new one does, at every level,
// after compressing something else.
func TestReusedEncoderMatchesNew(t *testing.T) {
	js := jquery(t)
	pool := compress.NewEncoderPool(16)
	reused := brotliSite(t, pool, compress.Retention{}, true, js)
	other := brotliSite(t, pool, compress.Retention{}, true, text(20<<10))
	fresh := brotliSite(t, compress.NewEncoderPool(0), compress.Retention{}, true, js)
	for level := 0; level <= 11; level++ {
		l := "/" + strconv.Itoa(level)
		getBrotli(t, other+l, text(20<<10))
		a := getBrotli(t, reused+l, js)
		b := getBrotli(t, fresh+l, js)
		if !bytes.Equal(a, b) {
			t.Errorf("level %d: reused encoder wrote %d bytes, a new one %d", level, len(a), len(b))
		}
	}
	if s := pool.Stats(); s.Reused != 12 {
		t.Errorf("pool: %+v; want every level's second response reusing", s)
	}
}

func TestIdleEncodersLRU(t *testing.T) {
	page := text(20 << 10)
	pool := compress.NewEncoderPool(2)
	url := brotliSite(t, pool, compress.Retention{}, true, page)
	for _, level := range []string{"/4", "/5", "/6"} { // 4 is least recently used when 6 arrives
		getBrotli(t, url+level, page)
	}
	if s := pool.Stats(); s.Idle != 2 || s.Released != 1 {
		t.Fatalf("after three levels with two slots: %+v", s)
	}
	getBrotli(t, url+"/5", page) // still idle
	getBrotli(t, url+"/4", page) // was freed
	if s := pool.Stats(); s.Reused != 1 || s.Allocated != 4 {
		t.Errorf("LRU: %+v; want 5 reused and 4 allocated again", s)
	}

	none := compress.NewEncoderPool(0)
	url = brotliSite(t, none, compress.Retention{}, true, page)
	getBrotli(t, url+"/6", page)
	getBrotli(t, url+"/6", page)
	if s := none.Stats(); s.Idle != 0 || s.Reused != 0 || s.Allocated != 2 {
		t.Errorf("brotli_idle_encoders 0: %+v", s)
	}
}

func TestRetentionPolicies(t *testing.T) {
	page := text(100 << 10)
	for _, tc := range []struct {
		name      string
		retention compress.Retention
		levels    []string
		idle      int
		released  uint64
	}{
		// Every encoder stays, whatever its settings.
		{"aggressive", compress.Retention{Policy: compress.RetainAggressive}, []string{"/5", "/6", "/7"}, 3, 0},
		// Settings changed twice: each time the idle encoder goes.
		{"current_config", compress.Retention{Policy: compress.RetainCurrentConfig}, []string{"/5", "/6", "/7"}, 1, 2},
		{"current_config same settings", compress.Retention{Policy: compress.RetainCurrentConfig}, []string{"/6", "/6", "/6"}, 1, 0},
		{"release_all", compress.Retention{Policy: compress.RetainReleaseAll}, []string{"/6", "/6"}, 0, 2},
		// Level 9 keeps a 32 MiB hash table; level 1 a small one.
		{"bounded over", compress.Retention{Policy: compress.RetainBounded, Bound: 4 << 20}, []string{"/9"}, 0, 1},
		{"bounded under", compress.Retention{Policy: compress.RetainBounded, Bound: 4 << 20}, []string{"/1"}, 1, 0},
		{"bounded large", compress.Retention{Policy: compress.RetainBounded, Bound: 64 << 20}, []string{"/9", "/9"}, 1, 0},
	} {
		pool := compress.NewEncoderPool(8)
		url := brotliSite(t, pool, tc.retention, true, page)
		for _, level := range tc.levels {
			getBrotli(t, url+level, page)
		}
		if s := pool.Stats(); s.Idle != tc.idle || s.Released != tc.released {
			t.Errorf("%s: %+v; want %d idle, %d released", tc.name, s, tc.idle, tc.released)
		}
	}
}

// Encoders are kept apart by retention policy: one policy's idle encoder
// never serves another's.
func TestPoolKeyedByPolicy(t *testing.T) {
	page := text(20 << 10)
	pool := compress.NewEncoderPool(8)
	a := brotliSite(t, pool, compress.Retention{Policy: compress.RetainAggressive}, true, page)
	b := brotliSite(t, pool, compress.Retention{Policy: compress.RetainBounded, Bound: 64 << 20}, true, page)
	getBrotli(t, a+"/6", page)
	getBrotli(t, b+"/6", page)
	if s := pool.Stats(); s.Reused != 0 || s.Idle != 2 {
		t.Errorf("%+v; want two separate idle encoders", s)
	}
}

// The footprint counts what an encoder has grown for its quality and
// window.
func TestEncoderFootprint(t *testing.T) {
	encoderOnly(t)
	use := func(level, lgwin int, input []byte) int64 {
		w, err := ownbrotli.NewWriter(io.Discard, ownbrotli.Options{Quality: level, LGWin: lgwin})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(input)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return compress.EncoderFootprint(w)
	}
	small := use(1, 18, text(1000))
	nine := use(9, 22, text(200<<10))
	eleven := use(11, 22, text(1<<20))
	t.Logf("level 1 %d, level 9 %d, level 11 %d bytes", small, nine, eleven)
	// The Writer itself, its arrays of histograms and codes included.
	writer := int64(reflect.TypeFor[ownbrotli.Writer]().Size())
	if small < writer+256<<10 || small >= 4<<20 { // and its hash table: 2^16 uint32
		t.Errorf("level 1: %d bytes, want the Writer's %d and its 256 KiB hash table, less than 4 MiB", small, writer)
	}
	if nine < 16<<20 { // its hash table: 2^15 buckets of 128 uint32
		t.Errorf("level 9: %d bytes, less than its hash table", nine)
	}
	// Its binary-tree forest (two uint32 per slot, as many slots as the
	// power of two above the stream's length: 2^21 for 1 MiB, 16 MiB) and
	// its window's copy of the body (1 MiB) beside the Writer.
	if eleven < writer+16<<20+1<<20 {
		t.Errorf("level 11: %d bytes, less than its binary-tree forest", eleven)
	}
}

// The own encoder's footprint leaves out what it shares with other
// encoders: the static dictionary's index, which quality 4 searches and 3
// does not, and a raw dictionary with its index (the copy of the
// dictionary in each encoder's window is its own, and counts).
func TestOwnEncoderFootprint(t *testing.T) {
	body := text(1000)
	dict, err := ownbrotli.NewDictionary(text(1 << 20))
	if err != nil {
		t.Fatal(err)
	}
	use := func(quality int, dict *ownbrotli.Dictionary) int64 {
		w, err := ownbrotli.NewWriter(io.Discard, ownbrotli.Options{Quality: quality, SizeHint: len(body), Dictionary: dict})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		w.Reset(nil)
		return compress.EncoderFootprint(w)
	}
	three, four, five := use(3, nil), use(4, nil), use(5, dict)
	t.Logf("level 3 %d, level 4 %d, level 5 with a 1 MiB dictionary %d bytes", three, four, five)
	// Quality 4's buckets hold four positions where 3's hold two: a few
	// kilobytes for a 1 KB body. The static dictionary's index is 176 KB.
	if four-three > 64<<10 {
		t.Errorf("level 4 holds %d bytes more than level 3: the static dictionary's index counted?", four-three)
	}
	// The window's copy of the dictionary (1 MiB and the room it grew
	// by) and the encoder's own buffers (a few hundred KB); not the
	// dictionary itself, nor its index (8 MiB).
	if five < 1<<20 || five > 2<<20 {
		t.Errorf("level 5 with a 1 MiB dictionary: %d bytes; want the window's copy, not the shared dictionary and its index", five)
	}
}
