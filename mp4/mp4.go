// Package mp4 cuts an MP4 file between two times as NGINX's mp4 module
// does for "?start=&end=": the moov box rebuilt for the samples kept and
// the mdat box cut to their bytes, so that a player starts at the time
// asked for without reading the file before it.
//
// The file is untrusted input: every box size is checked against its
// parent and the file, every table's count against its box, and no more
// than Options.MaxBufferSize (plus 4 KB) of the file is held in memory,
// whatever the file says.
package mp4

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Options are the mp4 module's settings.
type Options struct {
	// BufferSize is how much of the file is read at once while the boxes
	// before moov are walked (mp4_buffer_size); 0 means 512 KB.
	BufferSize int64
	// MaxBufferSize bounds the moov box read into memory
	// (mp4_max_buffer_size); 0 means 10 MB. A larger moov is an error.
	MaxBufferSize int64
	// StartKeyFrame starts every track at the key frame before the start
	// time, with an edit list that hides the samples before the start
	// (mp4_start_key_frame).
	StartKeyFrame bool
}

// ErrWhole is returned when the file is to be sent as it is: its moov box
// comes before its mdat box and the request asks for all of it (start 0,
// no end).
var ErrWhole = errors.New("mp4: whole file")

// Cut is the answer: Head (ftyp, the new moov and the mdat box's header),
// then the file's bytes [From, To).
type Cut struct {
	Head     []byte
	From, To int64
}

// moovExcess is what NGINX reads past a moov box that comes before mdat,
// to walk on to mdat without another read.
const moovExcess = 4 << 10

// file is the walk over the top-level boxes, through a buffer as NGINX's
// reads go: the errors for truncated files and for an ftyp beyond the
// buffer depend on it.
type file struct {
	r       io.ReaderAt
	end     int64
	opts    Options
	startMS uint64
	length  uint64

	off     int64 // where the walk is
	bufSize int64
	buf     []byte
	bufOff  int64 // the file offset of buf[0]
	pinned  bool  // buf holds the moov box, which the tracks point into

	ftyp      []byte
	moovSeen  bool
	mdatSeen  bool
	mdatEnd   int64
	timescale uint32
	mvhd      []byte
	traks     []*trak
}

// errorf makes the error of a file NGINX refuses (500).
func errorf(format string, a ...any) error { return fmt.Errorf("mp4: "+format, a...) }

// read makes n bytes from f.off available in the buffer, reading
// bufSize bytes (at most to the end of the file) when they are not.
func (f *file) read(n int64) error {
	if f.off >= f.bufOff && f.off+n <= f.bufOff+int64(len(f.buf)) {
		return nil
	}
	if f.off+f.bufSize > f.end {
		f.bufSize = f.end - f.off
	}
	if f.bufSize < n {
		return errorf("file truncated")
	}
	if !f.pinned && int64(cap(f.buf)) >= f.bufSize {
		f.buf = f.buf[:f.bufSize]
	} else {
		// A new buffer leaves the pinned moov box alone, and nothing
		// points into the new one: the reads after it reuse it.
		f.buf, f.pinned = make([]byte, f.bufSize), false
	}
	if _, err := f.r.ReadAt(f.buf, f.off); err != nil && !(errors.Is(err, io.EOF)) {
		return fmt.Errorf("mp4: read: %w", err)
	} else if err != nil {
		return errorf("file truncated")
	}
	f.bufOff = f.off
	return nil
}

// at returns n buffered bytes from the file offset off.
func (f *file) at(off, n int64) []byte {
	i := off - f.bufOff
	return f.buf[i : i+n]
}

// header reads the box header at f.off, bounded by end: its type, the
// size of its header and the size of the whole box; size 0 ends the walk
// of this level, as NGINX reads it.
func (f *file) header(end int64) (typ [4]byte, hsize, size int64, err error) {
	if err := f.read(4); err != nil {
		return typ, 0, 0, err
	}
	size = int64(binary.BigEndian.Uint32(f.at(f.off, 4)))
	hsize = 8
	if size == 0 {
		return typ, 0, 0, nil
	}
	if size < 8 {
		if size != 1 {
			return typ, 0, 0, errorf("box is too small: %d", size)
		}
		if err := f.read(16); err != nil {
			return typ, 0, 0, err
		}
		big := binary.BigEndian.Uint64(f.at(f.off+8, 8))
		if big < 16 || big > 1<<62 {
			return typ, 0, 0, errorf("box is too small or too large: %d", big)
		}
		size, hsize = int64(big), 16
	}
	if err := f.read(8); err != nil {
		return typ, 0, 0, err
	}
	// An array, not a string: a file of many small boxes costs no
	// allocation per box.
	copy(typ[:], f.at(f.off+4, 4))
	if size > end-f.off {
		return typ, 0, 0, errorf("%q box too large: %d", string(typ[:]), size)
	}
	return typ, hsize, size, nil
}

