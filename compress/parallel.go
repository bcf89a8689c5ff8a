package compress

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/brotli"
	"github.com/mosaic-edge/mosaic/internal/crc32combine"
	"github.com/mosaic-edge/mosaic/zstdenc"
)

// Parallel compression.
//
// A long body at a high level keeps one core busy for as long as it takes
// to compress it, however many cores are idle. With a coding's
// *_thread_pool set, the body is cut into segments of
// *_parallel_segment_size that are compressed at the same time on the
// pool's workers and sent in order:
//
//   - gzip: every segment is raw deflate whose window starts with the 32
//     KiB of input before it (a preset dictionary), ends with a sync flush
//     (byte-aligned, not final) and the last one with the final block, so
//     the segments concatenate into one deflate stream, wrapped in one gzip
//     member whose CRC-32 is combined from the segments' (pigz's scheme);
//   - zstd at levels 10-22 (zstdJoined): every segment is a piece of one
//     frame from mosaic's own encoder (zstdenc.Encoder.EncodeSegment),
//     which may copy from the input before it (history); the first carries
//     the frame header, the last the last block. Below 10: every segment is
//     a frame of its own; a zstd body may be several frames (RFC 8878,
//     section 3.1). Frames share no history, so each segment starts from
//     an empty window.
//   - brotli: every segment is a catable segment of mosaic's own encoder
//     (brotli.Encoder.EncodeSegment), which may copy from the input before
//     it, as much as one segment and at least 256 KiB (history); the first
//     carries the stream header, the others end
//     on a byte boundary, the last with the last meta-block, and together
//     they are one brotli stream, at every level.
//
// The response's goroutine cuts and sends; the pool only compresses. At
// most *_parallel_tasks segments of a response are queued, being
// compressed or waiting to be sent: the next one waits for the first to
// go out, so a slow client stops the handler's writes (and a proxy's reads
// from upstream) instead of piling up memory. A pool whose queue is full
// refuses a segment and the response compresses it itself.

// WorkPool runs tasks on workers shared by every response; the server's
// thread_pool is one. Submit queues f and returns nil, or returns an error
// at once when it cannot take f (its queue is full, it is closed): the
// response then runs f itself, so a saturated pool slows a response down
// to serial speed but never fails it.
type WorkPool interface {
	Submit(f func()) error
}

// Parallel holds one coding's *_thread_pool and *_parallel_* directives.
type Parallel struct {
	// Pool compresses the segments (*_thread_pool NAME); nil is off.
	Pool WorkPool
	// SegmentSize is the input compressed as one task
	// (*_parallel_segment_size), MinSegmentSize to MaxSegmentSize. A body
	// no longer than one segment is compressed as it is without the pool.
	SegmentSize int
	// Tasks bounds the segments of one response that are queued, being
	// compressed or waiting to be sent (*_parallel_tasks), 1 to MaxTasks.
	Tasks int
	// Compressors keeps segment encoders and buffers between responses
	// (*_parallel_compressors, an http-level directive). Nil uses a
	// process-wide pool of DefaultCompressors for the coding.
	Compressors *CompressorPool
}

// DefaultParallel returns the directives' defaults: off, 1m segments, 4
// tasks.
func DefaultParallel() Parallel {
	return Parallel{SegmentSize: DefaultSegmentSize, Tasks: DefaultTasks}
}

// validate checks the settings of a pool that is on.
func (p Parallel) validate(prefix string, check func(bool, string, ...any)) {
	if p.Pool == nil {
		return
	}
	check(p.SegmentSize >= MinSegmentSize && p.SegmentSize <= MaxSegmentSize,
		"%s_parallel_segment_size %d: must be 64k..16m", prefix, p.SegmentSize)
	check(p.Tasks >= 1 && p.Tasks <= MaxTasks, "%s_parallel_tasks %d: must be 1..%d", prefix, p.Tasks, MaxTasks)
}

