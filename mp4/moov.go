package mp4

import "encoding/binary"

var be = binary.BigEndian

// errSkip drops the track being read: it ends before the start time.
var errSkip = errorf("track ends before the start")

// Entries of the sample tables.
type (
	sttsEntry struct{ count, delta uint32 }
	cttsEntry struct{ count, offset uint32 }
	stscEntry struct{ chunk, samples, id uint32 }
)

// table is a sample table box: its version and flags, and its entries.
type table[T any] struct {
	present bool
	vf      [4]byte
	e       []T
}

// trak is one track: the boxes it keeps, as read and then cropped.
type trak struct {
	size int64 // the bytes of the boxes counted so far, as NGINX sums them
	// stblSize, minfSize and mdiaSize are those boxes' sizes: the sum
	// when each was reached.
	stblSize, minfSize, mdiaSize int64

	tkhd, mdhd, hdlr, vmhd, smhd, dinf, stsd []byte // payloads; nil: absent
	mdiaSeen, minfSeen, stblSeen             bool

	movieDuration uint64 // tkhd's, in the movie's timescale
	timescale     uint32 // mdhd's
	duration      uint64 // mdhd's, in the track's timescale

	stts table[sttsEntry]
	stss table[uint32]
	ctts table[cttsEntry]
	stsc table[stscEntry]
	// stscStart and stscEnd are the entries made for a chunk cut at the
	// start or the end.
	stscStart, stscEnd *stscEntry
	stszUniform        []byte // the payload of an stsz box with one size for all
	stsz               table[uint32]
	stco               table[uint32]
	co64               table[uint64]
	chunks             uint32

	startSample, endSample       uint64
	startChunk, endChunk         uint64
	startChunkSamples            uint64
	endChunkSamples              uint64
	startChunkSize, endChunkSize uint64
	prefix                       uint64
	startOffset, endOffset       int64
}

// eachBox walks the boxes inside data as NGINX does: size 0 ends the
// level, size 1 is a 64-bit size, a box that overruns its parent is an
// error.
func eachBox(data []byte, fn func(typ string, payload []byte) error) error {
	for len(data) > 0 {
		if len(data) < 4 {
			return errorf("box header truncated")
		}
		size := uint64(be.Uint32(data))
		if size == 0 {
			return nil
		}
		hsize := uint64(8)
		if size < 8 {
			if size != 1 {
				return errorf("box is too small: %d", size)
			}
			if len(data) < 16 {
				return errorf("box header truncated")
			}
			size, hsize = be.Uint64(data[8:]), 16
			if size < 16 {
				return errorf("box is too small: %d", size)
			}
		}
		if len(data) < 8 {
			return errorf("box header truncated")
		}
		typ := string(data[4:8])
		if size > uint64(len(data)) {
			return errorf("%q box too large: %d", typ, size)
		}
		if err := fn(typ, data[hsize:size]); err != nil {
			return err
		}
		data = data[size:]
	}
	return nil
}

// minTrak is the smallest payload of a usable trak box: the headers of
// mdia, minf and stbl and the stts, stsc and stco boxes without entries.
const minTrak = 3*8 + 3*16

func (f *file) parseMoov(data []byte) error {
	return eachBox(data, func(typ string, p []byte) error {
		switch typ {
		case "mvhd":
			return f.readMvhd(p)
		case "trak":
			t := &trak{}
			err := eachBox(p, func(typ string, p []byte) error { return f.readTrak(t, typ, p) })
			if err == errSkip {
				return nil // skipped whatever its size, as NGINX skips it
			}
			if err != nil {
				return err
			}
			// A track kept needs at least stbl's stts, stsc and stco
			// inside mdia and minf: a smaller one fails the file later,
			// in NGINX as here; refusing it now bounds the tracks held.
			if len(p) < minTrak {
				return errorf("trak box too small: %d", len(p))
			}
			f.traks = append(f.traks, t)
		case "cmov":
			return errorf("compressed moov box (cmov) is not supported")
		}
		return nil
	})
}

// scaled is a time in milliseconds in timescale units, with NGINX's
// 64-bit arithmetic.
func scaled(ms uint64, timescale uint32) uint64 { return ms * uint64(timescale) / 1000 }

func (f *file) readMvhd(p []byte) error {
	if f.mvhd != nil {
		return errorf("duplicate mvhd box")
	}
	if len(p) < 100 || p[0] != 0 && len(p) < 112 {
		return errorf("mvhd box too small")
	}
	var duration uint64
	if p[0] == 0 {
		f.timescale, duration = be.Uint32(p[12:]), uint64(be.Uint32(p[16:]))
	} else {
		f.timescale, duration = be.Uint32(p[20:]), be.Uint64(p[24:])
	}
	start := scaled(f.startMS, f.timescale)
	if duration < start {
		return errorf("start time exceeds file duration")
	}
	duration = cropDuration(duration-start, f.length, f.timescale)
	p = append([]byte(nil), p...)
	if p[0] == 0 {
		be.PutUint32(p[16:], uint32(duration))
	} else {
		be.PutUint64(p[24:], duration)
	}
	f.mvhd = p
	return nil
}

// cropDuration bounds what is left of a duration by the length asked for.
func cropDuration(d, lengthMS uint64, timescale uint32) uint64 {
	if lengthMS != 0 {
		d = min(d, scaled(lengthMS, timescale))
	}
	return d
}

