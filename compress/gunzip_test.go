package compress_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/internal/pcre"
)

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// gzipOrigin answers like an upstream that stores gzip: in writes of 1000
// bytes, with a strong ETag and its length.
func gzipOrigin(status int, gz []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(gz)))
		w.Header().Set("Etag", `"gz1"`)
		w.WriteHeader(status)
		for b := gz; len(b) > 0; b = b[min(1000, len(b)):] {
			if _, err := w.Write(b[:min(1000, len(b))]); err != nil {
				return
			}
		}
	})
}

func TestGunzip(t *testing.T) {
	page := text(300 << 10)
	gz := gzipped(t, page)
	withGunzip := func(mod func(*compress.Options)) compress.Options {
		return allOn(func(o *compress.Options) {
			o.Gunzip = true
			if mod != nil {
				mod(o)
			}
		})
	}
	for _, tc := range []struct {
		name    string
		opts    compress.Options
		status  int
		request []string
		want    string // Content-Encoding on the wire
		body    []byte // undecoded body expected, when it is not page
	}{
		{"no Accept-Encoding", withGunzip(nil), 200, nil, "", nil},
		{"identity only", withGunzip(nil), 200, []string{"Accept-Encoding: identity"}, "", nil},
		{"client takes gzip", withGunzip(nil), 200, []string{"Accept-Encoding: gzip"}, "gzip", gz},
		{"recompressed with br", withGunzip(nil), 200, []string{"Accept-Encoding: br"}, "br", nil},
		{"recompressed with zstd", withGunzip(nil), 200, []string{"Accept-Encoding: zstd, gzip;q=0"}, "zstd", nil},
		{"gzip refused by gzip_disable", withGunzip(func(o *compress.Options) {
			o.Brotli.Enable, o.Zstd.Enable = false, false
			o.Gzip.Disable.Patterns = []compress.UserAgentPattern{pcre.MustCompile("oldclient", true)}
		}), 200, []string{"User-Agent: OldClient/1", "Accept-Encoding: gzip"}, "", nil},
		{"error status", withGunzip(nil), 500, nil, "", nil},
		{"only gunzip on", compress.Options{Gunzip: true, Vary: true}, 200, []string{"Accept-Encoding: br"}, "", nil},
		{"gunzip off", allOn(nil), 200, nil, "gzip", gz},
	} {
		url := serve(t, mustNew(t, gzipOrigin(tc.status, gz), tc.opts))
		resp, raw := fetch(t, http.MethodGet, url, tc.request...)
		if got := resp.Header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("%s: Content-Encoding %q, want %q", tc.name, got, tc.want)
			continue
		}
		if tc.body != nil {
			if !bytes.Equal(raw, tc.body) {
				t.Errorf("%s: the gzip body was changed", tc.name)
			}
		} else if !bytes.Equal(decode(t, tc.want, raw), page) {
			t.Errorf("%s: body does not decode to the page", tc.name)
		}
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d", tc.name, resp.StatusCode)
		}
		if tc.opts.Gunzip {
			if resp.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("%s: Vary %q", tc.name, resp.Header.Get("Vary"))
			}
			if tc.body == nil && resp.Header.Get("Etag") != `W/"gz1"` {
				t.Errorf("%s: ETag %q after decoding", tc.name, resp.Header.Get("Etag"))
			}
		}
	}
}

func TestGunzipHead(t *testing.T) {
	gz := gzipped(t, text(5000))
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(gz)))
	}), allOn(func(o *compress.Options) { o.Gunzip = true })))
	for _, tc := range []struct{ ae, want string }{{"identity", ""}, {"br", "br"}, {"gzip", "gzip"}} {
		resp, b := fetch(t, http.MethodHead, url, "Accept-Encoding: "+tc.ae)
		if len(b) != 0 || resp.Header.Get("Content-Encoding") != tc.want {
			t.Errorf("HEAD, %s: Content-Encoding %q, %d bytes", tc.ae, resp.Header.Get("Content-Encoding"), len(b))
		}
		if tc.want != "gzip" && resp.Header.Get("Content-Length") != "" {
			t.Errorf("HEAD, %s: the gzip length %q was kept", tc.ae, resp.Header.Get("Content-Length"))
		}
	}
}

func TestGunzipCorrupt(t *testing.T) {
	gz := gzipped(t, text(300<<10))
	gz[len(gz)/2] ^= 0xff
	gz[len(gz)/2+1] ^= 0xff
	url := serve(t, mustNew(t, gzipOrigin(200, gz), allOn(func(o *compress.Options) { o.Gunzip = true })))
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	resp, err := rawClient.Do(req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Fatal("a corrupt gzip body reached the client as a complete response")
	}
}

// A flush from the handler delivers what has been decoded so far.
func TestGunzipFlush(t *testing.T) {
	proceed := make(chan struct{})
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		for i := range 3 {
			fmt.Fprintf(zw, "data: %d\n\n", i)
			zw.Flush()
			w.(http.Flusher).Flush()
			select {
			case <-proceed:
			case <-time.After(5 * time.Second):
				t.Errorf("event %d was not delivered", i)
				return
			}
		}
		zw.Close()
	}), allOn(func(o *compress.Options) { o.Gunzip = true })))
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for i := range 3 {
		want := fmt.Sprintf("data: %d\n\n", i)
		got := make([]byte, len(want))
		if _, err := io.ReadFull(resp.Body, got); err != nil || string(got) != want {
			t.Fatalf("event %d: %q, %v", i, got, err)
		}
		proceed <- struct{}{}
	}
}
