// Package throttle limits the rate at which a response goes to the
// client with the arithmetic of NGINX's write filter (limit_rate,
// limit_rate_after): a send may take rate × (whole seconds since the
// request's start + 1) bytes past the first limit_rate_after, less what
// went, and holds the next one back for the time its bytes take at the
// rate. The package imports nothing of the server: Handler is plain
// net/http middleware.
package throttle

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/mosaic-edge/mosaic/internal/pace"
	"github.com/mosaic-edge/mosaic/vars"
)

// StateName is the vars.State value that overrides a location's rate for
// one request, in bytes per second: "set $limit_rate" and an upstream's
// X-Accel-Limit-Rate write it, and $limit_rate reads it.
const StateName = pace.StateName

// Limits returns the rate (bytes per second, 0: no limit) and the bytes
// sent before it applies, for one request. It is called once, when the
// response's header or body goes out, so that what the request's
// handlers set (X-Accel-Limit-Rate, "set $limit_rate") counts.
type Limits func(r *http.Request) (rate, after int64)

// Sends are the location's settings that shape NGINX's sends of a paced
// response besides the rate.
type Sends struct {
	// File is "sendfile on": a send of a file's bytes that the allowance
	// cuts short ends on a page of the file (pace.FileSend). The writer
	// knows a file's bytes by its ReadFrom, given an io.LimitedReader
	// of an io.Seeker (package static's large files).
	File bool
	// MaxChunk is sendfile_max_chunk: the most one send takes, header
	// included (0: no bound). NGINX's write filter caps a paced send
	// with it, sendfile on or off.
	MaxChunk int64
}

// DefaultMaxChunk is NGINX's default sendfile_max_chunk (2m since 1.21.4).
const DefaultMaxChunk = 2 << 20

// Handler wraps next so that each response's body goes out within the
// limits, its sends shaped by s; with limits nil it returns next.
func Handler(limits Limits, s Sends, next http.Handler) http.Handler {
	if limits == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(newWriter(w, r, limits, s), r)
	})
}

// Wrap returns w paced by the limits, which it reads now; w itself where
// they set no rate. It is for a caller that can wrap the writer as the
// response's header (or its first body bytes) goes out, below the
// handler that writes it: a response that no rate reaches then costs no
// writer.
func Wrap(w http.ResponseWriter, r *http.Request, limits Limits, s Sends) http.ResponseWriter {
	rate, after := limits(r)
	if rate <= 0 {
		return w
	}
	tw := newWriter(w, r, limits, s)
	tw.settleLimits(rate, after)
	return tw
}

func newWriter(w http.ResponseWriter, r *http.Request, limits Limits, s Sends) *writer {
	tw := &writer{ResponseWriter: w, r: r, limits: limits, sends: s, start: vars.StartTime(r.Context())}
	tw.clock = &tw.wall
	return tw
}

