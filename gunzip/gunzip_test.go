package gunzip_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/gunzip"
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

// page is n bytes of text.
func page(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d of the page\n", i)
	}
	return b.Bytes()[:n]
}

// gzipOrigin answers like an upstream that stores gzip: in writes of 1000
// bytes, with a strong ETag, its length and ranges.
func gzipOrigin(status int, gz []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(gz)))
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Etag", `"gz1"`)
		w.WriteHeader(status)
		for b := gz; len(b) > 0; b = b[min(1000, len(b)):] {
			if _, err := w.Write(b[:min(1000, len(b))]); err != nil {
				return
			}
		}
	})
}

// gunzipTest is NGINX's test with gzip_disable "oldclient".
func gunzipTest(t testing.TB) func(http.ResponseWriter, *http.Request, http.Header) bool {
	t.Helper()
	opts := compress.DefaultOptions()
	opts.Gunzip = true
	opts.Gzip.Disable.Patterns = []compress.UserAgentPattern{pcre.MustCompile("oldclient", true)}
	test, err := compress.GunzipTest(opts)
	if err != nil {
		t.Fatal(err)
	}
	return test
}

func mustNew(t testing.TB, next http.Handler, opts gunzip.Options) http.Handler {
	t.Helper()
	h, err := gunzip.New(next, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func serve(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// rawClient neither asks for gzip nor decodes it.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

func fetch(t testing.TB, method, url string, headers ...string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func TestNewNeedsDecode(t *testing.T) {
	if _, err := gunzip.New(http.NotFoundHandler(), gunzip.Options{}); err == nil {
		t.Fatal("New took Options without Decode")
	}
}

func TestGunzip(t *testing.T) {
	text := page(300 << 10)
	gz := gzipped(t, text)
	for _, tc := range []struct {
		name    string
		status  int
		request []string
		decoded bool
	}{
		{"no Accept-Encoding", 200, nil, true},
		{"identity only", 200, []string{"Accept-Encoding: identity"}, true},
		{"gzip refused", 200, []string{"Accept-Encoding: gzip;q=0, br"}, true},
		{"client takes gzip", 200, []string{"Accept-Encoding: gzip"}, false},
		{"gzip refused by gzip_disable", 200, []string{"User-Agent: OldClient/1", "Accept-Encoding: gzip"}, true},
		{"error status", 500, nil, true},
		{"206: a slice of gzip", 206, nil, false},
	} {
		url := serve(t, mustNew(t, gzipOrigin(tc.status, gz), gunzip.Options{Decode: gunzipTest(t), Vary: true}))
		resp, body, err := fetch(t, http.MethodGet, url, tc.request...)
		if err != nil || resp.StatusCode != tc.status {
			t.Errorf("%s: %d, %v", tc.name, resp.StatusCode, err)
			continue
		}
		want, ce, etag, length, ranges := gz, "gzip", `"gz1"`, strconv.Itoa(len(gz)), "bytes"
		if tc.decoded {
			want, ce, etag, length, ranges = text, "", `W/"gz1"`, "", ""
		}
		if !bytes.Equal(body, want) {
			t.Errorf("%s: body of %d bytes, want %d", tc.name, len(body), len(want))
		}
		h := resp.Header
		if h.Get("Content-Encoding") != ce || h.Get("Etag") != etag || h.Get("Accept-Ranges") != ranges ||
			(length != "" && h.Get("Content-Length") != length) || h.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s: Content-Encoding %q, ETag %q, Accept-Ranges %q, Content-Length %q, Vary %q",
				tc.name, h.Get("Content-Encoding"), h.Get("Etag"), h.Get("Accept-Ranges"), h.Get("Content-Length"), h.Get("Vary"))
		}
	}
}

// Other bodies pass untouched, without a Vary of gunzip's.
func TestGunzipOtherCodings(t *testing.T) {
	for _, ce := range []string{"", "br", "gzip, br", "x-gzip"} {
		url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if ce != "" {
				w.Header().Set("Content-Encoding", ce)
			}
			w.Header().Set("Etag", `"e"`)
			io.WriteString(w, "as it is")
		}), gunzip.Options{Decode: gunzipTest(t), Vary: true}))
		resp, body, err := fetch(t, http.MethodGet, url)
		if err != nil || string(body) != "as it is" || resp.Header.Get("Content-Encoding") != ce ||
			resp.Header.Get("Etag") != `"e"` || resp.Header.Get("Vary") != "" {
			t.Errorf("Content-Encoding %q: %q, %v, %v", ce, body, err, resp.Header)
		}
	}
}

