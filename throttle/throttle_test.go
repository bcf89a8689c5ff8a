package throttle

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

// readFromRecorder counts the ReadFrom calls that reach it.
type readFromRecorder struct {
	*httptest.ResponseRecorder
	readFroms int
}

func (r *readFromRecorder) ReadFrom(src io.Reader) (int64, error) {
	r.readFroms++
	return io.Copy(r.ResponseRecorder, src)
}

func TestThrottle(t *testing.T) {
	body := strings.Repeat("x", 12000)
	serve := func(rate, after int64) (*readFromRecorder, time.Duration) {
		h := Handler(func(*http.Request) (int64, int64) { return rate, after }, Sends{MaxChunk: DefaultMaxChunk}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(w, struct{ io.Reader }{strings.NewReader(body)}) // ReadFrom, as a file is sent
		}))
		// A throttled body that should not be gets cut here rather
		// than hanging the test.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rec := &readFromRecorder{ResponseRecorder: httptest.NewRecorder()}
		start := time.Now()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, "GET", "/", nil))
		return rec, time.Since(start)
	}
	// 12000 bytes at 10000 per second with a second of slack: 0.2 s.
	rec, d := serve(10000, 0)
	if rec.Body.String() != body || d < 150*time.Millisecond || rec.readFroms != 0 {
		t.Errorf("limited: %d bytes in %v, %d ReadFrom", rec.Body.Len(), d, rec.readFroms)
	}
	// Without a limit the writer's own ReadFrom (sendfile) is used: the
	// body bypasses the throttle.
	rec, _ = serve(0, 0)
	if rec.Body.String() != body || rec.readFroms != 1 {
		t.Errorf("unlimited: %d bytes, %d ReadFrom", rec.Body.Len(), rec.readFroms)
	}
	// limit_rate_after past the body: no wait. At 1 byte per second a
	// throttled body would need hours, so the whole body within the
	// request's 10 s shows it went unthrottled, however slow the machine.
	if rec, d = serve(1, 12000); rec.Body.String() != body {
		t.Errorf("after: %d bytes in %v", rec.Body.Len(), d)
	}
}

// wireRecorder reports a header's size once the header is written, as
// the HTTP/1.x server's vars.WireSizer does (before: none yet).
type wireRecorder struct {
	*httptest.ResponseRecorder
	header int64
	wrote  bool
}

func (r *wireRecorder) WriteHeader(code int) {
	r.wrote = true
	r.ResponseRecorder.WriteHeader(code)
}

func (r *wireRecorder) RequestSize() int64 { return 0 }
func (r *wireRecorder) HeaderSize() int64 {
	if !r.wrote {
		return 0
	}
	return r.header
}
func (r *wireRecorder) BodyOverhead(bool) int64 { return 0 }
func (r *wireRecorder) RequestLines() string    { return "" }
func (r *wireRecorder) RequestLine() string     { return "" }

// TestThrottleImplicitHeaderCounts: a handler that writes its body
// without WriteHeader (an implicit 200) has its header counted against
// limit_rate_after too: the writer makes the header before it weighs the
// first write. At rate 1 and after 50, a 20-byte header leaves 31 body
// bytes to go at once (the second's slack is 1 byte); had the header been
// made by the first write, 51 would go.
func TestThrottleImplicitHeaderCounts(t *testing.T) {
	rec := &wireRecorder{ResponseRecorder: httptest.NewRecorder(), header: 20}
	st := &vars.State{Start: time.Now(), Wire: rec}
	h := Handler(func(*http.Request) (int64, int64) { return 1, 50 }, Sends{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 100)))
	}))
	// The next byte is due a second after the start: the request ends
	// before, cutting the body after what went at once.
	ctx, cancel := context.WithTimeout(vars.NewContext(context.Background(), st), 300*time.Millisecond)
	defer cancel()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, "GET", "/", nil))
	// One byte more if the machine's load held the write past a second.
	if n := rec.Body.Len(); n < 31 || n > 32 || rec.Code != http.StatusOK {
		t.Errorf("status %d, %d body bytes at once; want 200 and 31 (after 50 + 1 of slack - the 20-byte header)", rec.Code, n)
	}
}