// Process cuts the file r, size bytes long, to the times startMS and
// startMS+lengthMS (lengthMS 0: to the end). It returns ErrWhole when
// the file goes whole, and another error for a file NGINX refuses (a
// 500): not an MP4 file, a moov box larger than MaxBufferSize, a start
// past the end, tables that contradict each other.
func Process(r io.ReaderAt, size int64, startMS, lengthMS uint64, opts Options) (Cut, error) {
	if opts.BufferSize <= 0 {
		opts.BufferSize = 512 << 10
	}
	if opts.MaxBufferSize <= 0 {
		opts.MaxBufferSize = 10 << 20
	}
	f := &file{r: r, end: size, opts: opts, startMS: startMS, length: lengthMS, bufSize: opts.BufferSize}
	if err := f.walk(); err != nil {
		return Cut{}, err
	}
	if len(f.traks) == 0 {
		return Cut{}, errorf("no trak boxes")
	}
	if !f.mdatSeen {
		return Cut{}, errorf("no mdat box")
	}
	return f.cut()
}

// walk reads the top-level boxes: ftyp, moov and mdat; the others are
// left out of the answer.
func (f *file) walk() error {
	for f.off < f.end {
		typ, hsize, size, err := f.header(f.end)
		if err != nil || size == 0 {
			return err
		}
		dataOff, dataSize := f.off+hsize, size-hsize
		switch string(typ[:]) {
		case "ftyp":
			f.off = dataOff
			if dataSize > 1024 || dataOff+dataSize > f.bufOff+int64(len(f.buf)) {
				return errorf("ftyp box is too large: %d", dataSize)
			}
			if f.ftyp != nil {
				return errorf("duplicate ftyp box")
			}
			f.ftyp = appendBox(nil, "ftyp", f.at(dataOff, dataSize))
			f.off += dataSize
		case "moov":
			f.off = dataOff
			if err := f.moov(dataSize); err != nil {
				return err
			}
		case "mdat":
			if f.mdatSeen {
				return errorf("duplicate mdat box")
			}
			f.mdatSeen, f.mdatEnd = true, dataOff+dataSize
			if len(f.traks) > 0 {
				return nil // nothing after mdat is needed
			}
			f.off = dataOff + dataSize
		default:
			f.off += size
		}
	}
	return nil
}

// moov reads the moov box whose data starts at f.off into memory and
// parses it.
func (f *file) moov(dataSize int64) error {
	noMdat := !f.mdatSeen
	if noMdat && f.startMS == 0 && f.length == 0 {
		return ErrWhole
	}
	if f.moovSeen {
		return errorf("duplicate moov box")
	}
	f.moovSeen = true
	if dataSize > f.bufSize {
		if dataSize > f.opts.MaxBufferSize {
			return errorf("moov box is too large: %d, over mp4_max_buffer_size", dataSize)
		}
		f.buf, f.bufOff = nil, 0
		f.bufSize = dataSize
		if noMdat {
			f.bufSize += moovExcess
		}
	}
	if err := f.read(dataSize); err != nil {
		return err
	}
	// The tracks point into the buffer: a later read gets one of its own.
	data := f.at(f.off, dataSize)
	f.pinned = true
	if err := f.parseMoov(data); err != nil {
		return err
	}
	f.off += dataSize
	if !noMdat {
		f.off = f.end // mdat is known: nothing after moov is needed
		return nil
	}
	// NGINX goes on with a small buffer, keeping what it had read past
	// the moov box when there is room for it.
	f.bufSize = moovExcess
	if f.off+moovExcess > f.bufOff+int64(len(f.buf)) {
		f.buf, f.bufOff = nil, 0
	}
	return nil
}

// appendBox appends a box with an 8-byte header.
func appendBox(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(8+len(data)))
	b = append(b, typ...)
	return append(b, data...)
}
