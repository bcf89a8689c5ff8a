package compress_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/internal/cbrotli"
)

// TestMain removes Google's decoder once the tests are done with it.
func TestMain(m *testing.M) {
	code := m.Run()
	cbrotli.Cleanup()
	os.Exit(code)
}

// dictVersions returns an old version of a script, the dictionary, and a
// new one: the old with its first kilobyte dropped, a line changed and
// one added, as a release changes a bundle.
func dictVersions(t testing.TB) (older, newer []byte) {
	js := jquery(t)
	older = js[:60_000]
	newer = bytes.Clone(js[1_000:61_000])
	newer = bytes.Replace(newer, []byte("function"), []byte("function "), 3)
	newer = append(newer, "\n/* build 2026-12-03 */\n"...)
	return older, newer
}

// checkDict checks that body is want in dcb or dcz against dict: the
// header (magic number and the dictionary's hash), then the stream
// decoded with dict, dcb by Google's decoder (not decoded when it cannot
// be built: the test goes on with the rest, and says so), dcz by
// klauspost's and, when installed, the zstd tool, which must skip the
// header's frame itself.
func checkDict(t *testing.T, coding string, body, dict, want []byte) {
	t.Helper()
	out, ok := decodeDict(t, coding, body, dict)
	if ok && !bytes.Equal(out, want) {
		t.Fatalf("%s: decoded %d bytes, want %d", coding, len(out), len(want))
	}
}

func decodeDict(t *testing.T, coding string, body, dict []byte) ([]byte, bool) {
	t.Helper()
	hash := sha256.Sum256(dict)
	var magic []byte
	switch coding {
	case "dcb":
		magic = []byte{0xff, 0x44, 0x43, 0x42}
	case "dcz":
		magic = []byte{0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00}
	default:
		t.Fatalf("Content-Encoding %q, want dcb or dcz", coding)
	}
	if !bytes.HasPrefix(body, magic) || !bytes.Equal(body[len(magic):len(magic)+32], hash[:]) {
		t.Fatalf("%s body starts % x, want the magic number and the dictionary's hash", coding, body[:min(len(body), 40)])
	}
	if coding == "dcb" {
		path, err := cbrotli.Decoder()
		if err != nil {
			t.Logf("dcb header checked, stream not decoded: no C decoder with dictionaries: %v", err)
			return nil, false
		}
		out, err := cbrotli.Decode(path, t.TempDir(), body[36:], dict)
		if err != nil {
			t.Fatalf("Google's decoder: %v", err)
		}
		return out, true
	}
	// The header is a skippable frame: the decoders read the whole body.
	zr, err := zstd.NewReader(bytes.NewReader(body), zstd.WithDecoderDictRaw(0, dict), zstd.WithDecoderMaxWindow(128<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("decoding dcz: %v", err)
	}
	if tool, err := exec.LookPath("zstd"); err == nil {
		dir := t.TempDir()
		df := filepath.Join(dir, "dict")
		if err := os.WriteFile(df, dict, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(tool, "-d", "-q", "-c", "-D", df)
		cmd.Stdin = bytes.NewReader(body)
		got, err := cmd.Output()
		if err != nil || !bytes.Equal(got, out) {
			t.Fatalf("zstd -d -D: %d bytes, %v; klauspost: %d bytes", len(got), err, len(out))
		}
	}
	return out, true
}

// jsTypes has every coding take the test's script.
func jsTypes(o *compress.Options) {
	js := []string{"application/javascript"}
	o.Brotli.Types, o.Zstd.Types, o.Gzip.Types = js, js, js
}

func availableDictionary(dict []byte) string {
	h := sha256.Sum256(dict)
	return "Available-Dictionary: :" + base64.StdEncoding.EncodeToString(h[:]) + ":"
}

// A client that holds the old version and accepts dcb or dcz gets the new
// one compressed against it, from Content-Length bodies held for one burst
// and from streamed ones, at levels the own encoder serves and at 11, with
// Vary naming Available-Dictionary; it comes out a small fraction of br's
// size.
func TestDictionaryCodings(t *testing.T) {
	older, newer := dictVersions(t)
	d, err := compress.NewDictionary("old.js", older)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.AvailableDictionary(), strings.TrimPrefix(availableDictionary(older), "Available-Dictionary: "); got != want {
		t.Fatalf("AvailableDictionary() = %q, want %q", got, want)
	}
	streamed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/javascript")
		for p := newer; len(p) > 0; {
			n := min(len(p), 7_000)
			w.Write(p[:n])
			p = p[n:]
		}
	})
	for _, level := range []int{5, 11} {
		for _, body := range []struct {
			name string
			h    http.Handler
		}{
			{"length", respond(200, newer, "Content-Type: application/javascript")},
			{"streamed", streamed},
		} {
			url := serve(t, mustNew(t, body.h, allOn(func(o *compress.Options) {
				jsTypes(o)
				o.Brotli.Level = level
				o.Dictionaries = []*compress.Dictionary{d}
			})))
			_, br := fetch(t, http.MethodGet, url, "Accept-Encoding: br")
			for _, c := range []struct{ accept, want string }{
				{"gzip, br, zstd, dcb, dcz", "dcb"},
				{"gzip, zstd, dcz", "dcz"},
			} {
				what := fmt.Sprintf("level %d, %s body, Accept-Encoding %q", level, body.name, c.accept)
				resp, got := fetch(t, http.MethodGet, url, "Accept-Encoding: "+c.accept, availableDictionary(older))
				if ce := resp.Header.Get("Content-Encoding"); ce != c.want {
					t.Fatalf("%s: Content-Encoding %q, want %q", what, ce, c.want)
				}
				vary := strings.Join(resp.Header["Vary"], ", ")
				if !strings.Contains(vary, "Accept-Encoding") || !strings.Contains(vary, "Available-Dictionary") {
					t.Errorf("%s: Vary %q, want Accept-Encoding and Available-Dictionary", what, vary)
				}
				checkDict(t, c.want, got, older, newer)
				if len(got)*10 > len(br) {
					t.Errorf("%s: %d bytes against %d with br alone: the dictionary was not used", what, len(got), len(br))
				}
				t.Logf("%s: %d bytes (br alone %d)", what, len(got), len(br))
			}
		}
	}
}