// parallelConfig is Parallel compiled for one coding of a location.
type parallelConfig struct {
	pool        WorkPool
	poolName    string // for the debug log, when the pool has a String method
	segment     int
	tasks       int
	compressors *CompressorPool
}

func newParallelConfig(e Encoding, p Parallel) *parallelConfig {
	if p.Pool == nil {
		return nil
	}
	c := &parallelConfig{pool: p.Pool, segment: p.SegmentSize, tasks: p.Tasks, compressors: p.Compressors}
	if s, ok := p.Pool.(fmt.Stringer); ok {
		c.poolName = s.String()
	}
	if c.compressors == nil {
		c.compressors = defaultCompressors[e]
	}
	return c
}

// takes reports whether a body of length bytes (-1: unknown) is cut into
// segments: a body known to fit in one segment and its slack never is, nor
// any body while fewer than two CPUs are free of compression.
func (c *parallelConfig) takes(length int64) bool {
	return c != nil && (length < 0 || length > int64(maxCut(c.segment))) && cpusFree() >= 2
}

// maxCut is the longest segment cut for a configured segment size: an
// eighth more, the slack that lets a body of known length be shared evenly
// (or nearly: cutLengths).
func maxCut(segment int) int { return segment + segment/8 }

// cutLength is the length of the segments a body of length bytes is cut
// into. Unknown (-1), the configured size. Known, the body is shared evenly
// among the fewest segments no longer than maxCut: a fixed size would leave
// a short last segment (a 1 MB body in 512k segments: two and a 31 KB
// tail) that pays a whole segment's costs, a task and its dictionary
// (brotli's prefix: history) for a few kilobytes, and delays the
// response while it waits for a CPU beside the others; even segments
// finish together, unless the later ones enter a costly prefix
// (cutLengths).
func cutLength(segment int, length int64) int {
	if length <= 0 {
		return segment
	}
	limit := int64(maxCut(segment))
	n := (length + limit - 1) / limit
	return int((length + n - 1) / n)
}

// cutLengths is the length of the first segment and of the others for a
// body of length bytes, when every later segment begins by entering a
// prefix of h bytes that costs prime times what compressing as many bytes
// does (primeCost). The first, which enters none, is made longer by the
// prefix's cost so that the segments in flight together finish together:
// with n segments of even length L the first takes L and the others
// L + prime·h; a first of L + prime·h·(n-1)/n and the others of
// L − prime·h/n cost the same. The first stays within the slack (maxCut),
// which bounds every segment; for segments shorter than their prefix
// (history is at least 256 KiB) the slack is what decides it.
func cutLengths(segment int, length int64, h int, prime float64) (first, rest int) {
	rest = cutLength(segment, length)
	n := (length + int64(rest) - 1) / int64(rest)
	if length <= 0 || prime == 0 || n < 2 {
		return rest, rest
	}
	extra := int(prime * float64(h) * float64(n-1) / float64(n))
	first = min(maxCut(segment), rest+extra)
	return first, int((length - int64(first) + n - 2) / (n - 1))
}

// segmentLengths is the length of the first segment of a body of length
// bytes (-1: unknown) compressed with coding e at level, of the others,
// and of the others when the first is ended early by a flush; lgwin is
// brotli's window, which bounds what its encoder enters of a prefix. Every
// later segment's prefix is taken as history's length within the window:
// it is the last history bytes of the input before the segment, of which
// only the second segment may have fewer (the first, when it is shorter).
func segmentLengths(e Encoding, level, segment, lgwin int, length int64) (first, rest, even int) {
	h := history(e, level, segment)
	if e == Brotli {
		h = min(h, 1<<lgwin-16)
	}
	first, rest = cutLengths(segment, length, h, primeCost(e, level))
	return first, rest, cutLength(segment, length)
}