func (f *file) readTrak(t *trak, typ string, p []byte) error {
	switch typ {
	case "tkhd":
		if len(p) < 84 || p[0] != 0 && len(p) < 96 {
			return errorf("tkhd box too small")
		}
		var duration uint64
		if p[0] == 0 {
			duration = uint64(be.Uint32(p[20:]))
		} else {
			duration = be.Uint64(p[28:])
		}
		start := scaled(f.startMS, f.timescale)
		if duration <= start {
			return errSkip
		}
		duration = cropDuration(duration-start, f.length, f.timescale)
		if t.tkhd != nil {
			return errorf("duplicate tkhd box")
		}
		p = append([]byte(nil), p...)
		if p[0] == 0 {
			be.PutUint32(p[20:], uint32(duration))
		} else {
			be.PutUint64(p[28:], duration)
		}
		t.tkhd, t.movieDuration = p, duration
	case "mdia":
		if t.mdiaSeen {
			return errorf("duplicate mdia box")
		}
		t.mdiaSeen = true
		return eachBox(p, func(typ string, p []byte) error { return f.readMdia(t, typ, p) })
	}
	return nil
}

func (f *file) readMdia(t *trak, typ string, p []byte) error {
	switch typ {
	case "mdhd":
		if len(p) < 24 || p[0] != 0 && len(p) < 36 {
			return errorf("mdhd box too small")
		}
		var timescale uint32
		var duration uint64
		if p[0] == 0 {
			timescale, duration = be.Uint32(p[12:]), uint64(be.Uint32(p[16:]))
		} else {
			timescale, duration = be.Uint32(p[20:]), be.Uint64(p[24:])
		}
		start := scaled(f.startMS, timescale)
		if duration <= start {
			return errSkip
		}
		duration = cropDuration(duration-start, f.length, timescale)
		if t.mdhd != nil {
			return errorf("duplicate mdhd box")
		}
		t.mdhd, t.timescale, t.duration = append([]byte(nil), p...), timescale, duration
	case "hdlr":
		if t.hdlr != nil {
			return errorf("duplicate hdlr box")
		}
		t.hdlr = p
	case "minf":
		if t.minfSeen {
			return errorf("duplicate minf box")
		}
		t.minfSeen = true
		return eachBox(p, func(typ string, p []byte) error { return f.readMinf(t, typ, p) })
	}
	return nil
}

func (f *file) readMinf(t *trak, typ string, p []byte) error {
	switch typ {
	case "vmhd", "smhd":
		if t.vmhd != nil || t.smhd != nil {
			return errorf("duplicate vmhd/smhd box")
		}
		if typ == "vmhd" {
			t.vmhd = p
		} else {
			t.smhd = p
		}
	case "dinf":
		if t.dinf != nil {
			return errorf("duplicate dinf box")
		}
		t.dinf = p
	case "stbl":
		if t.stblSeen {
			return errorf("duplicate stbl box")
		}
		t.stblSeen = true
		return eachBox(p, func(typ string, p []byte) error { return f.readStbl(t, typ, p) })
	}
	return nil
}

// readTable reads a box of a version, flags, an entry count and count
// entries of size bytes each.
func readTable[T any](tb *table[T], name string, p []byte, size int, dec func([]byte) T) error {
	if len(p) < 8 {
		return errorf("%s box too small", name)
	}
	n := uint64(be.Uint32(p[4:]))
	if n*uint64(size) > uint64(len(p)-8) {
		return errorf("%s box too small for its %d entries", name, n)
	}
	if tb.present {
		return errorf("duplicate %s box", name)
	}
	tb.present = true
	copy(tb.vf[:], p)
	tb.e = make([]T, n)
	for i := range tb.e {
		tb.e[i] = dec(p[8+i*size:])
	}
	return nil
}

func (f *file) readStbl(t *trak, typ string, p []byte) error {
	switch typ {
	case "stsd":
		if len(p) < 16 {
			return errorf("stsd box too small")
		}
		if t.stsd != nil {
			return errorf("duplicate stsd box")
		}
		t.stsd = p
		t.size += 8 + int64(len(p))
	case "stts":
		return readTable(&t.stts, "stts", p, 8, func(b []byte) sttsEntry { return sttsEntry{be.Uint32(b), be.Uint32(b[4:])} })
	case "stss":
		return readTable(&t.stss, "stss", p, 4, be.Uint32)
	case "ctts":
		return readTable(&t.ctts, "ctts", p, 8, func(b []byte) cttsEntry { return cttsEntry{be.Uint32(b), be.Uint32(b[4:])} })
	case "stsc":
		return readTable(&t.stsc, "stsc", p, 12, func(b []byte) stscEntry {
			return stscEntry{be.Uint32(b), be.Uint32(b[4:]), be.Uint32(b[8:])}
		})
	case "stsz":
		if len(p) < 12 {
			return errorf("stsz box too small")
		}
		if t.stsz.present || t.stszUniform != nil {
			return errorf("duplicate stsz box")
		}
		if be.Uint32(p[4:]) != 0 {
			// One size for every sample: the box goes as it is.
			t.stszUniform = p
			t.size += 8 + int64(len(p))
			return nil
		}
		q := append([]byte(nil), p[:4]...)
		q = append(q, p[8:]...) // the table without the uniform size
		if err := readTable(&t.stsz, "stsz", q, 4, be.Uint32); err != nil {
			return err
		}
	case "stco", "co64":
		if t.stco.present || t.co64.present {
			return errorf("duplicate stco/co64 box")
		}
		if typ == "stco" {
			if err := readTable(&t.stco, "stco", p, 4, be.Uint32); err != nil {
				return err
			}
			t.chunks = uint32(len(t.stco.e))
		} else {
			if err := readTable(&t.co64, "co64", p, 8, be.Uint64); err != nil {
				return err
			}
			t.chunks = uint32(len(t.co64.e))
		}
	}
	return nil
}