// virtualClock is a clock whose sleeps pass at once, moving its time on.
type virtualClock struct{ t time.Time }

func (c *virtualClock) now() time.Time { return c.t }

func (c *virtualClock) sleep(_ context.Context, d time.Duration) error {
	c.t = c.t.Add(d)
	return nil
}

// send is one write that reached the connection: when (since the
// request's start) and how many bytes.
type send struct {
	at time.Duration
	n  int
}

// sendLog records the writes that reach it on the virtual clock.
type sendLog struct {
	*wireRecorder
	clock *virtualClock
	start time.Time
	sends []send
}

func (l *sendLog) Write(p []byte) (int, error) {
	at := l.clock.t.Sub(l.start)
	if n := len(l.sends); n > 0 && l.sends[n-1].at == at {
		l.sends[n-1].n += len(p) // one send, written in pieces
	} else {
		l.sends = append(l.sends, send{at, len(p)})
	}
	return l.wireRecorder.Write(p)
}

// TestThrottleScheduleAsNGINX reads the writer's schedule on a virtual
// clock: when each send goes and how much, which is what NGINX's write
// filter does at the same rates (ngx_http_write_filter_module.c, 1.22.1):
// rate × (whole seconds since the start + 1) past limit_rate_after may
// have gone, and each send holds the next back for its bytes' time, in
// whole milliseconds. A 72 KB file at 32k takes 2 s so, where a
// nanosecond clock gave 1.25 s (the sends at 0 and 1.25 s).
func TestThrottleScheduleAsNGINX(t *testing.T) {
	ms := time.Millisecond
	body := strings.Repeat("x", 72<<10)
	for _, c := range []struct {
		name        string
		rate, after int64
		header      int64
		frac        time.Duration // the start's place in its second
		pieces      int           // written in pieces of this size; 0: ReadFrom
		gap         time.Duration // the handler's time between pieces
		want        []send
		sends       Sends // sendfile, sendfile_max_chunk
	}{
		// A second's worth, header included, then a second's worth
		// after a second (its bytes' time), the rest after another.
		{"file 32k", 32 << 10, 0, 240, 300 * ms, 0, 0, []send{{0, 32<<10 - 240}, {1000 * ms, 32 << 10}, {2000 * ms, 8192 + 240}}, Sends{}},
		// The start's place in its second does not matter here: each
		// wait is a second, so each send finds the next second.
		{"file 32k late start", 32 << 10, 0, 240, 999 * ms, 0, 0, []send{{0, 32<<10 - 240}, {1000 * ms, 32 << 10}, {2000 * ms, 8192 + 240}}, Sends{}},
		// limit_rate_after 48k at 16k: 64 KB at once, the rest after a
		// second, as NGINX's 1 s.
		{"after 48k", 16 << 10, 48 << 10, 0, 0, 0, 0, []send{{0, 64 << 10}, {1000 * ms, 8 << 10}}, Sends{}},
		// Pieces of 20 KB written at once join one send while the
		// allowance lasts, as NGINX's chain holds them: as the file.
		{"pieces 32k", 32 << 10, 0, 0, 0, 20 << 10, 0, []send{{0, 32 << 10}, {1000 * ms, 32 << 10}, {2000 * ms, 8 << 10}}, Sends{}},
		// Pieces of 8 KB 300 ms apart come after the last send's time
		// (250 ms): each is a send of its own, when it comes.
		{"trickle 32k", 32 << 10, 0, 0, 0, 8 << 10, 300 * ms, []send{{0, 8 << 10}, {300 * ms, 8 << 10}, {600 * ms, 8 << 10}, {900 * ms, 8 << 10},
			{1200 * ms, 8 << 10}, {1500 * ms, 8 << 10}, {1800 * ms, 8 << 10}, {2100 * ms, 8 << 10}, {2400 * ms, 8 << 10}}, Sends{}},
		// Pieces too small to wait for (2 bytes at 72000/s: 0 ms) go
		// until the second's allowance is spent, then wait for the
		// next whole second (700 ms in, not 1 s), as NGINX's 1 ms
		// waits do until its clock turns.
		{"small pieces", 72000, 0, 0, 300 * ms, 2, 0, []send{{0, 72000}, {700 * ms, 72<<10 - 72000}}, Sends{}},
		// sendfile on (fidelity16): the file's part of each send ends
		// on a page of the file, as NGINX's ngx_chain_coalesce_file
		// makes it: the header's 239 bytes and 32,768 of the file, a
		// wait of 33,007 bytes' time (1007 ms), 32,768 again.
		{"sendfile 32k", 32 << 10, 0, 239, 300 * ms, 0, 0, []send{{0, 32 << 10}, {1007 * ms, 32 << 10}, {2007 * ms, 8 << 10}}, Sends{File: true}},
		// sendfile_max_chunk 10000 caps each send, header included,
		// and the pages round it up: 239 + 12,288 first (NGINX's
		// 12,527 on the wire), a wait of 382 ms.
		{"max chunk, sendfile", 32 << 10, 0, 239, 0, 0, 0, []send{{0, 12 << 10}, {382 * ms, 12 << 10}, {757 * ms, 8 << 10},
			{1007 * ms, 12 << 10}, {1382 * ms, 12 << 10}, {1757 * ms, 8 << 10}, {2007 * ms, 8 << 10}}, Sends{File: true, MaxChunk: 10000}},
		// Without sendfile, sends of 10,000 bytes, 305 ms apart.
		{"max chunk", 32 << 10, 0, 239, 0, 0, 0, []send{{0, 10000 - 239}, {305 * ms, 10000}, {610 * ms, 10000}, {915 * ms, 2768},
			{1000 * ms, 10000}, {1305 * ms, 10000}, {1610 * ms, 10000}, {1915 * ms, 2768}, {2000 * ms, 8431}}, Sends{MaxChunk: 10000}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, log := scheduled(httptest.NewRequest("GET", "/", nil), time.Unix(1000, 0).Add(c.frac), c.rate, c.after, c.header, c.sends)
			clk := log.clock
			var err error
			if c.pieces == 0 {
				// As package static hands a file: limited, seekable.
				_, err = w.ReadFrom(&io.LimitedReader{R: strings.NewReader(body), N: int64(len(body))})
			} else {
				for p := body; len(p) > 0 && err == nil; p = p[min(c.pieces, len(p)):] {
					_, err = w.Write([]byte(p[:min(c.pieces, len(p))]))
					clk.t = clk.t.Add(c.gap)
				}
			}
			if err != nil || log.Body.String() != body {
				t.Fatalf("%d bytes, %v", log.Body.Len(), err)
			}
			if fmt.Sprint(log.sends) != fmt.Sprint(c.want) {
				t.Errorf("sends (since the start, bytes) %v\nwant %v", log.sends, c.want)
			}
		})
	}
}

