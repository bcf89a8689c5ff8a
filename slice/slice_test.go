package slice_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mosaic-edge/mosaic/slice"
)

// body is the representation the test content serves: 50 bytes, five
// slices of 10.
const body = "0123456789abcdefghijABCDEFGHIJklmnopqrstKLMNOPQRST"

// content answers the slice that slice.Range names with a 206 of body, as
// an origin behind "proxy_set_header Range $slice_range" does, and logs
// the ranges it was asked for. Its fields change what it answers.
type content struct {
	mu       sync.Mutex
	asked    []string
	ignore   bool // do not read the range: a 200 of body
	whole    bool // read the range but answer a 200 of body
	etagFrom int  // from this request on (1 = the first), another ETag
	// emptyFrom: from this request on, a Content-Range saying the
	// representation ends where the slice starts.
	emptyFrom int
	header    map[string]string
}

var rangeRE = regexp.MustCompile(`^bytes=(\d+)-(\d+)$`)

func (c *content) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain")
	if c.ignore {
		h.Set("Content-Length", strconv.Itoa(len(body)))
		io.WriteString(w, body)
		return
	}
	rng, ok := slice.Range(r)
	c.mu.Lock()
	c.asked = append(c.asked, rng)
	n := len(c.asked)
	c.mu.Unlock()
	h.Set("ETag", `"v1"`)
	if c.etagFrom > 0 && n >= c.etagFrom {
		h.Set("ETag", `"v2"`)
	}
	for k, v := range c.header {
		h.Set(k, v)
	}
	m := rangeRE.FindStringSubmatch(rng)
	if !ok || m == nil || c.whole {
		h.Set("Content-Length", strconv.Itoa(len(body)))
		io.WriteString(w, body)
		return
	}
	start, _ := strconv.Atoi(m[1])
	end, _ := strconv.Atoi(m[2])
	end = min(end, len(body)-1)
	if c.emptyFrom > 0 && n >= c.emptyFrom {
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, start-1, start))
		h.Set("Content-Length", "0")
		w.WriteHeader(http.StatusPartialContent)
		return
	}
	if h.Get("Content-Range") == "" {
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end, len(body)))
	}
	h.Set("Content-Length", strconv.Itoa(end-start+1))
	w.WriteHeader(http.StatusPartialContent)
	io.WriteString(w, body[start:end+1])
}

func (c *content) log() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.asked, " ")
}

