package compress_test

import (
	"bytes"
	"net/http"
	"os/exec"
	"strconv"
	"testing"

	"github.com/mosaic-edge/mosaic/brotli"
	"github.com/mosaic-edge/mosaic/compress"
)

// brotliLevelURLs serves body at level through one handler per shape: with
// its Content-Length (compressed in one go), without (streamed), and
// written in two halves with a flush between them.
func brotliLevelURLs(t *testing.T, level int, body []byte, contentType string) (sized, streamed, flushed string) {
	t.Helper()
	opts := allOn(func(o *compress.Options) {
		o.Brotli.Level = level
		o.Brotli.Types = []string{"*"}
	})
	ct := "Content-Type: " + contentType
	sized = serve(t, mustNew(t, respond(200, body, ct, "Content-Length: "+strconv.Itoa(len(body))), opts))
	streamed = serve(t, mustNew(t, respond(200, body, ct), opts))
	flushed = serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		w.Write(body[len(body)/2:])
	}), opts))
	return sized, streamed, flushed
}

// fetchBrotli gets url's brotli body, twice: the second response reuses the
// first one's encoder, and both must be the same bytes.
func fetchBrotli(t *testing.T, url string) []byte {
	t.Helper()
	resp, first := fetch(t, http.MethodGet, url, "Accept-Encoding: br")
	if resp.Header.Get("Content-Encoding") != "br" {
		t.Fatalf("%s: not brotli (%q)", url, resp.Header.Get("Content-Encoding"))
	}
	_, second := fetch(t, http.MethodGet, url, "Accept-Encoding: br")
	if !bytes.Equal(first, second) {
		t.Fatalf("%s: a reused encoder made other bytes (%d, then %d)", url, len(first), len(second))
	}
	return first
}

// Every level, 0 to 11, is served by mosaic's own encoder, with the size
// hint from Content-Length and font mode for fonts: the bytes are the
// package's own output for the same settings, also from a reused encoder.
func TestBrotliEncoderPerLevel(t *testing.T) {
	encoderOnly(t)
	js := jquery(t)
	own := func(opts brotli.Options, stream bool) []byte {
		opts.LGWin = 19 // the default brotli_window, 512k
		if !stream {
			out, err := brotli.Encode(nil, js, opts)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		var b bytes.Buffer
		w, err := brotli.NewWriter(&b, opts)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(js)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, level := range []int{0, 1, 4, 5, 9, 10, 11} {
		sized, streamed, _ := brotliLevelURLs(t, level, js, "text/javascript")
		sizedWant, streamedWant := own(brotli.Options{Quality: level}, false), own(brotli.Options{Quality: level}, true)
		if got := fetchBrotli(t, sized); !bytes.Equal(got, sizedWant) {
			t.Errorf("level %d with Content-Length: %d bytes, not the expected encoder's %d", level, len(got), len(sizedWant))
		}
		if got := fetchBrotli(t, streamed); !bytes.Equal(got, streamedWant) {
			t.Errorf("level %d streamed: %d bytes, not the expected encoder's %d", level, len(got), len(streamedWant))
		}
	}

	// A small body: the size hint (Content-Length) shrinks the hash table,
	// which changes the bytes; Encode takes the hint from the body.
	small := js[:3000]
	for level := 1; level <= 4; level++ {
		sized, _, _ := brotliLevelURLs(t, level, small, "text/javascript")
		want, err := brotli.Encode(nil, small, brotli.Options{Quality: level, LGWin: 19})
		if err != nil {
			t.Fatal(err)
		}
		if got := fetchBrotli(t, sized); !bytes.Equal(got, want) {
			t.Errorf("level %d, 3000 bytes with Content-Length: %d bytes, not the size-hinted %d", level, len(got), len(want))
		}
	}

	// A font at level 4: font mode, which codes distances differently.
	sized, streamed, _ := brotliLevelURLs(t, 4, js, "font/ttf")
	font := own(brotli.Options{Quality: 4, Mode: brotli.ModeFont}, false)
	if bytes.Equal(font, own(brotli.Options{Quality: 4}, false)) {
		t.Fatal("font mode makes the same bytes: the test cannot tell the modes apart")
	}
	if got := fetchBrotli(t, sized); !bytes.Equal(got, font) {
		t.Errorf("font/ttf at level 4: %d bytes, not font mode's %d", len(got), len(font))
	}
	if got := fetchBrotli(t, streamed); !bytes.Equal(got, own(brotli.Options{Quality: 4, Mode: brotli.ModeFont}, true)) {
		t.Errorf("font/ttf at level 4 streamed: not font mode's bytes")
	}
}

// Every level's output, one-shot, streamed and flushed, decodes with
// Google's decoder (the brotli tool) to the body.
func TestBrotliEveryLevelDecodesWithTool(t *testing.T) {
	encoderOnly(t)
	cli, err := exec.LookPath("brotli")
	if err != nil {
		t.Skip("brotli command-line tool not installed")
	}
	js := jquery(t)
	for level := 0; level <= 11; level++ {
		sized, streamed, flushed := brotliLevelURLs(t, level, js, "text/javascript")
		for _, url := range []string{sized, streamed, flushed} {
			raw := fetchBrotli(t, url)
			cmd := exec.Command(cli, "-d", "-c")
			cmd.Stdin = bytes.NewReader(raw)
			out, err := cmd.Output()
			if err != nil || !bytes.Equal(out, js) {
				t.Errorf("level %d, %s: brotli -d gave %d bytes of %d (%v)", level, url, len(out), len(js), err)
			}
		}
	}
}