// The dictionary codings are not used when the request does not name the
// dictionary exactly, does not accept them, or comes from a page that may
// not read the response (RFC 9842 section 9.3); nor for bodies the coding's
// own directives leave alone. The response is then what it would be
// without dictionaries, and Vary still names Available-Dictionary.
func TestDictionaryNotUsed(t *testing.T) {
	older, newer := dictVersions(t)
	d, err := compress.NewDictionary("old.js", older)
	if err != nil {
		t.Fatal(err)
	}
	opts := allOn(func(o *compress.Options) {
		jsTypes(o)
		o.Dictionaries = []*compress.Dictionary{d}
		o.Brotli.MinLength = 100
	})
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/javascript")
		if a := r.Header.Get("X-Allow-Origin"); a != "" {
			w.Header().Set("Access-Control-Allow-Origin", a)
		}
		if r.URL.Path == "/small" {
			w.Header().Set("Content-Length", "50")
			w.Write(newer[:50])
			return
		}
		w.Write(newer)
	}), opts))
	avail := availableDictionary(older)
	hash := strings.TrimPrefix(avail, "Available-Dictionary: ")
	other := sha256.Sum256([]byte("another dictionary"))
	for _, c := range []struct {
		name, path string
		headers    []string
		want       string
	}{
		{"no dcb or dcz", "/", []string{"Accept-Encoding: br, zstd", avail}, "br"},
		{"dcb refused by q=0", "/", []string{"Accept-Encoding: br, dcb;q=0", avail}, "br"},
		{"only *", "/", []string{"Accept-Encoding: br, *", avail}, "br"},
		{"unknown dictionary", "/", []string{"Accept-Encoding: br, dcb", "Available-Dictionary: :" + base64.StdEncoding.EncodeToString(other[:]) + ":"}, "br"},
		{"no Available-Dictionary", "/", []string{"Accept-Encoding: br, dcb"}, "br"},
		{"not a byte sequence", "/", []string{"Accept-Encoding: br, dcb", "Available-Dictionary: " + strings.Trim(hash, ":")}, "br"},
		{"two Available-Dictionary", "/", []string{"Accept-Encoding: br, dcb", avail, avail}, "br"},
		{"cross-site no-cors", "/", []string{"Accept-Encoding: br, dcb", avail, "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: no-cors"}, "br"},
		{"cross-site cors, no Allow-Origin", "/", []string{"Accept-Encoding: br, dcb", avail, "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: cors", "Origin: https://a.example"}, "br"},
		{"cross-site cors, other origin", "/", []string{"Accept-Encoding: br, dcb", avail, "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: cors", "Origin: https://a.example", "X-Allow-Origin: https://b.example"}, "br"},
		{"below brotli_min_length", "/small", []string{"Accept-Encoding: br, dcb", avail}, ""},
		// And where it is used, for comparison.
		{"cross-site cors, allowed", "/", []string{"Accept-Encoding: br, dcb", avail, "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: cors", "Origin: https://a.example", "X-Allow-Origin: https://a.example"}, "dcb"},
		{"cross-site cors, any origin", "/", []string{"Accept-Encoding: br, dcb", avail, "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: cors", "Origin: https://a.example", "X-Allow-Origin: *"}, "dcb"},
		{"same-origin", "/", []string{"Accept-Encoding: br, dcb", avail, "Sec-Fetch-Site: same-origin", "Sec-Fetch-Mode: cors"}, "dcb"},
		{"navigation", "/", []string{"Accept-Encoding: br, dcb", avail, "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: navigate"}, "dcb"},
		{"dcb alone", "/", []string{"Accept-Encoding: dcb", avail}, "dcb"},
	} {
		resp, body := fetch(t, http.MethodGet, url+c.path, c.headers...)
		if ce := resp.Header.Get("Content-Encoding"); ce != c.want {
			t.Errorf("%s: Content-Encoding %q, want %q", c.name, ce, c.want)
			continue
		}
		if vary := strings.Join(resp.Header["Vary"], ", "); !strings.Contains(vary, "Available-Dictionary") {
			t.Errorf("%s: Vary %q lacks Available-Dictionary", c.name, vary)
		}
		want := newer
		if c.path == "/small" {
			want = newer[:50]
		}
		if c.want == "dcb" {
			checkDict(t, "dcb", body, older, want)
		} else if got := decode(t, c.want, body); !bytes.Equal(got, want) {
			t.Errorf("%s: decoded %d bytes, want %d", c.name, len(got), len(want))
		}
	}
}