// primeCost is what entering a byte of prefix costs a segment of coding at
// level, against compressing a byte: at brotli's levels 10 and 11 a
// position enters the binary tree by the walk a search takes. Counted with
// cachegrind on react-dom's second half (window 2^19), primed with the
// 524,272 bytes of the first half that the window holds it took 3.34G
// instructions against 2.68G bare at 10, and 9.00G against 8.16G at 11: a
// byte of prefix costs 0.25 and 0.11 of a byte compressed (0.28 and 0.12
// with a window of 2^21, the whole half entered); taken as 0.26 and 0.12.
// Below 10 the prefix is hashed, at 0.11 to 0.28 of a byte compressed
// (0.54 and 0.61 at 1 and 0, which enter every position), but a longer
// first segment made react-dom's halves, which cost about as much without
// it, finish later (compress README, "A longer first segment below level
// 10, tried"), so those levels cut evenly. gzip's prefix is 32 KiB. A
// joined zstd segment's prefix costs little to hash but fills the chains
// its searches walk: react-dom's second half took a median 39.7 CPU ms
// primed with the 270,056 bytes before it against 29.6 bare (six rounds,
// zstdenc's BenchmarkSegment, one CPU), 0.68 of a byte compressed, in
// instructions only 0.23: the walks miss the caches.
func primeCost(e Encoding, level int) float64 {
	switch {
	case e == Zstd && zstdJoined(level):
		return 0.68
	case e != Brotli:
		return 0
	case level == 10:
		return 0.26
	case level == 11:
		return 0.12
	}
	return 0
}

// segmentsOut counts the segments handed to pools and not yet compressed,
// those of every response in the process.
var segmentsOut atomic.Int64

// compressing counts the goroutines compressing, or waiting for a CPU to
// compress, a body of a coding whose *_thread_pool is on: a serial
// response inside its encoder's calls (not while it waits on its handler
// or its client), a one-shot burst from the wait for its slot to its end,
// and a parallel response while it compresses a segment itself.
var compressing atomic.Int64

// cpusFree is how many CPUs no compression keeps busy: GOMAXPROCS less
// the goroutines compressing and the segments queued or running on the
// pools. A body is cut only when at least two are free, one for the
// response's goroutine and one for a segment beside it. With fewer, cutting
// gains no speed, since no CPU is free to run its segments alongside, and
// it costs: CPU time for gzip, brotli and joined zstd (each segment begins
// by entering the 32 KiB, or for brotli up to 1 MiB, for zstd at least 256
// KiB, before it again), size for zstd's frames (each starts without
// history). Such a response is compressed
// serially, as if the pool were off, so that a loaded server keeps the
// throughput and the output of serial compression. Counting the pools
// alone is not enough: under load most responses compress serially on
// their own goroutines, the pools look idle, and bodies would still be
// cut.
func cpusFree() int64 {
	return int64(runtime.GOMAXPROCS(0)) - compressing.Load() - segmentsOut.Load()
}

// history is how much input before a segment of a body cut every segment
// bytes its encoder is primed with at level: deflate's whole window for
// gzip; for brotli the longest segment (maxCut), at least minBrotliPrefix
// and at most what mosaic's encoder takes as a prefix (brotli.MaxPrefix);
// for zstd's joined segments half the longest segment, at least
// minZstdPrefix (the encoder keeps what its window holds of it): a zstd
// segment's searches walk chains the prefix fills, so a prefix costs it
// nearly what compressing as many bytes does, and only half a segment's
// worth keeps the later segments about as quick as the first, which has
// none; none for zstd's frames,
// which share nothing. A brotli segment that sees the whole segment before it
// comes out nearly as small as one stream, and entering a prefix costs
// far less than compressing it; bounded by the segment, short segments do
// not each enter a long prefix, which would cost more than they save.
func history(e Encoding, level, segment int) int {
	switch e {
	case Gzip:
		return 32 << 10
	case Brotli:
		return min(brotli.MaxPrefix, max(minBrotliPrefix, maxCut(segment)))
	case Zstd:
		if zstdJoined(level) {
			return max(minZstdPrefix, maxCut(segment)/2)
		}
	}
	return 0
}

