package mp4

// The croppers follow NGINX's arithmetic where it wraps (32-bit products
// of counts and durations), so that the tables come out the same; where
// NGINX would read outside a table, they refuse the file.

// tableHeader appends the header of a full box with n entries of size
// bytes.
func tableHeader(b []byte, typ string, vf [4]byte, size, n int) []byte {
	b = be.AppendUint32(b, uint32(16+size*n))
	b = append(b, typ...)
	b = append(b, vf[:]...)
	return be.AppendUint32(b, uint32(n))
}

// cropStts finds the first sample (start) or the end sample of t from
// the time-to-sample table and cuts the table there.
func (f *file) cropStts(t *trak, start bool) error {
	var ms uint64
	switch {
	case start:
		ms = f.startMS
	case f.length != 0:
		ms = f.length
	default:
		return nil
	}
	e := t.stts.e
	tm := scaled(ms, t.timescale) + t.prefix
	var sample uint64
	i := 0
	var rest uint32
	for ; i < len(e); i++ {
		count, delta := e[i].count, e[i].delta
		if tm < uint64(count)*uint64(delta) {
			sample += tm / uint64(delta)
			rest = uint32(tm / uint64(delta))
			break
		}
		sample += uint64(count)
		tm -= uint64(count * delta) // NGINX's 32-bit product
	}
	if i == len(e) {
		if start {
			return errorf("start time is out of the stts samples")
		}
		t.endSample = t.startSample + sample
		return nil
	}
	if !start {
		e[i].count = rest
		t.stts.e = e[:i+1]
		t.endSample = t.startSample + sample
		return nil
	}
	keyPrefix, err := f.seekKeyFrame(t, uint32(sample))
	if err != nil {
		return err
	}
	sample -= uint64(keyPrefix)
	count, delta := e[i].count, e[i].delta
	for rest < keyPrefix {
		t.prefix += uint64(rest * delta)
		keyPrefix -= rest
		if i == 0 {
			return errorf("key frame before the stts samples")
		}
		i--
		count, delta = e[i].count, e[i].delta
		rest = count
	}
	t.prefix += uint64(keyPrefix * delta)
	t.duration += t.prefix
	rest -= keyPrefix
	e[i].count = count - rest
	t.stts.e = e[i:]
	t.startSample = sample
	return nil
}

// seekKeyFrame is how many samples before sample (0-based) the key frame
// at or before it is, with mp4_start_key_frame; 0 without.
func (f *file) seekKeyFrame(t *trak, sample uint32) (uint32, error) {
	if !f.opts.StartKeyFrame || !t.stss.present {
		return 0, nil
	}
	sample++ // sync samples count from 1
	var prefix uint32
	for _, s := range t.stss.e {
		if s == 0 {
			return 0, errorf("zero sync sample")
		}
		if s > sample {
			break
		}
		prefix = sample - s
	}
	return prefix, nil
}

// cropStss keeps the sync samples from the first sample (start) or up to
// the end sample.
func (f *file) cropStss(t *trak, start bool) {
	var first uint32
	switch {
	case start:
		first = uint32(t.startSample + 1)
	case f.length != 0:
		first = uint32(t.endSample + 1)
	default:
		return
	}
	e := t.stss.e
	i := 0
	for i < len(e) && e[i] < first {
		i++
	}
	if start {
		t.stss.e = e[i:]
	} else {
		t.stss.e = e[:i]
	}
}

// cropCtts cuts the composition offsets at the first sample (start) or
// the end sample.
func (f *file) cropCtts(t *trak, start bool) {
	var sample uint32
	switch {
	case start:
		sample = uint32(t.startSample + 1)
	case f.length != 0:
		sample = uint32(t.endSample - t.startSample + 1)
	default:
		return
	}
	e := t.ctts.e
	for i := range e {
		count := e[i].count
		if sample <= count {
			rest := sample - 1
			if start {
				e[i].count = count - rest
				t.ctts.e = e[i:]
			} else {
				e[i].count = rest
				t.ctts.e = e[:i+1]
			}
			return
		}
		sample -= count
	}
	if start {
		t.ctts.e = e[len(e):]
	}
}

// stscEntries is the sample-to-chunk table as it is sent.
func (t *trak) stscEntries() []stscEntry {
	out := make([]stscEntry, 0, t.stscCount())
	if t.stscStart != nil {
		out = append(out, *t.stscStart)
	}
	out = append(out, t.stsc.e...)
	if t.stscEnd != nil {
		out = append(out, *t.stscEnd)
	}
	return out
}