// scheduled is a writer for r on a virtual clock from start, whose sends
// the log records.
func scheduled(r *http.Request, start time.Time, rate, after, header int64, s Sends) (*writer, *sendLog) {
	clk := &virtualClock{t: start}
	log := &sendLog{wireRecorder: &wireRecorder{ResponseRecorder: httptest.NewRecorder(), header: header}, clock: clk, start: start}
	w := &writer{ResponseWriter: log, r: r, clock: clk, start: start,
		limits: func(*http.Request) (int64, int64) { return rate, after }, sends: s}
	w.wire = log
	return w, log
}

// TestThrottleSendfileOverTLS: over TLS NGINX reads a file into memory
// (its SSL sendfile needs kernel TLS, off by default), so sendfile on
// rounds no send up to a page: the schedule is sendfile off's.
func TestThrottleSendfileOverTLS(t *testing.T) {
	body := strings.Repeat("x", 72<<10)
	w, log := scheduled(httptest.NewRequest("GET", "https://t/", nil), time.Unix(1000, 0), 32<<10, 0, 239, Sends{File: true})
	if _, err := w.ReadFrom(&io.LimitedReader{R: strings.NewReader(body), N: int64(len(body))}); err != nil {
		t.Fatal(err)
	}
	want := []send{{0, 32<<10 - 239}, {1000 * time.Millisecond, 32 << 10}, {2000 * time.Millisecond, 8192 + 239}}
	if fmt.Sprint(log.sends) != fmt.Sprint(want) {
		t.Errorf("sends (since the start, bytes) %v\nwant %v", log.sends, want)
	}
}