// Rate returns the request's override (StateName), if any.
func Rate(st *vars.State) (int64, bool) {
	v, ok := st.Get(StateName)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

type writer struct {
	http.ResponseWriter
	r        *http.Request
	limits   Limits
	sends    Sends
	clock    clock
	start    time.Time
	resolved bool
	wrote    bool // WriteHeader was called
	rate     int64
	after    int64
	sent     int64
	// The send under way: NGINX's write filter sends what its chain
	// holds, up to the allowance, at once, where a handler writes in
	// pieces; a piece that comes before the send's time has passed
	// joins it while the allowance lasts.
	sendAt   time.Time
	sendFrom int64          // bytes past limit_rate_after when it began
	sendLeft int64          // what the allowance still lets it take
	due      time.Time      // no new send before: NGINX's c->write->delayed and its timer
	wire     vars.WireSizer // the header's and the framing's bytes; nil: none known
	h2       bool           // HTTP/2: frames counted here (h2Frames), as NGINX's stream counts them
	h2Frames int64
	wall     wallClock
	// A file's bytes going out through ReadFrom with sendfile on: the
	// next one's offset in the file and the end of what is sent.
	inFile       bool
	filePos, end int64
}

// clock is the time the writer paces by; tests give it a virtual one to
// read the schedule exactly.
type clock interface {
	now() time.Time
	// sleep waits d, or until ctx ends (its cause).
	sleep(ctx context.Context, d time.Duration) error
}

func (w *writer) resolve() {
	if w.resolved {
		return
	}
	w.settleLimits(w.limits(w.r))
}

// settleLimits takes the request's limits, read once.
func (w *writer) settleLimits(rate, after int64) {
	w.resolved = true
	w.rate, w.after = rate, after
	if w.rate > 0 {
		// $limit_rate shows the rate in force from now on, as NGINX's
		// does once its write filter has read it.
		st := vars.FromContext(w.r.Context())
		st.Set(StateName, strconv.FormatInt(w.rate, 10))
		if st != nil {
			w.wire = st.Wire
		}
		w.h2 = w.r.ProtoMajor == 2
	}
}

// onWire is what the response has sent. As NGINX's write filter weighs
// c->sent, the status line, the header and a chunked body's framing
// count with the body, where the server reports them (vars.WireSizer:
// HTTP/1.x's does): limit_rate_after 10k lets 10k go at once, header
// included. Go's HTTP/2 server reports no frames; NGINX's stream counts
// each frame it sends, its 9-byte head and its payload (the HEADERS
// frame's HPACK block, each DATA frame of at most http2_chunk_size), so
// the writer counts those as NGINX frames them (h2Frames).
func (w *writer) onWire() int64 {
	switch {
	case w.h2:
		return w.sent + w.h2Frames
	case w.wire == nil:
		return w.sent
	}
	return w.sent + w.wire.HeaderSize() + w.wire.BodyOverhead(false)
}

// ready waits until NGINX's write filter would send and returns how much
// it would (> 0): first the delay the last send set, then, where the
// allowance is spent, NGINX's waits until its whole-second clock allows
// a byte (pace.Wake). What went counts from limit_rate_after on.
func (w *writer) ready() (int64, error) {
	for {
		now := w.clock.now()
		if now.Before(w.due) {
			if err := w.wait(w.due.Sub(now)); err != nil {
				return 0, err
			}
			continue
		}
		done := w.onWire() - w.after
		if n := pace.Limit(w.rate, w.start, now, done); n > 0 {
			return n, nil
		}
		w.due = pace.Wake(w.rate, w.start, now, done)
	}
}

// begin starts a send once NGINX's write filter would make one, with
// what the allowance lets it take.
func (w *writer) begin() error {
	n, err := w.ready()
	if err != nil {
		return err
	}
	// The header goes with the first send, so it counts in that one's
	// bytes: from 0, not from what the header made; and in its
	// sendfile_max_chunk.
	var header int64
	if w.sendFrom = 0; w.sent > 0 {
		w.sendFrom = max(w.onWire()-w.after, 0)
	} else {
		header = w.onWire()
	}
	if c := w.sends.MaxChunk; c > 0 {
		n = min(n, max(c-header, 1))
	}
	if w.inFile {
		n = pace.FileSend(n, w.filePos, w.end)
	}
	w.sendAt, w.sendLeft = w.clock.now(), n
	return nil
}

// settle holds the next send back, as NGINX's write filter does after one,
// for the time that the send's bytes past limit_rate_after take at the
// rate, in whole milliseconds.
func (w *writer) settle(wire int64) {
	w.sendLeft -= wire
	if d := pace.Delay(w.rate, max(w.onWire()-w.after, 0)-w.sendFrom); d > 0 {
		w.due = w.sendAt.Add(d)
	}
}

// WriteHeader settles the limits as the header goes out, as NGINX's write
// filter reads limit_rate when it sends the header: a response without a
// body (HEAD, 204, 304) shows its rate in $limit_rate too.
func (w *writer) WriteHeader(code int) {
	if code >= 200 {
		w.resolve()
		// A second final header is one Go's server ignores: no frame.
		if w.h2 && !w.wrote {
			w.h2Frames += h2FrameHead + h2HeaderBlock(code, w.Header())
		}
		w.wrote = true
	}
	w.ResponseWriter.WriteHeader(code)
}

// paced reports whether the body goes through the pacing below; it makes
// the implicit 200 of a first write itself, so that the header's size is
// known before the first allowance is spent.
func (w *writer) paced() bool {
	w.resolve()
	if w.rate <= 0 {
		return false
	}
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return true
}

// Write sends p as NGINX's write filter sends what it is given: as much
// as the allowance lets go at once, then a wait for those bytes' time.
func (w *writer) Write(p []byte) (int, error) {
	if !w.paced() {
		return w.ResponseWriter.Write(p)
	}
	total := 0
	for len(p) > 0 {
		if w.sendLeft <= 0 || !w.clock.now().Before(w.due) {
			if err := w.begin(); err != nil {
				return total, err
			}
		}
		n := min(w.sendLeft, int64(len(p)))
		before := w.onWire()
		m, err := w.ResponseWriter.Write(p[:n])
		total += m
		w.sent += int64(m)
		if w.inFile {
			w.filePos += int64(m)
		}
		if w.h2 {
			w.h2Frames += h2FrameHead * ((int64(m) + h2ChunkSize - 1) / h2ChunkSize)
		}
		w.settle(w.onWire() - before)
		if err != nil {
			return total, err
		}
		p = p[m:]
	}
	return total, nil
}

// wait sends what is buffered, so that the client has it while the
// response pauses, and sleeps for d unless the request ends first.
func (w *writer) wait(d time.Duration) error {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	return w.clock.sleep(w.r.Context(), d)
}

// wallClock is the real clock, its sleeps on one timer for the response
// (pace.Timer, which stops it when the request ends during a sleep).
type wallClock struct{ timer pace.Timer }

func (*wallClock) now() time.Time { return time.Now() }

func (c *wallClock) sleep(ctx context.Context, d time.Duration) error {
	return c.timer.Sleep(ctx, d)
}

// ReadFrom keeps the server's sendfile path for a response without a
// limit; a limited one is copied through Write, whose pieces join one
// send as a file's bytes go in one send of NGINX's. With sendfile on, a
// file's part of the file (an io.LimitedReader of an io.Seeker, as
// package static hands it) is sent in NGINX's page-rounded sends: its
// offset is asked of the file, since pages are the file's, not the
// body's (a range starts anywhere).
func (w *writer) ReadFrom(src io.Reader) (int64, error) {
	w.resolve()
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok && w.rate <= 0 {
		return rf.ReadFrom(src)
	}
	// Over TLS NGINX reads the file into memory (sendfile needs kernel
	// TLS, which it does not turn on by default), and HTTP/2 frames it:
	// plain HTTP/1.x alone is rounded, what was measured beside NGINX.
	if lr, ok := src.(*io.LimitedReader); ok && w.rate > 0 && w.sends.File && !w.h2 && w.r.TLS == nil {
		if f, ok := lr.R.(io.Seeker); ok {
			if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
				w.inFile, w.filePos, w.end = true, pos, pos+lr.N
				defer func() { w.inFile = false }()
			}
		}
	}
	return io.Copy(writerOnly{w}, src)
}

// writerOnly hides writer's ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }

func (w *writer) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
