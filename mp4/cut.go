package mp4

import "math"

// cut crops every track's tables to the samples kept and lays out the
// answer.
func (f *file) cut() (Cut, error) {
	startOffset, endOffset := f.end, int64(0)
	for _, t := range f.traks {
		if err := f.cropTrak(t); err != nil {
			return Cut{}, err
		}
		startOffset = min(startOffset, t.startOffset)
		endOffset = max(endOffset, t.endOffset)
	}
	if endOffset <= startOffset {
		return Cut{}, errorf("no data between start time and end time")
	}
	if startOffset >= f.mdatEnd {
		return Cut{}, errorf("start time is out of the mdat box")
	}

	moovSize := int64(8)
	if f.mvhd != nil {
		moovSize += 8 + int64(len(f.mvhd))
	}
	for _, t := range f.traks {
		moovSize += t.size
	}
	mdatData := endOffset - startOffset
	mdatHeader := int64(8)
	if uint64(mdatData) > math.MaxUint32-8 {
		mdatHeader = 16
	}
	adjustment := int64(len(f.ftyp)) + moovSize + mdatHeader - startOffset
	for _, t := range f.traks {
		for i := range t.stco.e {
			t.stco.e[i] += uint32(adjustment)
		}
		for i := range t.co64.e {
			t.co64.e[i] += uint64(adjustment)
		}
	}

	head := make([]byte, 0, int64(len(f.ftyp))+moovSize+mdatHeader)
	head = append(head, f.ftyp...)
	head = be.AppendUint32(head, uint32(moovSize))
	head = append(head, "moov"...)
	if f.mvhd != nil {
		head = appendBox(head, "mvhd", f.mvhd)
	}
	for _, t := range f.traks {
		head = t.append(head)
	}
	if mdatHeader == 16 {
		head = be.AppendUint32(head, 1)
		head = append(head, "mdat"...)
		head = be.AppendUint64(head, uint64(16+mdatData))
	} else {
		head = be.AppendUint32(head, uint32(8+mdatData))
		head = append(head, "mdat"...)
	}
	return Cut{Head: head, From: startOffset, To: endOffset}, nil
}

// cropTrak crops t's tables and sums the sizes of its boxes, in NGINX's
// order.
func (f *file) cropTrak(t *trak) error {
	if !t.stts.present {
		return errorf("no stts box")
	}
	if err := f.cropStts(t, true); err != nil {
		return err
	}
	if err := f.cropStts(t, false); err != nil {
		return err
	}
	t.size += 16 + 8*int64(len(t.stts.e))

	if t.stss.present {
		f.cropStss(t, true)
		f.cropStss(t, false)
		for i := range t.stss.e {
			t.stss.e[i] -= uint32(t.startSample)
		}
		t.size += 16 + 4*int64(len(t.stss.e))
	}

	if t.ctts.present {
		f.cropCtts(t, true)
		f.cropCtts(t, false)
		if len(t.ctts.e) == 0 {
			t.ctts.present = false
		} else {
			t.size += 16 + 8*int64(len(t.ctts.e))
		}
	}

	if !t.stsc.present {
		return errorf("no stsc box")
	}
	if len(t.stsc.e) == 0 {
		return errorf("zero entries in stsc box")
	}
	if err := f.cropStsc(t, true); err != nil {
		return err
	}
	if err := f.cropStsc(t, false); err != nil {
		return err
	}
	for i := range t.stsc.e {
		t.stsc.e[i].chunk -= uint32(t.startChunk)
	}
	t.size += 16 + 12*int64(t.stscCount())

	if err := f.cropStsz(t); err != nil {
		return err
	}
	if err := f.cropChunks(t); err != nil {
		return err
	}

	t.size += 8
	t.stblSize = t.size
	t.size += 8 + boxLen(t.vmhd) + boxLen(t.smhd) + boxLen(t.dinf)
	t.minfSize = t.size
	if t.mdhd != nil {
		if t.mdhd[0] == 0 {
			be.PutUint32(t.mdhd[16:], uint32(t.duration))
		} else {
			be.PutUint64(t.mdhd[24:], t.duration)
		}
		t.size += 8 + int64(len(t.mdhd))
	}
	t.size += boxLen(t.hdlr)
	t.size += 8
	t.mdiaSize = t.size
	t.size += boxLen(t.tkhd)
	if t.prefix != 0 {
		t.size += 8 + elstSize
	}
	t.size += 8 // trak
	return nil
}