// TestThrottleHugeLimits: a rate or limit_rate_after near the int64 most
// (an upstream's X-Accel-Limit-Rate, "limit_rate $arg_r": untrusted, up to
// 2^63-1) lets the body go without a wait, before the clock turns a second
// and after: rate × seconds and the bytes' time must not overflow into a
// wait that never ends.
func TestThrottleHugeLimits(t *testing.T) {
	const most = int64(^uint64(0) >> 1)
	body := strings.Repeat("x", 64<<10)
	for _, c := range []struct {
		name        string
		rate, after int64
	}{
		{"rate", most, 0},
		{"half rate", most/2 + 1, 0},
		{"after", 1 << 20, most},
		{"both", most, most},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Unix(1000, 900e6)
			clk := &virtualClock{t: start}
			log := &sendLog{wireRecorder: &wireRecorder{ResponseRecorder: httptest.NewRecorder(), header: 200}, clock: clk, start: start}
			w := &writer{ResponseWriter: log, r: httptest.NewRequest("GET", "/", nil), clock: clk, start: start,
				limits: func(*http.Request) (int64, int64) { return c.rate, c.after }}
			w.wire = log
			done := make(chan error, 1)
			go func() {
				var err error
				// 8 KB pieces 400 ms apart: the writes cross three
				// turns of the clock's second.
				for p := body; len(p) > 0 && err == nil; p = p[8<<10:] {
					_, err = w.Write([]byte(p[:8<<10]))
					clk.t = clk.t.Add(400 * time.Millisecond)
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil || log.Body.String() != body {
					t.Fatalf("%d bytes, %v", log.Body.Len(), err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the writer did not return in 10 s")
			}
			// Nothing waited: each piece went when it was written.
			for i, s := range log.sends {
				if s.at != time.Duration(i)*400*time.Millisecond {
					t.Errorf("sends (since the start, bytes) %v, want one each 400 ms", log.sends)
					break
				}
			}
		})
	}
}

// TestThrottleH2HeaderCountedOnce: over HTTP/2 the HEADERS frame counts
// against limit_rate_after once; a superfluous WriteHeader, which Go's
// server ignores, sends no second frame and must not count one.
func TestThrottleH2HeaderCountedOnce(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.ProtoMajor, r.ProtoMinor = 2, 0
	w := &writer{ResponseWriter: httptest.NewRecorder(), r: r, start: time.Now(),
		limits: func(*http.Request) (int64, int64) { return 1, 1 << 20 }}
	w.WriteHeader(http.StatusOK)
	once := w.onWire()
	w.WriteHeader(http.StatusOK)
	if once <= 9 || w.onWire() != once {
		t.Errorf("on the wire after one WriteHeader %d, after two %d; want the HEADERS frame once", once, w.onWire())
	}
}

// TestWrap: Wrap reads the limits once, when it is called (as the
// header goes out), and returns the writer itself where they set no
// rate, so that such a response pays for no writer; with a rate, the
// body it is given is paced.
func TestWrap(t *testing.T) {
	body := strings.Repeat("x", 12000)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := httptest.NewRequestWithContext(ctx, "GET", "/", nil)
	var reads int
	limits := func(rate int64) Limits {
		return func(*http.Request) (int64, int64) { reads++; return rate, 0 }
	}
	rec := httptest.NewRecorder()
	if w := Wrap(rec, r, limits(0), Sends{}); w != http.ResponseWriter(rec) || reads != 1 {
		t.Errorf("without a rate: %T, limits read %d times; want the recorder itself, read once", w, reads)
	}
	reads = 0
	w := Wrap(rec, r, limits(10000), Sends{MaxChunk: DefaultMaxChunk})
	if w == http.ResponseWriter(rec) {
		t.Fatal("with a rate: the recorder itself, want a paced writer")
	}
	// 12000 bytes at 10000 per second with a second of slack: 0.2 s.
	start := time.Now()
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, body)
	if d := time.Since(start); rec.Body.String() != body || d < 150*time.Millisecond || reads != 1 {
		t.Errorf("with a rate: %d bytes in %v, limits read %d times; want paced, read once", rec.Body.Len(), d, reads)
	}
}