// A HEAD request gets a GET's headers; a dictionary response skips the
// thread pool (the body is compressed serially, against the dictionary)
// and the body cache (which keeps one body per coding), and a plain br
// response after it is the cache's, not the dictionary's.
func TestDictionaryHeadPoolCache(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	older, newer := dictVersions(t)
	// Longer than a segment, so that br is cut into two.
	newer = append(newer, jquery(t)[61_000:]...)
	d, err := compress.NewDictionary("old.js", older)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := compress.NewBodyCache(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	pool := newTestPool(t, 2, 16)
	url := serve(t, mustNew(t, respond(200, newer, "Content-Type: application/javascript", "Cache-Control: max-age=60", "Etag: \"v2\"",
		fmt.Sprintf("Content-Length: %d", len(newer))),
		allOn(func(o *compress.Options) {
			jsTypes(o)
			o.Dictionaries = []*compress.Dictionary{d}
			o.Cache = cache
			o.Brotli.Parallel = compress.DefaultParallel()
			o.Brotli.Parallel.Pool = pool
			o.Brotli.Parallel.SegmentSize = compress.MinSegmentSize
		})))
	avail := availableDictionary(older)
	resp, body := fetch(t, http.MethodHead, url, "Accept-Encoding: br, dcb", avail)
	if ce := resp.Header.Get("Content-Encoding"); ce != "dcb" || len(body) != 0 {
		t.Fatalf("HEAD: Content-Encoding %q, %d bytes of body", ce, len(body))
	}
	for i := range 2 {
		before := pool.submitted.Load()
		resp, body = fetch(t, http.MethodGet, url, "Accept-Encoding: br, dcb", avail)
		if ce := resp.Header.Get("Content-Encoding"); ce != "dcb" {
			t.Fatalf("GET: Content-Encoding %q, want dcb", ce)
		}
		checkDict(t, "dcb", body, older, newer)
		if n := pool.submitted.Load() - before; n != 0 {
			t.Fatalf("a dcb response put %d segments on the pool", n)
		}
		// The cache is not even looked up for dcb.
		if st := cache.Stats(); st.Misses+st.Hits != int64(i) {
			t.Fatalf("after %d dcb responses and %d br ones the cache had %d misses and %d hits", i+1, i, st.Misses, st.Hits)
		}
		resp = fetchDecoded(t, url, newer, "Accept-Encoding: br")
		if ce := resp.Header.Get("Content-Encoding"); ce != "br" {
			t.Fatalf("Content-Encoding %q, want br", ce)
		}
		if st := cache.Stats(); st.Misses+st.Hits != int64(i+1) {
			t.Fatalf("after %d br responses the cache had %d misses and %d hits", i+1, st.Misses, st.Hits)
		}
	}
	// The br response was cut (the pool is in use), the dcb one was not.
	if pool.submitted.Load() == 0 {
		t.Error("br response not cut into segments: the test shows nothing about the pool")
	}
}

// NewDictionary refuses what no client could hold.
func TestNewDictionaryBounds(t *testing.T) {
	if _, err := compress.NewDictionary("empty", nil); err == nil {
		t.Error("empty dictionary accepted")
	}
	if _, err := compress.NewDictionary("huge", make([]byte, compress.MaxDictionary+1)); err == nil {
		t.Error("dictionary over MaxDictionary accepted")
	}
	if _, err := compress.NewDictionary("max", make([]byte, compress.MaxDictionary)); err != nil {
		t.Error(err)
	}
}

// BenchmarkDictionary is what a response costs compressed against the
// dictionary the client holds (dcb, dcz) and without it (br, zstd), per
// level: the new version of the test script, the old one as dictionary.
// The dictionary's bytes are entered in the encoder's tables per response.
func BenchmarkDictionary(b *testing.B) {
	older, newer := dictVersions(b)
	d, err := compress.NewDictionary("old.js", older)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		coding, accept string
		level          int
	}{
		{"br", "br", 5}, {"dcb", "br, dcb", 5},
		{"br", "br", 11}, {"dcb", "br, dcb", 11},
		{"zstd", "zstd", 3}, {"dcz", "zstd, dcz", 3},
	} {
		b.Run(fmt.Sprintf("%s/level=%d", c.coding, c.level), func(b *testing.B) {
			h := mustNew(b, respond(200, newer, "Content-Type: application/javascript", fmt.Sprintf("Content-Length: %d", len(newer))),
				allOn(func(o *compress.Options) {
					jsTypes(o)
					o.Brotli.Level = c.level
					o.Zstd.Level = c.level
					o.Dictionaries = []*compress.Dictionary{d}
				}))
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set("Accept-Encoding", c.accept)
			req.Header.Set("Available-Dictionary", d.AvailableDictionary())
			w := benchServe(b, h, req, len(newer))
			if ce := w.h.Get("Content-Encoding"); ce != c.coding {
				b.Fatalf("Content-Encoding %q, want %q", ce, c.coding)
			}
			b.ReportMetric(float64(w.n), "bytes")
		})
	}
}