// gunzip inside compression: the decoded body is compressed again with
// what the client takes, as NGINX's gzip and ngx_brotli run after gunzip.
func TestGunzipThenCompress(t *testing.T) {
	text := page(100 << 10)
	inner := mustNew(t, gzipOrigin(200, gzipped(t, text)), gunzip.Options{Decode: gunzipTest(t)})
	opts := compress.DefaultOptions()
	opts.Brotli.Enable = true
	opts.Gunzip = true
	outer, err := compress.New(inner, opts)
	if err != nil {
		t.Fatal(err)
	}
	resp, body, err := fetch(t, http.MethodGet, serve(t, outer), "Accept-Encoding: br")
	if err != nil || resp.Header.Get("Content-Encoding") != "br" {
		t.Fatalf("Content-Encoding %q, %v", resp.Header.Get("Content-Encoding"), err)
	}
	got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(body)))
	if err != nil || !bytes.Equal(got, text) {
		t.Errorf("the brotli body does not decode to the page: %v", err)
	}
}

func TestGunzipHead(t *testing.T) {
	gz := gzipped(t, page(5000))
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(gz)))
		if r.Method == http.MethodGet {
			w.Write(gz)
		}
	}), gunzip.Options{Decode: gunzipTest(t)}))
	for _, tc := range []struct{ ae, want string }{{"identity", ""}, {"gzip", "gzip"}} {
		resp, b, err := fetch(t, http.MethodHead, url, "Accept-Encoding: "+tc.ae)
		if err != nil || len(b) != 0 || resp.Header.Get("Content-Encoding") != tc.want {
			t.Errorf("HEAD, %s: Content-Encoding %q, %d bytes, %v", tc.ae, resp.Header.Get("Content-Encoding"), len(b), err)
		}
		if tc.want == "" && resp.Header.Get("Content-Length") != "" {
			t.Errorf("HEAD, %s: the gzip length %q was kept", tc.ae, resp.Header.Get("Content-Length"))
		}
	}
}

func TestGunzipCorrupt(t *testing.T) {
	gz := gzipped(t, page(300<<10))
	gz[len(gz)/2] ^= 0xff
	gz[len(gz)/2+1] ^= 0xff
	url := serve(t, mustNew(t, gzipOrigin(200, gz), gunzip.Options{Decode: gunzipTest(t)}))
	if _, _, err := fetch(t, http.MethodGet, url); err == nil {
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
	}), gunzip.Options{Decode: gunzipTest(t)}))
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

// countingWriter is a response writer that keeps nothing: it counts the
// bytes and notes the largest write.
type countingWriter struct {
	h       http.Header
	n       int64
	largest int
}

func (c *countingWriter) Header() http.Header { return c.h }
func (c *countingWriter) WriteHeader(int)     {}
func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	c.largest = max(c.largest, len(p))
	return len(p), nil
}

// A body that decodes to 256 MiB goes on in pieces of a fixed size, and
// the memory allocated on its way is a small fraction of it.
func TestGunzipBombBounded(t *testing.T) {
	volumeOnly(t)
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 256 {
		zw.Write(zeros)
	}
	zw.Close()
	bomb := gz.Bytes()
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		for b := bomb; len(b) > 0; b = b[min(4096, len(b)):] {
			w.Write(b[:min(4096, len(b))])
		}
	}), gunzip.Options{Decode: gunzipTest(t)})
	cw := &countingWriter{h: http.Header{}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h.ServeHTTP(cw, httptest.NewRequest(http.MethodGet, "/", nil))
	runtime.ReadMemStats(&after)
	if cw.n != 256<<20 {
		t.Fatalf("%d bytes decoded, want 256 MiB", cw.n)
	}
	if cw.largest > 32<<10 {
		t.Errorf("a write of %d bytes", cw.largest)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("%d bytes allocated to decode 256 MiB", alloc)
	}
}