// cropStsc finds the chunk of the first sample (start) or of the end
// sample, and how many of its samples come before it, and cuts the
// sample-to-chunk table there; a chunk cut inside gets an entry of its
// own.
func (f *file) cropStsc(t *trak, start bool) error {
	var sample uint32
	switch {
	case start:
		sample = uint32(t.startSample)
	case f.length != 0:
		sample = uint32(t.endSample - t.startSample)
		if t.stscStart != nil {
			n := t.stscStart.samples
			if n > sample {
				n = sample
				t.stscStart.samples = n
			}
			sample -= n
		}
	default:
		return nil
	}
	e := t.stsc.e
	if len(e) == 0 {
		return errorf("stsc box empty after its start")
	}
	chunk, samples, id := e[0].chunk, e[0].samples, e[0].id
	var prevSamples uint32
	i := 1
	found := false
	for ; i < len(e); i++ {
		next := e[i].chunk
		if next < chunk {
			return errorf("unordered stsc chunks")
		}
		n := uint64(next-chunk) * uint64(samples)
		if uint64(sample) < n {
			found = true
			break
		}
		sample -= uint32(n)
		if next > chunk {
			prevSamples = samples
		}
		chunk, samples, id = next, e[i].samples, e[i].id
	}
	var next uint32
	if !found {
		next = t.chunks + 1
		if next < chunk {
			return errorf("unordered stsc chunks")
		}
		if uint64(sample) > uint64(next-chunk)*uint64(samples) {
			if start {
				return errorf("start time is out of the stsc chunks")
			}
			return errorf("end time is out of the stsc chunks")
		}
	} else {
		next = e[i].chunk
	}
	cur := i - 1 // the entry of the run that holds the sample
	if samples == 0 {
		return errorf("zero samples per chunk in stsc box")
	}
	if chunk == 0 {
		return errorf("zero chunk in stsc box")
	}
	target := uint64(chunk-1) + uint64(sample/samples)
	chunkSamples := sample % samples
	if start {
		t.stsc.e = e[cur:]
		cur = 0
		t.startChunk = target
		t.startChunkSamples = uint64(chunkSamples)
		t.stsc.e[0].chunk = uint32(target + 1)
		samples -= chunkSamples
	} else {
		if sample != 0 {
			t.stsc.e = e[:cur+1]
			t.endChunkSamples = uint64(samples)
		} else {
			t.stsc.e = e[:cur]
			t.endChunkSamples = uint64(prevSamples)
		}
		if chunkSamples != 0 {
			t.endChunk = target + 1
			t.endChunkSamples = uint64(chunkSamples)
		} else {
			t.endChunk = target
		}
		samples = chunkSamples
		next = chunk + 1
	}
	switch {
	case chunkSamples != 0 && uint64(next)-target == 2:
		t.stsc.e[cur].samples = samples
	case chunkSamples != 0 && start:
		t.stscStart = &stscEntry{chunk: 1, samples: samples, id: id}
		t.stsc.e[cur].chunk = uint32(t.startChunk + 2)
	case chunkSamples != 0:
		t.stscEnd = &stscEntry{chunk: uint32(t.endChunk - t.startChunk), samples: samples, id: id}
	}
	return nil
}

// cropStsz keeps the sizes of the samples kept and sums those of the
// samples of the first and last chunks that are cut off.
func (f *file) cropStsz(t *trak) error {
	if !t.stsz.present {
		return nil
	}
	e := t.stsz.e
	if t.startSample >= uint64(len(e)) {
		return errorf("start time is out of the stsz samples")
	}
	if t.startChunkSamples > t.startSample {
		return errorf("stsc and stsz boxes disagree")
	}
	for _, s := range e[t.startSample-t.startChunkSamples : t.startSample] {
		t.startChunkSize += uint64(s)
	}
	if t.startChunkSize > uint64(f.end) {
		return errorf("too large start samples size")
	}
	e = e[t.startSample:]
	if f.length != 0 {
		n := t.endSample - t.startSample
		if t.endSample < t.startSample || n > uint64(len(e)) {
			return errorf("end time is out of the stsz samples")
		}
		e = e[:n]
		if t.endChunkSamples > n {
			return errorf("stsc and stsz boxes disagree")
		}
		for _, s := range e[n-t.endChunkSamples:] {
			t.endChunkSize += uint64(s)
		}
		if t.endChunkSize > uint64(f.end) {
			return errorf("too large end samples size")
		}
	}
	t.stsz.e = e
	t.size += 20 + 4*int64(len(e))
	return nil
}

// cropChunks keeps the offsets of the chunks kept, the first moved past
// the samples cut off, and finds the track's bytes in the file.
func (f *file) cropChunks(t *trak) error {
	wide := t.co64.present
	if !wide && !t.stco.present {
		return errorf("no stco box")
	}
	n := uint64(len(t.stco.e))
	if wide {
		n = uint64(len(t.co64.e))
	}
	if t.startChunk >= n {
		// NGINX reads the offset past the table when the start chunk
		// is its end.
		return errorf("start time is out of the chunk offsets")
	}
	var entries uint64
	if f.length != 0 {
		if t.endChunk > n || t.endChunk < t.startChunk {
			return errorf("end time is out of the chunk offsets")
		}
		entries = t.endChunk - t.startChunk
	} else {
		entries = n - t.startChunk
	}
	// The table keeps the chunks kept; its first offset moves past the
	// samples cut off, and the last one is read after that, as NGINX
	// does (a single chunk's end is counted from its new start).
	var at func(i uint64) uint64
	var set func(i, v uint64)
	first := t.startChunk
	if wide {
		at, set = func(i uint64) uint64 { return t.co64.e[i] }, func(i, v uint64) { t.co64.e[i] = v }
	} else {
		at = func(i uint64) uint64 { return uint64(t.stco.e[i]) }
		set = func(i, v uint64) { t.stco.e[i] = uint32(v) }
	}
	offset, size := at(first), t.startChunkSize
	if offset > uint64(f.end)-size || !wide && offset+size > 0xffffffff {
		return errorf("too large chunk offset")
	}
	t.startOffset = int64(offset + size)
	set(first, offset+size)
	if f.length == 0 {
		t.endOffset = f.mdatEnd
	} else if entries > 0 {
		offset, size = at(first+entries-1), t.endChunkSize
		if offset > uint64(f.end)-size || !wide && offset+size > 0xffffffff {
			return errorf("too large chunk offset")
		}
		t.endOffset = int64(offset + size)
	}
	entrySize := int64(4)
	if wide {
		t.co64.e = t.co64.e[first : first+entries]
		entrySize = 8
	} else {
		t.stco.e = t.stco.e[first : first+entries]
	}
	if entries == 0 {
		t.startOffset, t.endOffset = f.end, 0
	}
	t.size += 16 + int64(entries)*entrySize
	return nil
}