// serve runs c behind the slice filter with 10-byte slices.
func serve(t *testing.T, c *content) string {
	t.Helper()
	h, err := slice.New(c, slice.Options{Size: 10, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

type answer struct {
	status int
	header http.Header
	body   string
	err    error // reading the body
}

func send(t *testing.T, method, url string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b), err: err}
}

func TestAssembled(t *testing.T) {
	for _, c := range []struct {
		name   string
		header []string
		status int
		body   string
		crange string
		asked  string
	}{
		{"whole", nil, 200, body, "", "bytes=0-9 bytes=10-19 bytes=20-29 bytes=30-39 bytes=40-49"},
		{"across slices", []string{"Range", "bytes=15-34"}, 206, body[15:35], "bytes 15-34/50", "bytes=10-19 bytes=20-29 bytes=30-39"},
		{"within a slice", []string{"Range", "bytes=21-22"}, 206, body[21:23], "bytes 21-22/50", "bytes=20-29"},
		{"to the end", []string{"Range", "bytes=38-"}, 206, body[38:], "bytes 38-49/50", "bytes=30-39 bytes=40-49"},
		{"suffix: the first slice, then the last", []string{"Range", "bytes=-5"}, 206, body[45:], "bytes 45-49/50", "bytes=0-9 bytes=40-49"},
		{"several ranges: whole", []string{"Range", "bytes=0-1,5-6"}, 200, body, "", "bytes=0-9 bytes=10-19 bytes=20-29 bytes=30-39 bytes=40-49"},
		{"If-Range matching: from the start", []string{"Range", "bytes=25-26", "If-Range", `"v1"`}, 206, body[25:27], "bytes 25-26/50", "bytes=0-9 bytes=20-29"},
		{"If-Range not matching: whole", []string{"Range", "bytes=25-26", "If-Range", `"v0"`}, 200, body, "", "bytes=0-9 bytes=10-19 bytes=20-29 bytes=30-39 bytes=40-49"},
		{"another unit: whole", []string{"Range", "items=1-2"}, 200, body, "", "bytes=0-9 bytes=10-19 bytes=20-29 bytes=30-39 bytes=40-49"},
	} {
		t.Run(c.name, func(t *testing.T) {
			co := &content{}
			a := send(t, "GET", serve(t, co), c.header...)
			if a.err != nil || a.status != c.status || a.body != c.body || a.header.Get("Content-Range") != c.crange ||
				a.header.Get("Content-Length") != strconv.Itoa(len(c.body)) {
				t.Errorf("got %d %q Content-Range %q Content-Length %q (%v), want %d %q %q", a.status, a.body,
					a.header.Get("Content-Range"), a.header.Get("Content-Length"), a.err, c.status, c.body, c.crange)
			}
			if want := map[int]string{200: "bytes", 206: ""}[c.status]; a.header.Get("Accept-Ranges") != want {
				t.Errorf("Accept-Ranges %q, want %q", a.header.Get("Accept-Ranges"), want)
			}
			if got := co.log(); got != c.asked {
				t.Errorf("slices asked for %q, want %q", got, c.asked)
			}
		})
	}
}

func TestHeadAsksForOneSlice(t *testing.T) {
	co := &content{}
	a := send(t, "HEAD", serve(t, co))
	if a.status != 200 || a.header.Get("Content-Length") != "50" || co.log() != "bytes=0-9" {
		t.Errorf("HEAD: %d Content-Length %q, slices %q; want 200 50 and the first slice only",
			a.status, a.header.Get("Content-Length"), co.log())
	}
}

func TestUnsatisfiable(t *testing.T) {
	co := &content{}
	a := send(t, "GET", serve(t, co), "Range", "bytes=5-2")
	if a.status != http.StatusRequestedRangeNotSatisfiable || a.header.Get("Content-Range") != "bytes */50" || co.log() != "bytes=0-9" {
		t.Errorf("got %d Content-Range %q, slices %q", a.status, a.header.Get("Content-Range"), co.log())
	}
}

// A content that does not read the range, or answers other than 206,
// passes through as it is.
func TestPassesThrough(t *testing.T) {
	for _, c := range []struct {
		name string
		co   *content
	}{
		{"range never read", &content{ignore: true}},
		{"a 200", &content{whole: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := send(t, "GET", serve(t, c.co), "Range", "bytes=3-4")
			if a.status != 200 || a.body != body || a.header.Get("Accept-Ranges") != "" {
				t.Errorf("got %d %q Accept-Ranges %q, want the content's 200 untouched", a.status, a.body, a.header.Get("Accept-Ranges"))
			}
		})
	}
}

// A content that answered the client's own range from a whole response
// (a cache in front of an origin that ignored the slice's range) passes.
func TestClientRangeFromContentPasses(t *testing.T) {
	co := &content{header: map[string]string{"Content-Range": "bytes 13-14/50"}}
	a := send(t, "GET", serve(t, co), "Range", "bytes=13-14")
	if a.status != 206 || a.header.Get("Content-Range") != "bytes 13-14/50" {
		t.Errorf("got %d Content-Range %q, want the content's 206", a.status, a.header.Get("Content-Range"))
	}
}

// A further slice that does not match the first ends the response where
// it got to; a first slice that cannot be read gets no answer at all.
func TestCutShort(t *testing.T) {
	for _, c := range []struct {
		name   string
		co     *content
		header []string
		got    string // what the client gets before the connection closes
	}{
		{"ETag changes", &content{etagFrom: 2}, nil, body[:10]},
		{"ETag changes, with a range", &content{etagFrom: 3}, []string{"Range", "bytes=5-"}, body[5:20]},
		{"no complete length", &content{header: map[string]string{"Content-Range": "bytes 0-9/*"}}, nil, ""},
		{"unreadable Content-Range", &content{header: map[string]string{"Content-Range": "bytes 0-9"}}, nil, ""},
		{"a later slice that is empty", &content{emptyFrom: 2}, nil, body[:10]},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := send(t, "GET", serve(t, c.co), c.header...)
			if c.got == "" {
				if a.err == nil {
					t.Errorf("got %d %q, want no answer", a.status, a.body)
				}
				return
			}
			if a.err == nil || a.body != c.got {
				t.Errorf("got %q (%v), want %q and then a broken body", a.body, a.err, c.got)
			}
		})
	}
}