// boxLen is the size of the box of payload p, 0 when it is absent.
func boxLen(p []byte) int64 {
	if p == nil {
		return 0
	}
	return 8 + int64(len(p))
}

const elstSize = 36

func (t *trak) stscCount() int {
	n := len(t.stsc.e)
	if t.stscStart != nil {
		n++
	}
	if t.stscEnd != nil {
		n++
	}
	return n
}

// append writes the track's boxes in NGINX's order.
func (t *trak) append(b []byte) []byte {
	b = be.AppendUint32(b, uint32(t.size))
	b = append(b, "trak"...)
	if t.tkhd != nil {
		b = appendBox(b, "tkhd", t.tkhd)
	}
	if t.prefix != 0 {
		b = be.AppendUint32(b, 8+elstSize)
		b = append(b, "edts"...)
		b = be.AppendUint32(b, elstSize)
		b = append(b, "elst"...)
		b = append(b, 1, 0, 0, 0) // version 1, no flags
		b = be.AppendUint32(b, 1) // one entry
		b = be.AppendUint64(b, t.movieDuration)
		b = be.AppendUint64(b, t.prefix)
		b = append(b, 0, 1, 0, 0) // media rate 1, as NGINX writes it
	}
	b = be.AppendUint32(b, uint32(t.mdiaSize))
	b = append(b, "mdia"...)
	if t.mdhd != nil {
		b = appendBox(b, "mdhd", t.mdhd)
	}
	if t.hdlr != nil {
		b = appendBox(b, "hdlr", t.hdlr)
	}
	b = be.AppendUint32(b, uint32(t.minfSize))
	b = append(b, "minf"...)
	for _, x := range []struct {
		typ string
		p   []byte
	}{{"vmhd", t.vmhd}, {"smhd", t.smhd}, {"dinf", t.dinf}} {
		if x.p != nil {
			b = appendBox(b, x.typ, x.p)
		}
	}
	b = be.AppendUint32(b, uint32(t.stblSize))
	b = append(b, "stbl"...)
	if t.stsd != nil {
		b = appendBox(b, "stsd", t.stsd)
	}
	b = tableHeader(b, "stts", t.stts.vf, 8, len(t.stts.e))
	for _, e := range t.stts.e {
		b = be.AppendUint32(be.AppendUint32(b, e.count), e.delta)
	}
	if t.stss.present {
		b = tableHeader(b, "stss", t.stss.vf, 4, len(t.stss.e))
		for _, e := range t.stss.e {
			b = be.AppendUint32(b, e)
		}
	}
	if t.ctts.present {
		b = tableHeader(b, "ctts", t.ctts.vf, 8, len(t.ctts.e))
		for _, e := range t.ctts.e {
			b = be.AppendUint32(be.AppendUint32(b, e.count), e.offset)
		}
	}
	b = tableHeader(b, "stsc", t.stsc.vf, 12, t.stscCount())
	for _, e := range t.stscEntries() {
		b = be.AppendUint32(be.AppendUint32(be.AppendUint32(b, e.chunk), e.samples), e.id)
	}
	if t.stszUniform != nil {
		// The box as it is. NGINX sends only its first 12 bytes of
		// data but counts them all in moov's size and Content-Length,
		// which a box with bytes past its header makes a short body.
		b = appendBox(b, "stsz", t.stszUniform)
	} else if t.stsz.present {
		b = be.AppendUint32(b, uint32(20+4*len(t.stsz.e)))
		b = append(b, "stsz"...)
		b = append(b, t.stsz.vf[:]...)
		b = be.AppendUint32(b, 0)
		b = be.AppendUint32(b, uint32(len(t.stsz.e)))
		for _, e := range t.stsz.e {
			b = be.AppendUint32(b, e)
		}
	}
	if t.co64.present {
		b = tableHeader(b, "co64", t.co64.vf, 8, len(t.co64.e))
		for _, e := range t.co64.e {
			b = be.AppendUint64(b, e)
		}
	} else {
		b = tableHeader(b, "stco", t.stco.vf, 4, len(t.stco.e))
		for _, e := range t.stco.e {
			b = be.AppendUint32(b, e)
		}
	}
	return b
}