// minBrotliPrefix is the prefix a brotli segment gets whatever its size.
const minBrotliPrefix = 256 << 10

// minZstdPrefix is the prefix a joined zstd segment gets whatever its
// size: on react-dom at level 19 (ParallelSizes/zstd), 512k segments
// (primed with 288 KiB) come out 0.32% over serial compression and 256k
// ones (256 KiB) 0.90%.
const minZstdPrefix = 256 << 10

// zstdJoined reports whether zstd segments at level are pieces of one
// frame from mosaic's own encoder rather than frames of their own: from
// level 10, where klauspost/compress's best encoder serves serial
// responses and the own encoder's output is 0.4% smaller for 8% more
// instructions (react-dom), so its joined segments stay within 1% of
// serial compression. Below, klauspost's faster encoders serve, which
// the own encoder is far slower than.
func zstdJoined(level int) bool { return level >= 10 }

// segment is one task: input, and the compressed output it becomes.
type segment struct {
	buf   []byte // the dictionary (input before the segment: gzip, brotli, joined zstd), then the segment's input
	dict  int    // length of the dictionary at the start of buf
	first bool   // brotli, joined zstd: the stream or frame header starts the segment
	// bodyLen is the body's Content-Length, 0 if unknown: brotli sizes a
	// segment's match finder for the whole body, as serial compression
	// does.
	bodyLen int
	// offset is where the segment's input starts in the body: a brotli
	// segment that knows it may refer to the static dictionary.
	offset int
	last   bool // gzip, brotli, joined zstd: the final block; otherwise the segment ends byte-aligned, not final
	out    []byte
	crc    uint32        // gzip: CRC-32 of the segment's input
	wait   time.Duration // on the pool: from Submit until a worker took it
	err    error
	done   chan struct{} // closed when out, crc and err are set
}

func (s *segment) input() []byte { return s.buf[s.dict:] }

// finished reports whether the segment is compressed, without waiting.
func (s *segment) finished() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// segmentOut is a segment as the encoders' destination: it appends to out.
type segmentOut segment

func (s *segmentOut) Write(p []byte) (int, error) {
	s.out = append(s.out, p...)
	return len(p), nil
}

// segmentEncoder compresses one segment into its out.
type segmentEncoder interface {
	encode(seg *segment) error
}

type flateSegments struct{ fw *flate.Writer }

func (e flateSegments) encode(seg *segment) error {
	e.fw.ResetDict((*segmentOut)(seg), seg.buf[:seg.dict])
	in := seg.input()
	if _, err := e.fw.Write(in); err != nil {
		return err
	}
	seg.crc = crc32.ChecksumIEEE(in)
	if seg.last {
		return e.fw.Close()
	}
	return e.fw.Flush()
}

type zstdSegments struct{ enc *zstd.Encoder }

func (e zstdSegments) encode(seg *segment) error {
	seg.out = e.enc.EncodeAll(seg.input(), seg.out)
	return nil
}

// zstdJoinedSegments are pieces of one frame; the encoder's window (the
// compressor's key) is the one serial compression would declare, and the
// frame does not declare its content size: Content-Length is the
// handler's word, and a frame whose declared size its blocks do not meet
// fails to decode.
type zstdJoinedSegments struct{ enc *zstdenc.Encoder }

func (e zstdJoinedSegments) encode(seg *segment) error {
	seg.out = e.enc.EncodeSegment(seg.out, seg.input(),
		zstdenc.Segment{First: seg.first, Last: seg.last, Prefix: seg.buf[:seg.dict]})
	return nil
}

type brotliSegments struct{ enc *brotli.Encoder }