func TestNewRefusesNoSize(t *testing.T) {
	if _, err := slice.New(http.NotFoundHandler(), slice.Options{}); err == nil {
		t.Error("a size of 0 was accepted")
	}
}

func TestParseContentRange(t *testing.T) {
	for _, c := range []struct {
		in                string
		start, end, total int64
		ok                bool
	}{
		{"bytes 0-9/50", 0, 10, 50, true},
		{"bytes  10 - 19 / 50 ", 10, 20, 50, true},
		{"bytes 0-9/*", 0, 10, -1, true},
		{"bytes 9-0/50", 9, 1, 50, true}, // read as written; the caller compares
		{"Bytes 0-9/50", 0, 0, 0, false},
		{"bytes 0-9", 0, 0, 0, false},
		{"bytes -9/50", 0, 0, 0, false},
		{"bytes 0-/50", 0, 0, 0, false},
		{"bytes 0-9/50x", 0, 0, 0, false},
		{"bytes 0-9/", 0, 0, 0, false},
		{"bytes */50", 0, 0, 0, false},
		{"bytes 0-9223372036854775807/50", 0, 0, 0, false},
		{"bytes 0-99999999999999999999/50", 0, 0, 0, false},
		{"bytes 0-9/99999999999999999999", 0, 0, 0, false},
	} {
		rg, total, ok := slice.ParseContentRange(c.in)
		if ok != c.ok || (ok && (rg.Start != c.start || rg.End != c.end || total != c.total)) {
			t.Errorf("%q: %d-%d/%d %v, want %d-%d/%d %v", c.in, rg.Start, rg.End, total, ok, c.start, c.end, c.total, c.ok)
		}
	}
}

func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-9/50", "bytes 0-9/*", " bytes 1 - 2 / 3 ", "bytes 9223372036854775806-9223372036854775806/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rg, total, ok := slice.ParseContentRange(s)
		if !ok {
			return
		}
		if rg.Start < 0 || rg.End < 1 || total < -1 {
			t.Fatalf("%q: %d-%d/%d", s, rg.Start, rg.End, total)
		}
		// What was read reads back the same, written plainly.
		tot := "*"
		if total >= 0 {
			tot = strconv.FormatInt(total, 10)
		}
		again := fmt.Sprintf("bytes %d-%d/%s", rg.Start, rg.End-1, tot)
		if rg2, total2, ok2 := slice.ParseContentRange(again); !ok2 || rg2 != rg || total2 != total {
			t.Fatalf("%q read as %q, which reads as %v %d %v", s, again, rg2, total2, ok2)
		}
	})
}

// A range near the largest offset names a slice that ends there, not
// one whose end overflows.
func TestRangeAtTheEnd(t *testing.T) {
	co := &content{}
	send(t, "GET", serve(t, co), "Range", "bytes=9223372036854775800-")
	if got, want := co.log(), "bytes=9223372036854775800-9223372036854775806"; got != want {
		t.Errorf("slice asked for %q, want %q", got, want)
	}
}
