package pace

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// TestArithmetic: NGINX's numbers (ngx_http_write_filter_module.c,
// ngx_event_pipe.c, 1.22.1) from a start 300 ms into a second.
func TestArithmetic(t *testing.T) {
	start := time.Unix(1000, 300e6)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	// A second's worth at once, two once the clock turns (700 ms in).
	if n := Limit(1000, start, at(699), 0); n != 1000 {
		t.Errorf("Limit at 699 ms: %d, want 1000", n)
	}
	if n := Limit(1000, start, at(700), 400); n != 1600 {
		t.Errorf("Limit at 700 ms, 400 gone: %d, want 1600", n)
	}
	// Spent: NGINX waits 1 ms (what is missing, 0, plus one), over
	// again, so it goes on as its clock turns, 700 ms in; 500 short, it
	// waits 501 ms, and as many again since its clock has not turned:
	// 1002 ms in.
	if w := Wake(1000, start, at(0), 1000); !w.Equal(at(700)) {
		t.Errorf("Wake, spent: %v, want 700 ms", w.Sub(start))
	}
	if w := Wake(1000, start, at(0), 1500); !w.Equal(at(1002)) {
		t.Errorf("Wake, 500 short: %v, want 1002 ms", w.Sub(start))
	}
	// Past the second: 2,500 gone by 1,200 ms; the clock's second 1
	// allows 2,000, so it is 500 short: 501 ms, the second turns then.
	if w := Wake(1000, start, at(1200), 2500); !w.Equal(at(1701)) {
		t.Errorf("Wake, second 1: %v, want 1701 ms", w.Sub(start))
	}
	// Saturated, not overflowed, at the int64 most (a rate or a
	// limit_rate_after from an upstream's header); a clock stepped back
	// counts as the start's second.
	const most = int64(^uint64(0) >> 1)
	if n := Limit(most, start, at(1000), 0); n != most {
		t.Errorf("Limit at rate 2^63-1, second 1: %d, want the most", n)
	}
	if n := Limit(1000, start, at(0), -most); n != most {
		t.Errorf("Limit with 2^63-1 still to go at once: %d, want the most", n)
	}
	if n := Limit(1000, start, at(-5000), 0); n != 1000 {
		t.Errorf("Limit 5 s before the start: %d, want 1000", n)
	}
	// The bytes' time in whole milliseconds: 999 bytes at 1000/s hold
	// the next back 999 ms; 2 bytes at 3000/s, none.
	if d := Delay(1000, 999); d != 999*time.Millisecond {
		t.Errorf("Delay(1000, 999): %v", d)
	}
	if d := Delay(3000, 2); d != 0 {
		t.Errorf("Delay(3000, 2): %v", d)
	}
}

// TestReader: 1,500 bytes at 1000 per second read 100 bytes at a time
// take 1.4 s, as NGINX's pipe waits 100 ms after each read: the reads'
// waits, not the second's allowance, set the pace (which let the first
// 1,000 bytes go at once, and ended at 0.5 s, before). Load only
// lengthens it; the ceiling is loose.
func TestReader(t *testing.T) {
	r := NewReader(context.Background(), bytes.NewReader(make([]byte, 1500)), 1000)
	start := time.Now()
	buf := make([]byte, 100)
	var got int
	for {
		n, err := io.ReadFull(r, buf)
		got += n
		if err != nil {
			break
		}
	}
	d := time.Since(start)
	if got != 1500 || d < 1400*time.Millisecond || d > 5*time.Second {
		t.Errorf("%d bytes in %v, want 1500 in 1.4 s", got, d)
	}
}

// TestFileSend: NGINX's sends of a 102,400-byte file at limit_rate 32k
// with sendfile on, as read on the wire from Debian's NGINX 1.22.1
// (TestLimitRateSendfileAsNGINX, cmd/mosaic): the header's 239 bytes
// leave 32,529 of the first second's allowance, rounded up to 32,768 of
// the file; a range from 1000 ends its first send on the page at
// 36,864; a rounding past the file's end takes the allowance alone.
func TestFileSend(t *testing.T) {
	if Page != 4096 {
		t.Skipf("pages of %d bytes: the numbers below are for 4096", Page)
	}
	for _, c := range []struct{ limit, pos, end, want int64 }{
		{32768 - 239, 0, 102400, 32768},
		{32768 - 238, 32768, 102400, 32768},
		{32768 - 271, 1000, 102400, 35864},
		{10000 - 239, 0, 102400, 12288}, // sendfile_max_chunk 10000
		{29401, 69632, 102400, 32768},   // the rest, to the end
		{5000, 100000, 102400, 2400},
		{5000, 90000, 96000, 5000}, // the page, 98304, is past the end
		{4096, 8192, 102400, 4096}, // on a page already
	} {
		if got := FileSend(c.limit, c.pos, c.end); got != c.want {
			t.Errorf("FileSend(%d, %d, %d) = %d, want %d", c.limit, c.pos, c.end, got, c.want)
		}
	}
}

// TestReaderEndsWithCause: a read waiting for its turn ends when the
// context does, with the cause it was cancelled with (context.Cause), as
// throttle's sends do: the proxy then tells why the body stopped.
func TestReaderEndsWithCause(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	r := NewReader(ctx, bytes.NewReader(make([]byte, 100)), 10)
	buf := make([]byte, 10)
	if _, err := io.ReadFull(r, buf); err != nil {
		t.Fatal(err)
	}
	cause := errors.New("client gone")
	time.AfterFunc(50*time.Millisecond, func() { cancel(cause) })
	start := time.Now()
	_, err := io.ReadFull(r, buf) // due in 1 s, at 10 bytes a second
	if !errors.Is(err, cause) || time.Since(start) > 900*time.Millisecond {
		t.Errorf("read ended with %v after %v, want %v before 1 s", err, time.Since(start), cause)
	}
}