func (e brotliSegments) encode(seg *segment) error {
	seg.out = e.enc.EncodeSegment(seg.out, seg.input(),
		brotli.Segment{First: seg.first, Last: seg.last, Prefix: seg.buf[:seg.dict], BodyLen: seg.bodyLen, Offset: seg.offset})
	return nil
}

// compressorKey says which responses a compressor suits.
type compressorKey struct {
	coding  Encoding
	level   int
	segment int
	// brotli and joined zstd: the window every segment shares (the first
	// declares it); brotli's font mode. An Encoder is made for both.
	window int
	font   bool
}

// compressor is the encoders and buffers one response uses for its
// segments. Workers take and return encoders concurrently; the response's
// goroutine takes and returns segments.
type compressor struct {
	key    compressorKey
	pooled bool // counted by its CompressorPool; otherwise dropped after its response

	mu       sync.Mutex
	encoders []segmentEncoder
	segments []*segment
}

func (c *compressor) takeEncoder() (segmentEncoder, error) {
	c.mu.Lock()
	if n := len(c.encoders); n > 0 {
		e := c.encoders[n-1]
		c.encoders = c.encoders[:n-1]
		c.mu.Unlock()
		return e, nil
	}
	c.mu.Unlock()
	switch c.key.coding {
	case Gzip:
		fw, err := flate.NewWriter(nil, c.key.level)
		if err != nil {
			return nil, fmt.Errorf("deflate encoder at level %d: %w", c.key.level, err)
		}
		return flateSegments{fw}, nil
	case Zstd:
		if zstdJoined(c.key.level) {
			enc, err := zstdenc.NewEncoder(zstdenc.Options{WindowLog: c.key.window})
			if err != nil {
				return nil, fmt.Errorf("zstd segment encoder with window 2^%d: %w", c.key.window, err)
			}
			return zstdJoinedSegments{enc}, nil
		}
		// Segments are independent frames: one goroutine each, a window
		// that holds a whole segment, and an empty segment still a frame.
		enc, err := zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(c.key.level)),
			zstd.WithWindowSize(1<<zstdWindowLog(int64(c.key.segment))),
			zstd.WithEncoderConcurrency(1),
			zstd.WithLowerEncoderMem(true),
			zstd.WithZeroFrames(true))
		if err != nil {
			return nil, fmt.Errorf("zstd segment encoder at level %d: %w", c.key.level, err)
		}
		return zstdSegments{enc}, nil
	case Brotli:
		opts := brotli.Options{Quality: c.key.level, LGWin: c.key.window}
		if c.key.font {
			opts.Mode = brotli.ModeFont
		}
		enc, err := brotli.NewEncoder(opts)
		if err != nil {
			return nil, fmt.Errorf("brotli segment encoder at level %d: %w", c.key.level, err)
		}
		return brotliSegments{enc}, nil
	}
	return nil, fmt.Errorf("no segment encoder for %v", c.key.coding)
}

func (c *compressor) putEncoder(e segmentEncoder) {
	c.mu.Lock()
	c.encoders = append(c.encoders, e)
	c.mu.Unlock()
}

func (c *compressor) takeSegment() *segment {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.segments); n > 0 {
		s := c.segments[n-1]
		c.segments = c.segments[:n-1]
		return s
	}
	return &segment{buf: make([]byte, 0, maxCut(c.key.segment)+history(c.key.coding, c.key.level, c.key.segment))}
}

func (c *compressor) putSegment(s *segment) {
	s.buf, s.out, s.dict, s.first, s.last, s.bodyLen, s.offset, s.wait, s.err, s.done = s.buf[:0], s.out[:0], 0, false, false, 0, 0, 0, nil, nil
	c.mu.Lock()
	c.segments = append(c.segments, s)
	c.mu.Unlock()
}

