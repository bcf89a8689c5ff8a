package mp4

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testmp4"
)

func TestParseTime(t *testing.T) {
	for s, want := range map[string]int64{
		"0": 0, "1": 1000, "1.5": 1500, "2.25": 2250, ".5": 500, "3.": 3000, "1.23456": 1234, "0.001": 1,
		"": -1, "x": -1, "1..2": -1, "-1": -1, "+1": -1, "1e3": -1, "9223372036854775": 9223372036854775000,
		"9223372036854776": -1,
	} {
		got, ok := ParseTime(s)
		if !ok {
			got = -1
		}
		if got != want {
			t.Errorf("ParseTime(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestRange(t *testing.T) {
	for _, c := range []struct {
		start, end             int64
		haveStart, haveEnd, ok bool
		wantStart, wantLength  uint64
	}{
		{0, 0, false, false, false, 0, 0},
		{2000, 0, true, false, true, 2000, 0},
		{2000, 5000, true, true, true, 2000, 3000},
		{0, 5000, false, true, true, 0, 5000},
		{5000, 3000, true, true, true, 5000, 0}, // an end before the start is no end
		{0, 0, false, true, false, 0, 0},        // end=0 alone cuts nothing
	} {
		s, l, ok := Range(c.start, c.haveStart, c.end, c.haveEnd)
		if ok != c.ok || s != c.wantStart || l != c.wantLength {
			t.Errorf("Range(%+v) = %d, %d, %v", c, s, l, ok)
		}
	}
}

// boxes walks the top level of b and returns its boxes' types and sizes.
func boxes(t *testing.T, b []byte) map[string]int {
	t.Helper()
	out := map[string]int{}
	for len(b) >= 8 {
		n := int(binary.BigEndian.Uint32(b))
		out[string(b[4:8])] = n
		if n < 8 || n > len(b) {
			break
		}
		b = b[n:]
	}
	return out
}

// checkSizes walks the boxes in b, and those inside the containers the
// cut writes, and fails where a box's size is not its bytes.
func checkSizes(t *testing.T, b []byte, path string) {
	t.Helper()
	for len(b) > 0 {
		if len(b) < 8 {
			t.Fatalf("%s: %d bytes left over", path, len(b))
		}
		n, typ := int(binary.BigEndian.Uint32(b)), string(b[4:8])
		if typ == "mdat" && path == "" {
			return // its data is the file's, after the head
		}
		if n < 8 || n > len(b) {
			t.Fatalf("%s/%s: size %d of %d bytes", path, typ, n, len(b))
		}
		switch typ {
		case "moov", "trak", "edts", "mdia", "minf", "stbl":
			checkSizes(t, b[8:n], path+"/"+typ)
		}
		b = b[n:]
	}
}

// TestProcess cuts the generated files: the head is ftyp, a moov box of
// the size it says and mdat's header, whose size covers the file bytes
// cut; a start past the end is an error, a fast-start file asked for
// from 0 goes whole, and a moov over MaxBufferSize is refused.
func TestProcess(t *testing.T) {
	for _, o := range []testmp4.Options{{}, {MoovFirst: true}, {Co64: true, Version1: true}} {
		data := testmp4.Build(o)
		r := bytes.NewReader(data)
		// 2.1 s is sample 53 of the video, two after the key frame at 51.
		c, err := Process(r, int64(len(data)), 2100, 3000, Options{StartKeyFrame: true})
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		ftyp := int(binary.BigEndian.Uint32(c.Head))
		moov := int(binary.BigEndian.Uint32(c.Head[ftyp:]))
		mdat := c.Head[ftyp+moov:]
		if string(c.Head[4:8]) != "ftyp" || string(c.Head[ftyp+4:ftyp+8]) != "moov" || len(mdat) != 8 ||
			string(mdat[4:]) != "mdat" || int64(binary.BigEndian.Uint32(mdat)) != 8+c.To-c.From {
			t.Errorf("%+v: head %q", o, c.Head)
		}
		checkSizes(t, c.Head, "")
		if c.From <= 0 || c.To <= c.From || c.To > int64(len(data)) {
			t.Errorf("%+v: bytes %d-%d of %d", o, c.From, c.To, len(data))
		}
		if !bytes.Contains(c.Head, []byte("edts")) {
			t.Errorf("%+v: no edit list with StartKeyFrame", o)
		}
		if _, err := Process(r, int64(len(data)), 60000, 0, Options{}); err == nil || errors.Is(err, ErrWhole) {
			t.Errorf("%+v: start past the end: %v", o, err)
		}
		_, err = Process(r, int64(len(data)), 0, 0, Options{})
		if o.MoovFirst != errors.Is(err, ErrWhole) {
			t.Errorf("%+v: start 0: %v", o, err)
		}
		if _, err := Process(r, int64(len(data)), 1000, 0, Options{BufferSize: 1024, MaxBufferSize: 1024}); err == nil {
			t.Errorf("%+v: moov over MaxBufferSize accepted", o)
		}
	}
	if got := boxes(t, testmp4.Build(testmp4.Options{})); got["moov"] == 0 || got["mdat"] == 0 {
		t.Errorf("fixture boxes %v", got)
	}
}

// TestUniformSizesWithTable: an stsz box that gives one size for every
// sample and still carries a table goes whole, so that the sizes of the
// boxes around it, which NGINX counts it in whole, are their bytes.
func TestUniformSizesWithTable(t *testing.T) {
	data := testmp4.Build(testmp4.Options{})
	i := bytes.Index(data, []byte("stsz\x00\x00\x00\x00\x00\x00\x00\x00")) // the video's, with a table
	if i < 0 {
		t.Fatal("no stsz table in the fixture")
	}
	binary.BigEndian.PutUint32(data[i+8:], 77)
	c, err := Process(bytes.NewReader(data), int64(len(data)), 2000, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkSizes(t, c.Head, "")
}

// FuzzProcess cuts random input, seeded with the generated files and
// pieces of them: it must not panic, a cut must lie within the file,
// and memory must stay within a small multiple of MaxBufferSize however
// large the boxes and counts claim to be.
func FuzzProcess(f *testing.F) {
	for _, o := range []testmp4.Options{{Short: true}, {Short: true, MoovFirst: true}, {Short: true, Co64: true, Version1: true}} {
		data := testmp4.Build(o)
		f.Add(data, uint16(300), uint16(500), true)
		f.Add(data[:len(data)*3/4], uint16(100), uint16(0), false)
	}
	f.Add([]byte("\x00\x00\x00\x01moov\xff\xff\xff\xff\xff\xff\xff\xff"), uint16(1), uint16(0), false)
	const maxBuffer = 64 << 10
	opts := Options{BufferSize: 4 << 10, MaxBufferSize: maxBuffer}
	f.Fuzz(func(t *testing.T, data []byte, start, length uint16, key bool) {
		opts.StartKeyFrame = key
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c, err := Process(bytes.NewReader(data), int64(len(data)), uint64(start), uint64(length), opts)
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16*maxBuffer+(1<<20) {
			t.Fatalf("allocated %d bytes for %d of input", grew, len(data))
		}
		if err != nil {
			return
		}
		if c.From < 0 || c.To < c.From || c.To > int64(len(data)) {
			t.Fatalf("bytes %d-%d of %d", c.From, c.To, len(data))
		}
	})
}

// TestSmallSkippedTrak: a trak box whose mdhd says the track ends before
// the start is skipped, as NGINX skips it, however small the box: the
// cut is that of the file without it.
func TestSmallSkippedTrak(t *testing.T) {
	data := testmp4.Build(testmp4.Options{}) // moov last
	i := bytes.LastIndex(data, []byte("moov")) - 4
	if i < 0 || int(binary.BigEndian.Uint32(data[i:])) != len(data)-i {
		t.Fatal("moov is not the fixture's last box")
	}
	// trak > mdia > mdhd version 0: timescale 1000, duration 0.
	mdhd := append([]byte("\x00\x00\x00\x20mdhd"), make([]byte, 4+8)...)
	mdhd = binary.BigEndian.AppendUint32(mdhd, 1000)
	mdhd = binary.BigEndian.AppendUint32(mdhd, 0)
	mdhd = binary.BigEndian.AppendUint32(mdhd, 0)
	trak := append([]byte("\x00\x00\x00\x30trak\x00\x00\x00\x28mdia"), mdhd...)
	withTrak := append(append([]byte(nil), data...), trak...)
	binary.BigEndian.PutUint32(withTrak[i:], uint32(len(withTrak)-i))

	want, err := Process(bytes.NewReader(data), int64(len(data)), 1000, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Process(bytes.NewReader(withTrak), int64(len(withTrak)), 1000, 0, Options{})
	if err != nil {
		t.Fatalf("a small trak that ends before the start: %v", err)
	}
	if !bytes.Equal(got.Head, want.Head) || got.From != want.From || got.To != want.To {
		t.Errorf("cut %d-%d, want %d-%d", got.From, got.To, want.From, want.To)
	}
}

// TestBoxesAfterMoovReuseBuffer: the boxes between a moov box that comes
// first and mdat are walked through one small buffer, as NGINX walks
// them: a file of many such boxes costs reads, not memory per box.
func TestBoxesAfterMoovReuseBuffer(t *testing.T) {
	data := testmp4.Build(testmp4.Options{Short: true, MoovFirst: true})
	i := bytes.Index(data, []byte("mdat")) - 4
	if i < 0 {
		t.Fatal("no mdat in the fixture")
	}
	const junk = 8 << 20
	withJunk := append([]byte(nil), data[:i]...)
	for range junk / 8 {
		withJunk = append(withJunk, "\x00\x00\x00\x08free"...)
	}
	withJunk = append(withJunk, data[i:]...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	// The chunk offsets now point before the junk: whether the cut
	// succeeds does not matter, only what the walk to mdat costs.
	_, _ = Process(bytes.NewReader(withJunk), int64(len(withJunk)), 100, 0, Options{})
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 2<<20 {
		t.Errorf("allocated %d bytes to walk %d bytes of boxes", grew, junk)
	}
}
