package compress_test

import (
	"bytes"
	"net/http"
	"os/exec"
	"strconv"
	"testing"

	"github.com/mosaic-edge/mosaic/compress"
)

// streamWindowBits reads WBITS from a brotli stream header (RFC 7932 §9.1).
func streamWindowBits(t *testing.T, stream []byte) int {
	t.Helper()
	if len(stream) < 1 {
		t.Fatal("empty brotli stream")
	}
	bits := uint(stream[0])
	if len(stream) > 1 {
		bits |= uint(stream[1]) << 8
	}
	if bits&1 == 0 {
		return 16
	}
	if n := (bits >> 1) & 7; n != 0 {
		return 17 + int(n)
	}
	if m := (bits >> 4) & 7; m != 0 {
		return 8 + int(m)
	}
	return 17
}

// brotli_window is shrunk to the smallest window that holds the declared
// length, by the brotli tool's rule (2^w - 16 bytes).
func TestBrotliWindow(t *testing.T) {
	for _, tc := range []struct {
		window  int
		size    int
		declare bool
		want    int
	}{
		{512 << 10, 1000, true, 10},
		{512 << 10, 1008, true, 10},
		{512 << 10, 1009, true, 11},
		{512 << 10, 87533, true, 17},
		{512 << 10, 87533, false, 19}, // streamed: the configured window
		{16 << 20, 87533, false, 24},
		{4 << 10, 87533, true, 12}, // never more than configured
		{1 << 10, 5000, true, 10},
	} {
		page := text(tc.size)
		headers := []string{"Content-Type: text/html"}
		if tc.declare {
			headers = append(headers, "Content-Length: "+strconv.Itoa(tc.size))
		}
		url := serve(t, mustNew(t, respond(200, page, headers...), allOn(func(o *compress.Options) { o.Brotli.Window = tc.window })))
		resp, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: br")
		if resp.Header.Get("Content-Encoding") != "br" || !bytes.Equal(decode(t, "br", raw), page) {
			t.Fatalf("window %d, %d bytes: not a brotli round trip", tc.window, tc.size)
		}
		if got := streamWindowBits(t, raw); got != tc.want {
			t.Errorf("window %d, %d bytes (declared %v): WBITS %d, want %d", tc.window, tc.size, tc.declare, got, tc.want)
		}
	}
}

// At level 11 the server's output (mosaic's own encoder) decodes with
// Google's brotli tool and is within 1% of what the tool produces with the
// same quality and window (the encoder's rule against Google's per file;
// summed over the corpus it is smaller), also from a reused encoder.
func TestBrotliAgainstReferenceEncoder(t *testing.T) {
	cli, err := exec.LookPath("brotli")
	if err != nil {
		t.Skip("brotli command-line tool not installed")
	}
	js := jquery(t)
	reference := func(args ...string) []byte {
		out, err := exec.Command(cli, append(args, "-c", "testdata/jquery.min.js")...).Output()
		if err != nil {
			t.Fatalf("brotli %v: %v", args, err)
		}
		return out
	}
	pool := compress.NewEncoderPool(16)
	const level = 11
	q := strconv.Itoa(level)
	opts := allOn(func(o *compress.Options) {
		o.Brotli.Level = level
		o.Brotli.Types = []string{"text/javascript"}
		o.Brotli.Encoders = pool
	})
	streamed := serve(t, mustNew(t, respond(200, js, "Content-Type: text/javascript"), opts))
	sized := serve(t, mustNew(t, respond(200, js, "Content-Type: text/javascript", "Content-Length: "+strconv.Itoa(len(js))), opts))
	// Streamed: the configured 512k window; sized: the tool's own
	// choice from the file's size, which is also mosaic's.
	for _, tc := range []struct {
		url  string
		want []byte
	}{
		{streamed, reference("-q", q, "-w", "19")},
		{sized, reference("-q", q)},
	} {
		var first []byte
		for round := range 2 { // the second response reuses the first's encoder
			_, got := fetch(t, http.MethodGet, tc.url, "Accept-Encoding: br")
			cmd := exec.Command(cli, "-d", "-c")
			cmd.Stdin = bytes.NewReader(got)
			if plain, err := cmd.Output(); err != nil || !bytes.Equal(plain, js) {
				t.Fatalf("level %d, round %d: brotli -d: %v (%d bytes out)", level, round, err, len(plain))
			}
			if len(got)*100 > len(tc.want)*101 {
				t.Errorf("level %d, round %d: %d bytes, more than 1%% over brotli's %d", level, round, len(got), len(tc.want))
			}
			if round == 1 && !bytes.Equal(got, first) {
				t.Errorf("level %d: a reused encoder made other bytes (%d, then %d)", level, len(first), len(got))
			}
			first = got
		}
	}
	// Two responses each way (two windows: two encoders), the second
	// from a reused encoder.
	if s := pool.Stats(); s.Reused < 2 {
		t.Errorf("encoders were not reused: %+v", s)
	}
}