// CompressorPool keeps compressors, the segment encoders and buffers of
// parallel responses, between responses (*_parallel_compressors). It
// counts the compressors it keeps idle and those out with responses; a
// response that finds the count at the limit and no idle compressor gets
// one of its own, freed once the response is sent. An idle compressor
// serves only the same coding, level and segment size; one of other
// settings gives way, oldest first, when the count is at the limit. Safe
// for concurrent use.
type CompressorPool struct {
	mu    sync.Mutex
	limit int
	held  int
	idle  []*compressor // least recently used first

	reused, allocated, unpooled uint64
}

// CompressorStats counts what a CompressorPool did.
type CompressorStats struct {
	Idle, Held int    // compressors kept idle, and out with responses
	Reused     uint64 // responses that took an idle compressor
	Allocated  uint64 // compressors made and counted by the pool
	Unpooled   uint64 // responses beyond the limit, with a compressor of their own
}

// NewCompressorPool returns a pool that counts at most n compressors,
// clamped to 0..MaxCompressors; with 0 every response gets its own.
func NewCompressorPool(n int) *CompressorPool {
	return &CompressorPool{limit: min(max(n, 0), MaxCompressors)}
}

var defaultCompressors = [numCodings + 1]*CompressorPool{
	Brotli: NewCompressorPool(DefaultCompressors),
	Zstd:   NewCompressorPool(DefaultCompressors),
	Gzip:   NewCompressorPool(DefaultCompressors),
}

// Stats returns the pool's counters.
func (p *CompressorPool) Stats() CompressorStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return CompressorStats{Idle: len(p.idle), Held: p.held, Reused: p.reused, Allocated: p.allocated, Unpooled: p.unpooled}
}

// get returns a compressor for key, and how it came: "reused", "new" or
// "unpooled".
func (p *CompressorPool) get(key compressorKey) (*compressor, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.idle) - 1; i >= 0; i-- {
		if c := p.idle[i]; c.key == key {
			p.idle = slices.Delete(p.idle, i, i+1)
			p.held++
			p.reused++
			return c, "reused"
		}
	}
	if p.held+len(p.idle) >= p.limit {
		if len(p.idle) == 0 {
			p.unpooled++
			return &compressor{key: key}, "unpooled"
		}
		p.idle = slices.Delete(p.idle, 0, 1)
	}
	p.held++
	p.allocated++
	return &compressor{key: key, pooled: true}, "new"
}

// put takes back a compressor whose response is over.
func (p *CompressorPool) put(c *compressor) {
	if !c.pooled {
		return
	}
	p.mu.Lock()
	p.held--
	p.idle = append(p.idle, c)
	p.mu.Unlock()
}

// parallelStream is a response's encoder when its body is cut into
// segments. It is an encoder: Write, Flush and Close run on the
// response's goroutine.
type parallelStream struct {
	w      *responseWriter
	cfg    *parallelConfig
	comp   *compressor
	how    string // how the compressor came, for the debug log
	coding Encoding
	level  int

	first int        // the length of the first segment, if full (cutLengths)
	cut   int        // the length of the others
	even  int        // their length when the first ends early (cutLength)
	cur   *segment   // being filled
	queue []*segment // handed out, in order, not yet sent
	crc   uint32     // gzip: of the input sent so far
	size  int64      // input handed out so far (gzip: the trailer's ISIZE)
	began bool       // gzip: the header is out

	// For the debug log: segments in all, those the pool compressed, those
	// it refused (queue full), the most queued at once, the first's input,
	// and the longest a segment waited for a worker (a pool that does not
	// start a segment while the response's goroutine works gives no
	// speed).
	segments, pooled, refused, peak, firstLen int
	wait                                      time.Duration
}

// startParallel makes the response's encoder a parallelStream. key names
// the coding and, for brotli, the window and mode; startParallel fills in
// the level and segment size. length is the body's, or -1.
func (w *responseWriter) startParallel(key compressorKey, c *parallelConfig, length int64) {
	e := key.coding
	key.level, key.segment = w.cfg.coding[e].level, c.segment
	comp, how := c.compressors.get(key)
	w.par = &parallelStream{w: w, cfg: c, comp: comp, how: how, coding: e, level: key.level}
	w.parallel = true
	w.par.first, w.par.cut, w.par.even = segmentLengths(e, key.level, c.segment, key.window, length)
	w.enc = w.par
}