// Buffers smaller than a dcb or dcz header (brotli_buffers 1 16) still
// send Content-Encoding with it: the header is held with the output,
// not sent ahead of the coding's headers.
func TestDictionarySmallBuffers(t *testing.T) {
	older, newer := dictVersions(t)
	d, err := compress.NewDictionary("old.js", older)
	if err != nil {
		t.Fatal(err)
	}
	url := serve(t, mustNew(t, respond(200, newer, "Content-Type: application/javascript", fmt.Sprintf("Content-Length: %d", len(newer))),
		allOn(func(o *compress.Options) {
			jsTypes(o)
			o.Dictionaries = []*compress.Dictionary{d}
			o.Brotli.Buffers = compress.Buffers{Number: 1, Size: 16}
			o.Zstd.Buffers = compress.Buffers{Number: 1, Size: 16}
		})))
	for _, c := range []struct{ accept, want string }{{"br, dcb", "dcb"}, {"zstd, dcz", "dcz"}} {
		resp, body := fetch(t, http.MethodGet, url, "Accept-Encoding: "+c.accept, availableDictionary(older))
		if ce := resp.Header.Get("Content-Encoding"); ce != c.want || resp.ContentLength == int64(len(newer)) {
			t.Fatalf("%s: Content-Encoding %q, Content-Length %d (the identity body's is %d)", c.want, ce, resp.ContentLength, len(newer))
		}
		checkDict(t, c.want, body, older, newer)
	}
}

