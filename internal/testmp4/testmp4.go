// Package testmp4 writes small MP4 files for tests: a video track with
// key frames, composition offsets and chunks of varied sample counts, and
// an audio track with one sample size, their samples interleaved in mdat
// by chunk, as an encoder lays them out.
package testmp4

import "encoding/binary"

// Options vary the file.
type Options struct {
	MoovFirst bool // moov before mdat (a "fast start" file)
	Co64      bool // 64-bit chunk offsets
	Version1  bool // 64-bit times in mvhd, tkhd and mdhd
	// Short makes a file of 30 video and 10 audio samples (1.2 s), for
	// seeds of fuzz targets, whose mutations and shrinking take time in
	// proportion to the input.
	Short bool
}

var be = binary.BigEndian

func box(typ string, parts ...[]byte) []byte {
	n := 8
	for _, p := range parts {
		n += len(p)
	}
	b := be.AppendUint32(make([]byte, 0, n), uint32(n))
	b = append(b, typ...)
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func u32s(vs ...uint32) []byte {
	var b []byte
	for _, v := range vs {
		b = be.AppendUint32(b, v)
	}
	return b
}

// track is what the builder knows of a track.
type track struct {
	handler     string
	timescale   uint32
	deltas      []uint32 // per sample
	sizes       []uint32 // per sample
	uniform     uint32   // one size for all, or 0
	sync        []uint32 // 1-based, nil: every sample
	ctts        [][2]uint32
	chunkCounts []uint32 // samples per chunk
}

func (t *track) duration() uint64 {
	var d uint64
	for _, x := range t.deltas {
		d += uint64(x)
	}
	return d
}

func video(n int) *track {
	t := &track{handler: "vide", timescale: 1000}
	for i := 0; i < n; i++ {
		d := uint32(40)
		if i >= 120 {
			d = 38
		}
		t.deltas = append(t.deltas, d)
		t.sizes = append(t.sizes, uint32(50+(i*37)%90))
	}
	for s := 1; s <= n; s += 25 {
		t.sync = append(t.sync, uint32(s))
	}
	for k := 0; k < n; {
		c := min(1+k%3, n-k)
		t.ctts = append(t.ctts, [2]uint32{uint32(c), uint32(40 * (k % 4))})
		k += c
	}
	for k := 0; k < n; {
		c := 10
		switch {
		case k >= n*4/5:
			c = 3
		case k >= n/5:
			c = 7
		}
		c = min(c, n-k)
		t.chunkCounts = append(t.chunkCounts, uint32(c))
		k += c
	}
	return t
}

func audio(n int) *track {
	t := &track{handler: "soun", timescale: 8000, uniform: 24}
	for i := 0; i < n; i++ {
		t.deltas = append(t.deltas, 1024)
		t.sizes = append(t.sizes, 24)
	}
	for k := 0; k < n; {
		c := min(4, n-k)
		t.chunkCounts = append(t.chunkCounts, uint32(c))
		k += c
	}
	return t
}

// Build returns the file.
func Build(o Options) []byte {
	tracks := []*track{video(250), audio(78)}
	if o.Short {
		tracks = []*track{video(30), audio(10)}
	}
	ftyp := box("ftyp", []byte("isom"), u32s(512), []byte("isomavc1"))
	// The chunks, interleaved track by track, and their offsets from the
	// start of mdat's data.
	var data []byte
	offsets := make([][]uint64, len(tracks))
	next := make([]int, len(tracks)) // next chunk
	sample := make([]int, len(tracks))
	for more := true; more; {
		more = false
		for ti, t := range tracks {
			if next[ti] == len(t.chunkCounts) {
				continue
			}
			more = true
			offsets[ti] = append(offsets[ti], uint64(len(data)))
			for k := uint32(0); k < t.chunkCounts[next[ti]]; k++ {
				for j := uint32(0); j < t.sizes[sample[ti]]; j++ {
					data = append(data, byte(ti*100+sample[ti]+int(j)))
				}
				sample[ti]++
			}
			next[ti]++
		}
	}
	moov := func(base uint64) []byte {
		var traks [][]byte
		for ti, t := range tracks {
			traks = append(traks, t.trak(uint32(ti+1), offsets[ti], base, o))
		}
		movie := tracks[0].duration() * 1000 / uint64(tracks[0].timescale)
		return box("moov", append([][]byte{mvhd(movie, o)}, traks...)...)
	}
	// The offsets depend on moov's size, which does not: build it once
	// to measure, once for good.
	mdatHeader := uint64(8)
	if o.MoovFirst {
		m := moov(0)
		m = moov(uint64(len(ftyp)+len(m)) + mdatHeader)
		return append(append(ftyp, m...), box("mdat", data)...)
	}
	out := append(ftyp, box("free", []byte("pad"))...)
	base := uint64(len(out)) + mdatHeader
	out = append(out, box("mdat", data)...)
	return append(out, moov(base)...)
}

func fullBox(typ string, version byte, parts ...[]byte) []byte {
	return box(typ, append([][]byte{{version, 0, 0, 0}}, parts...)...)
}

// mvhd is the movie header: times zero, a timescale of 1000.
func mvhd(duration uint64, o Options) []byte {
	rest := make([]byte, 4+2+10+36+24+4)
	be.PutUint32(rest, 0x00010000) // rate
	be.PutUint32(rest[len(rest)-4:], 3)
	if o.Version1 {
		return fullBox("mvhd", 1, make([]byte, 16), u32s(1000), be.AppendUint64(nil, duration), rest)
	}
	return fullBox("mvhd", 0, make([]byte, 8), u32s(1000, uint32(duration)), rest)
}

func (t *track) trak(id uint32, offsets []uint64, base uint64, o Options) []byte {
	movie := t.duration() * 1000 / uint64(t.timescale)
	tail := make([]byte, 8+2+2+2+2+36+8)
	var tkhd, mdhd []byte
	if o.Version1 {
		tkhd = fullBox("tkhd", 1, make([]byte, 16), u32s(id, 0), be.AppendUint64(nil, movie), tail)
		mdhd = fullBox("mdhd", 1, make([]byte, 16), u32s(t.timescale), be.AppendUint64(nil, t.duration()), u32s(0x55c40000))
	} else {
		tkhd = fullBox("tkhd", 0, make([]byte, 8), u32s(id, 0, uint32(movie)), tail)
		mdhd = fullBox("mdhd", 0, make([]byte, 8), u32s(t.timescale, uint32(t.duration()), 0x55c40000))
	}
	hdlr := fullBox("hdlr", 0, u32s(0), []byte(t.handler), make([]byte, 12), []byte("h\x00"))
	var mhd []byte
	if t.handler == "vide" {
		mhd = fullBox("vmhd", 0, make([]byte, 8))
	} else {
		mhd = fullBox("smhd", 0, make([]byte, 4))
	}
	dinf := box("dinf", fullBox("dref", 0, u32s(1), fullBox("url ", 0)))
	stsd := fullBox("stsd", 0, u32s(1), box("mp4v", make([]byte, 16)))

	var stts [][2]uint32
	for _, d := range t.deltas {
		if n := len(stts); n > 0 && stts[n-1][1] == d {
			stts[n-1][0]++
		} else {
			stts = append(stts, [2]uint32{1, d})
		}
	}
	pairs := func(typ string, es [][2]uint32) []byte {
		b := u32s(uint32(len(es)))
		for _, e := range es {
			b = be.AppendUint32(be.AppendUint32(b, e[0]), e[1])
		}
		return fullBox(typ, 0, b)
	}
	boxes := [][]byte{stsd, pairs("stts", stts)}
	if t.sync != nil {
		boxes = append(boxes, fullBox("stss", 0, u32s(uint32(len(t.sync))), u32s(t.sync...)))
	}
	if t.ctts != nil {
		boxes = append(boxes, pairs("ctts", t.ctts))
	}
	stsc := u32s(0)
	var runs uint32
	for i, c := range t.chunkCounts {
		if i == 0 || c != t.chunkCounts[i-1] {
			stsc = append(stsc, u32s(uint32(i+1), c, 1)...)
			runs++
		}
	}
	be.PutUint32(stsc, runs)
	boxes = append(boxes, fullBox("stsc", 0, stsc))
	if t.uniform != 0 {
		boxes = append(boxes, fullBox("stsz", 0, u32s(t.uniform, uint32(len(t.sizes)))))
	} else {
		boxes = append(boxes, fullBox("stsz", 0, u32s(0, uint32(len(t.sizes))), u32s(t.sizes...)))
	}
	if o.Co64 {
		b := u32s(uint32(len(offsets)))
		for _, off := range offsets {
			b = be.AppendUint64(b, base+off)
		}
		boxes = append(boxes, fullBox("co64", 0, b))
	} else {
		b := u32s(uint32(len(offsets)))
		for _, off := range offsets {
			b = be.AppendUint32(b, uint32(base+off))
		}
		boxes = append(boxes, fullBox("stco", 0, b))
	}
	stbl := box("stbl", boxes...)
	minf := box("minf", mhd, dinf, stbl)
	mdia := box("mdia", mdhd, hdlr, minf)
	edts := box("edts", fullBox("elst", 0, u32s(1, uint32(movie), 0, 0x00010000)))
	return box("trak", tkhd, edts, mdia)
}
