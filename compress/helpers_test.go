package compress_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/compress"
)

var fixedTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// allOn returns the default options with every coding on, changed by mod.
func allOn(mod func(*compress.Options)) compress.Options {
	o := compress.DefaultOptions()
	o.Brotli.Enable = true
	o.Zstd.Enable = true
	o.Gzip.Enable = true
	o.Vary = true
	o.Brotli.Encoders = compress.NewEncoderPool(compress.DefaultIdleEncoders)
	if mod != nil {
		mod(&o)
	}
	return o
}

// mustNew is New for options the test knows to be valid.
func mustNew(t testing.TB, next http.Handler, opts compress.Options) http.Handler {
	t.Helper()
	h, err := compress.New(next, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// serve starts a loopback server for h and returns its URL.
func serve(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// rawClient neither asks for nor decodes compression on its own, so tests
// see the bytes on the wire.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// fetch sends a request with the given method and headers ("Name: value")
// and returns the response with its undecoded body.
func fetch(t testing.TB, method, url string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ":")
		req.Header.Add(name, strings.TrimSpace(value))
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return resp, body
}

// streamReader decodes a response body as it arrives.
func streamReader(t *testing.T, coding string, r io.Reader) io.Reader {
	t.Helper()
	switch coding {
	case "br":
		return brotli.NewReader(r)
	case "gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		return zr
	case "zstd":
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(zr.Close)
		return zr
	}
	t.Fatalf("coding %q", coding)
	return nil
}

// decode undoes a Content-Encoding.
func decode(t testing.TB, coding string, body []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return body
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("gzip header: %v", err)
		}
		r = zr
	case "zstd":
		// The limit browsers apply (RFC 9659).
		zr, err := zstd.NewReader(bytes.NewReader(body), zstd.WithDecoderMaxWindow(8<<20))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("unexpected Content-Encoding %q", coding)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decoding %s: %v", coding, err)
	}
	return out
}

// fetchDecoded fetches and checks that the body decodes to want.
func fetchDecoded(t testing.TB, url string, want []byte, headers ...string) *http.Response {
	t.Helper()
	resp, body := fetch(t, http.MethodGet, url, headers...)
	got := decode(t, resp.Header.Get("Content-Encoding"), body)
	if !bytes.Equal(got, want) {
		t.Fatalf("decoded body: %d bytes, want %d", len(got), len(want))
	}
	return resp
}

// respond returns a handler that sends status and b with the given headers
// ("Name: value").
func respond(status int, b []byte, headers ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, h := range headers {
			name, value, _ := strings.Cut(h, ":")
			w.Header().Add(name, strings.TrimSpace(value))
		}
		w.WriteHeader(status)
		w.Write(b)
	})
}

// text is a compressible body of n bytes.
func text(n int) []byte {
	const line = "<p>The quick brown fox jumps over the lazy dog, again and again.</p>\n"
	return bytes.Repeat([]byte(line), n/len(line)+1)[:n]
}

func jquery(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/jquery.min.js")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