// A 304 carries the Vary its 200 would: Available-Dictionary too where
// dictionaries are configured (and gzip_vary is on).
func TestDictionaryVary304(t *testing.T) {
	older, _ := dictVersions(t)
	d, err := compress.NewDictionary("old.js", older)
	if err != nil {
		t.Fatal(err)
	}
	url := serve(t, mustNew(t, respond(http.StatusNotModified, nil, "Content-Type: application/javascript", `Etag: "v1"`),
		allOn(func(o *compress.Options) {
			jsTypes(o)
			o.Dictionaries = []*compress.Dictionary{d}
		})))
	resp, _ := fetch(t, http.MethodGet, url, "Accept-Encoding: br, dcb", availableDictionary(older), `If-None-Match: "v1"`)
	if vary := strings.Join(resp.Header["Vary"], ", "); resp.StatusCode != http.StatusNotModified || vary != "Accept-Encoding, Available-Dictionary" {
		t.Fatalf("status %d, Vary %q", resp.StatusCode, vary)
	}
}

// Levels 10 and 11 compress dcb at 9: at those levels every response
// would enter the dictionary in a binary tree, seconds of CPU for a
// dictionary of megabytes, which any client can ask for.
func TestDictionaryLevelCap(t *testing.T) {
	older, newer := dictVersions(t)
	d, err := compress.NewDictionary("old.js", older)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	var mu sync.Mutex
	lg := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	url := serve(t, mustNew(t, respond(200, newer, "Content-Type: application/javascript"),
		allOn(func(o *compress.Options) {
			jsTypes(o)
			o.Brotli.Level = 11
			o.Dictionaries = []*compress.Dictionary{d}
			o.Logger = lg
		})))
	resp, body := fetch(t, http.MethodGet, url, "Accept-Encoding: br, dcb", availableDictionary(older))
	if ce := resp.Header.Get("Content-Encoding"); ce != "dcb" {
		t.Fatalf("Content-Encoding %q", ce)
	}
	checkDict(t, "dcb", body, older, newer)
	fetchDecoded(t, url, newer, "Accept-Encoding: br")
	mu.Lock()
	defer mu.Unlock()
	text := logs.String()
	if !strings.Contains(text, "dictionary=true quality=9") || !strings.Contains(text, "dictionary=false quality=11") {
		t.Fatalf("debug log %q: want dcb at quality 9 and br at 11", text)
	}
}

// BenchmarkDictionarySize is what a small response costs against a large
// dictionary: 2 KB of react-dom against 1, 4 and 16 MiB of it repeated,
// as dcb at levels 1, 5 and 9. Only the dictionary's last MiB enters the
// encoder's tables per response (package brotli's rawFillSpan), so the
// cost grows little past 1 MiB.
func BenchmarkDictionarySize(b *testing.B) {
	react, err := os.ReadFile("../../shared/corpus/react-dom.development.js")
	if err != nil {
		b.Skip("no corpus:", err)
	}
	body := react[500_000:502_000]
	for _, mib := range []int{1, 4, 16} {
		var dict []byte
		for len(dict) < mib<<20 {
			dict = append(dict, react...)
		}
		d, err := compress.NewDictionary("react", dict[:mib<<20])
		if err != nil {
			b.Fatal(err)
		}
		for _, level := range []int{1, 5, 9} {
			b.Run(fmt.Sprintf("dict=%dMiB/level=%d", mib, level), func(b *testing.B) {
				h := mustNew(b, respond(200, body, "Content-Type: application/javascript", fmt.Sprintf("Content-Length: %d", len(body))),
					allOn(func(o *compress.Options) {
						jsTypes(o)
						o.Brotli.Level = level
						o.Dictionaries = []*compress.Dictionary{d}
					}))
				req := httptest.NewRequest(http.MethodGet, "/", nil)
				req.Header.Set("Accept-Encoding", "br, dcb")
				req.Header.Set("Available-Dictionary", d.AvailableDictionary())
				w := benchServe(b, h, req, len(body))
				if ce := w.h.Get("Content-Encoding"); ce != "dcb" {
					b.Fatalf("Content-Encoding %q", ce)
				}
			})
		}
	}
}