// Write cuts p into segments. A full segment is handed out when more input
// arrives, so that the last one is known to be last.
func (s *parallelStream) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if s.cur == nil {
			s.newSegment(nil)
		}
		room := s.cut - len(s.cur.input())
		if s.cur.first {
			room = s.first - len(s.cur.input())
		}
		if room == 0 {
			if err := s.handOut(false, false); err != nil {
				return n - len(p), err
			}
			continue
		}
		k := min(room, len(p))
		s.cur.buf = append(s.cur.buf, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

// newSegment starts the current segment with dict, the input before it
// that its encoder is primed with (none for the first segment and zstd's
// frames).
func (s *parallelStream) newSegment(dict []byte) {
	s.cur = s.comp.takeSegment()
	s.cur.buf = append(s.cur.buf, dict...)
	s.cur.dict = len(dict)
	s.cur.first = s.segments == 0
	s.cur.bodyLen = int(max(s.w.bbody.length, 0))
	s.cur.offset = int(s.size)
}

// Flush ends the current segment early and sends everything so far.
func (s *parallelStream) Flush() error {
	if s.cur != nil && len(s.cur.input()) > 0 {
		if s.cur.first && len(s.cur.input()) < s.first {
			// Ended early, the first no longer stands for the others'
			// prefixes: they are cut evenly.
			s.cut = s.even
		}
		// The response waits for every segment anyway: this one is
		// compressed here while the pool finishes the others.
		if err := s.handOut(false, true); err != nil {
			return err
		}
	}
	return s.drain()
}

// Close compresses the last segment here, sends every segment and, for
// gzip, the trailer.
func (s *parallelStream) Close() error {
	// gzip, brotli and joined zstd always end with a final block, and a
	// zstd body of frames with at least one frame; a zstd frame flushed
	// last needs no empty frame after it.
	if s.cur != nil || s.segments == 0 || s.coding != Zstd || zstdJoined(s.level) {
		if s.cur == nil {
			s.newSegment(nil)
		}
		if err := s.handOut(true, true); err != nil {
			return err
		}
	}
	if err := s.drain(); err != nil {
		return err
	}
	if s.coding == Gzip {
		var t [8]byte
		binary.LittleEndian.PutUint32(t[:4], s.crc)
		binary.LittleEndian.PutUint32(t[4:], uint32(s.size)) // ISIZE is the length modulo 2^32
		if _, err := (*encoderSink)(s.w).Write(t[:]); err != nil {
			return err
		}
	}
	return nil
}

// handOut queues the current segment: to the pool, or compressed here
// when here is true or the pool refuses it. It first waits, sending, until
// fewer than tasks segments are queued.
func (s *parallelStream) handOut(last, here bool) error {
	seg := s.cur
	s.cur = nil
	seg.last = last
	if seg.first {
		s.firstLen = len(seg.input())
	}
	s.size += int64(len(seg.input()))
	for len(s.queue) >= s.cfg.tasks {
		if err := s.sendFirst(); err != nil {
			s.comp.putSegment(seg)
			return err
		}
	}
	seg.done = make(chan struct{})
	s.queue = append(s.queue, seg)
	s.peak = max(s.peak, len(s.queue))
	s.segments++
	switch {
	case here:
		s.compress(seg)
	case s.submit(seg):
		s.pooled++
	default:
		s.refused++
		s.compress(seg)
	}
	if h := history(s.coding, s.level, s.cfg.segment); h > 0 && !last {
		// The next segment starts with its dictionary, the last h bytes of
		// the input so far, which seg's buf ends with (a short segment
		// after a flush has the previous dictionary before it). Copied
		// straight from seg, and only once seg is handed out, so that a
		// worker need not wait for a copy of up to brotli.MaxPrefix bytes;
		// seg goes back to the compressor only once sent, below.
		s.newSegment(seg.buf[max(0, len(seg.buf)-h):])
	}
	// Send what is ready without waiting for the rest.
	for len(s.queue) > 0 && s.queue[0].finished() {
		if err := s.sendFirst(); err != nil {
			return err
		}
	}
	return nil
}

// submit hands seg to the pool, counting it in segmentsOut until it is
// compressed; false if the pool refuses it.
func (s *parallelStream) submit(seg *segment) bool {
	segmentsOut.Add(1)
	queued := time.Now()
	err := s.cfg.pool.Submit(func() {
		seg.wait = time.Since(queued)
		s.encode(seg)
		// Counted out before the response can see the segment done, so
		// that its next response finds the pools as it left them.
		segmentsOut.Add(-1)
		close(seg.done)
	})
	if err != nil {
		segmentsOut.Add(-1)
		return false
	}
	return true
}

// compress compresses seg on the response's goroutine, counted in
// compressing meanwhile.
func (s *parallelStream) compress(seg *segment) {
	compressing.Add(1)
	s.encode(seg)
	compressing.Add(-1)
	close(seg.done)
}

// encode sets seg's output, or its error.
func (s *parallelStream) encode(seg *segment) {
	enc, err := s.comp.takeEncoder()
	if err != nil {
		seg.err = err
		return
	}
	seg.err = enc.encode(seg)
	s.comp.putEncoder(enc)
}

// sendFirst waits for the first queued segment and sends it.
func (s *parallelStream) sendFirst() error {
	seg := s.queue[0]
	<-seg.done
	s.wait = max(s.wait, seg.wait)
	s.queue[0] = nil
	s.queue = s.queue[1:]
	defer s.comp.putSegment(seg)
	if seg.err != nil {
		return fmt.Errorf("compressing a segment: %w", seg.err)
	}
	sink := (*encoderSink)(s.w)
	if s.coding == Gzip {
		if !s.began {
			s.began = true
			if _, err := sink.Write(gzipHeader(s.level)); err != nil {
				return err
			}
		}
		s.crc = crc32combine.Combine(s.crc, seg.crc, int64(len(seg.input())))
	}
	_, err := sink.Write(seg.out)
	return err
}

// drain sends every queued segment.
func (s *parallelStream) drain() error {
	for len(s.queue) > 0 {
		if err := s.sendFirst(); err != nil {
			return err
		}
	}
	return nil
}

// release ends the stream, sent or abandoned: it waits for the segments
// still being compressed, whose encoders and buffers belong to the
// compressor, and gives the compressor back.
func (s *parallelStream) release() {
	for _, seg := range s.queue {
		<-seg.done
		s.comp.putSegment(seg)
	}
	s.queue = nil
	if s.cur != nil {
		s.comp.putSegment(s.cur)
		s.cur = nil
	}
	s.cfg.compressors.put(s.comp)
	if lg := s.w.cfg.logger; lg != nil && lg.Enabled(s.w.req.Context(), slog.LevelDebug) {
		lg.DebugContext(s.w.req.Context(), "parallel compression", "coding", s.coding.String(),
			"pool", s.cfg.poolName, "segments", s.segments, "pooled", s.pooled, "refused", s.refused,
			"peak", s.peak, "first", s.firstLen, "wait", s.wait.Round(10*time.Microsecond), "compressor", s.how)
	}
}

// gzipHeader is the header of a gzip member as klauspost/compress's gzip
// writer makes it (no name, no time, OS unknown), so that parallel and
// serial responses begin alike.
func gzipHeader(level int) []byte {
	h := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}
	switch level {
	case flate.BestCompression:
		h[8] = 2
	case flate.BestSpeed:
		h[8] = 4
	}
	return h
}