// readFromRecorder is a response writer that notes whether a body came
// through ReadFrom.
type readFromRecorder struct {
	countingWriter
	readFrom bool
}

func (r *readFromRecorder) ReadFrom(src io.Reader) (int64, error) {
	r.readFrom = true
	return io.Copy(&r.countingWriter, src)
}

// A body that is not decoded keeps the writer's ReadFrom (sendfile); one
// that is decoded goes through the decoder.
func TestGunzipReadFrom(t *testing.T) {
	gz := gzipped(t, page(1000))
	for _, tc := range []struct {
		ce       string
		body     []byte
		readFrom bool
		n        int64
	}{{"", page(1000), true, 1000}, {"gzip", gz, false, 1000}} {
		h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tc.ce != "" {
				w.Header().Set("Content-Encoding", tc.ce)
			}
			w.(io.ReaderFrom).ReadFrom(bytes.NewReader(tc.body))
		}), gunzip.Options{Decode: gunzipTest(t)})
		rec := &readFromRecorder{countingWriter: countingWriter{h: http.Header{}}}
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if rec.readFrom != tc.readFrom || rec.n != tc.n {
			t.Errorf("Content-Encoding %q: ReadFrom used %v, %d bytes", tc.ce, rec.readFrom, rec.n)
		}
	}
}

// abortingWriter panics on its first body write with http.ErrAbortHandler,
// as a filter outside gunzip does when its response must be cut
// (add_before_body whose subrequest failed, ESI's broken replay).
type abortingWriter struct{ countingWriter }

func (a *abortingWriter) Write([]byte) (int, error) { panic(http.ErrAbortHandler) }

// A panic in the writers that the decoded body goes to reaches the
// handler's goroutine, where the server recovers it and closes the
// connection; on the decoder's goroutine it would end the process.
func TestGunzipSinkPanic(t *testing.T) {
	gz := gzipped(t, page(100_000))
	h := mustNew(t, gzipOrigin(http.StatusOK, gz), gunzip.Options{Decode: gunzipTest(t)})
	var got any
	func() {
		defer func() { got = recover() }()
		h.ServeHTTP(&abortingWriter{countingWriter{h: http.Header{}}}, httptest.NewRequest(http.MethodGet, "/", nil))
	}()
	if got != http.ErrAbortHandler {
		t.Fatalf("ServeHTTP panicked with %v, want http.ErrAbortHandler", got)
	}
}

// armedWriter panics with http.ErrAbortHandler on the writes that come
// once armed is set.
type armedWriter struct {
	countingWriter
	armed *bool
}

func (a *armedWriter) Write(p []byte) (int, error) {
	if *a.armed {
		panic(http.ErrAbortHandler)
	}
	return a.countingWriter.Write(p)
}

// A handler that panics halfway through a gzip body: what the decoder
// still holds is not passed on to the response being cut, and the
// handler's own panic is the one the server sees, not one of the
// writers' it would cause.
func TestGunzipHandlerPanic(t *testing.T) {
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.NoCompression)
	zw.Write(page(100_000))
	zw.Close()
	for _, cut := range []int{1000, 40_000, 70_000} {
		armed := false
		h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes()[:cut])
			armed = true
			panic("handler bug")
		}), gunzip.Options{Decode: gunzipTest(t)})
		var got any
		func() {
			defer func() { got = recover() }()
			h.ServeHTTP(&armedWriter{countingWriter{h: http.Header{}}, &armed}, httptest.NewRequest(http.MethodGet, "/", nil))
		}()
		if got != "handler bug" {
			t.Errorf("cut at %d: ServeHTTP panicked with %v, want the handler's panic", cut, got)
		}
	}
}
