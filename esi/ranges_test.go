package esi_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// storedDoc serves one document with http.ServeContent, as a file server
// or a cache would, and records the Range and conditional headers of each
// request it gets, as "Range|If-Range|If-None-Match|If-Modified-Since".
type storedDoc struct {
	ctype string
	doc   string
	// typed304 keeps the Content-Type on a 304, as mosaic's cache does.
	typed304 bool
	mu       sync.Mutex
	seen     []string
}

var docModified = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func (d *storedDoc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	d.seen = append(d.seen, strings.Join([]string{r.Header.Get("Range"), r.Header.Get("If-Range"),
		r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")}, "|"))
	d.mu.Unlock()
	h := w.Header()
	h.Set("Content-Type", d.ctype)
	h.Set("ETag", `"v"`)
	if d.typed304 && r.Header.Get("If-None-Match") == `"v"` {
		h.Set("Last-Modified", docModified.Format(http.TimeFormat))
		w.WriteHeader(http.StatusNotModified)
		return
	}
	http.ServeContent(w, r, "", docModified, strings.NewReader(d.doc))
}

// requests returns what was recorded since the last call.
func (d *storedDoc) requests() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := strings.Join(d.seen, " ; ")
	d.seen = nil
	return s
}

// TestRangesOfProcessedPages: ranges do not apply to a processed page. A
// 206 of a processed type is dropped and the request served again without
// Range, so no slice of the markup leaves and the page goes out whole.
func TestRangesOfProcessedPages(t *testing.T) {
	page := &storedDoc{ctype: "text/html", doc: `0123<esi:include src="/f/a"/>`}
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments())}, page.ServeHTTP)
	for _, tc := range []struct {
		name   string
		method string
		header []string
		next   string // the requests next got
	}{
		{"one range", "GET", []string{"Range", "bytes=0-3"}, "bytes=0-3||| ; |||"},
		{"suffix range", "GET", []string{"Range", "bytes=-2"}, "bytes=-2||| ; |||"},
		{"several ranges", "GET", []string{"Range", "bytes=0-1,3-4"}, "bytes=0-1,3-4||| ; |||"},
		{"If-Range that holds", "GET", []string{"Range", "bytes=0-3", "If-Range", `"v"`}, `bytes=0-3|"v"|| ; |||`},
		{"If-Range that fails", "GET", []string{"Range", "bytes=0-3", "If-Range", `"old"`}, `bytes=0-3|"old"||`},
		// Ranges are GET's only: HEAD and POST never ask next for one.
		{"HEAD", "HEAD", []string{"Range", "bytes=0-3", "If-Range", `"v"`}, "|||"},
		{"POST", "POST", []string{"Range", "bytes=0-3"}, "|||"},
	} {
		resp, body := testclient.Do(t, tc.method, srv.URL+"/", tc.header...)
		want := "0123A"
		if tc.method == http.MethodHead {
			want = ""
		}
		if resp.StatusCode != http.StatusOK || body != want {
			t.Errorf("%s: %d %q, want 200 %q", tc.name, resp.StatusCode, body, want)
		}
		for _, k := range []string{"Content-Range", "Accept-Ranges", "ETag", "Last-Modified"} {
			if v := resp.Header.Get(k); v != "" {
				t.Errorf("%s: %s %q", tc.name, k, v)
			}
		}
		if got := page.requests(); got != tc.next {
			t.Errorf("%s: next got %q, want %q", tc.name, got, tc.next)
		}
	}

	// A 416 is an error page of its own: processed, with nothing of the
	// document in it.
	resp, body := testclient.Get(t, srv.URL+"/", "Range", "bytes=100-")
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable || strings.Contains(body, "esi:") || strings.Contains(body, "0123") {
		t.Errorf("unsatisfiable range: %d %q", resp.StatusCode, body)
	}
	page.requests()

	// Another type keeps its ranges. The parts of a multipart answer
	// carry their types in the body, so that answer is served whole.
	img := &storedDoc{ctype: "image/png", doc: "0123456789"}
	isrv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments())}, img.ServeHTTP)
	resp, body = testclient.Get(t, isrv.URL+"/", "Range", "bytes=0-3")
	if resp.StatusCode != http.StatusPartialContent || body != "0123" || resp.Header.Get("Content-Range") != "bytes 0-3/10" {
		t.Errorf("image, one range: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if got := img.requests(); got != "bytes=0-3|||" {
		t.Errorf("image, one range: next got %q", got)
	}
	resp, body = testclient.Get(t, isrv.URL+"/", "Range", "bytes=0-1,4-5")
	if resp.StatusCode != http.StatusOK || body != "0123456789" {
		t.Errorf("image, two ranges: %d %q", resp.StatusCode, body)
	}
}

// TestReplayStartsFromTheOuterHeader: what next set in a dropped first
// pass does not survive it; what was set before the ESI handler ran does.
func TestReplayStartsFromTheOuterHeader(t *testing.T) {
	page := &storedDoc{ctype: "text/html", doc: `0123<esi:include src="/f/a"/>`}
	inner := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") != "" {
			w.Header().Set("X-First", "dropped")
		}
		page.ServeHTTP(w, r)
	}), esi.Options{Fetcher: esi.FetchHandler(fragments())})
	srv := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Outer", "kept")
		inner.ServeHTTP(w, r)
	}))
	resp, body := testclient.Get(t, srv.URL+"/", "Range", "bytes=0-3")
	if resp.StatusCode != http.StatusOK || body != "0123A" || resp.Header.Get("X-Outer") != "kept" || resp.Header.Get("X-First") != "" {
		t.Errorf("%d %q %v", resp.StatusCode, body, resp.Header)
	}
}

// TestErrorPageSlice: a status put in place of a 206 (an error page
// served from a file for a request with Range) keeps the slice's
// Content-Range; it is not the error page whole, so it is served again.
func TestErrorPageSlice(t *testing.T) {
	doc := `<p>missing <esi:include src="/f/a"/></p>`
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments())}, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		body := doc
		if r.Header.Get("Range") != "" {
			w.Header().Set("Content-Range", "bytes 0-20/41")
			body = doc[:21]
		}
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(body))
	})
	resp, body := testclient.Get(t, srv.URL+"/", "Range", "bytes=0-20")
	if resp.StatusCode != http.StatusNotFound || body != "<p>missing A</p>" || resp.Header.Get("Content-Range") != "" {
		t.Errorf("%d %q %v", resp.StatusCode, body, resp.Header)
	}
}

// TestNotModifiedOfProcessedPages: a 304 that says it is of a processed
// type was judged against the stored document's validators, which the
// page does not have: the page is served again, whole and without them.
// A 304 without a Content-Type cannot be told apart and goes as it came.
func TestNotModifiedOfProcessedPages(t *testing.T) {
	lm := docModified.Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		doc    *storedDoc
		method string
		header []string
		status int
		body   string
		next   string
	}{
		{"typed 304", &storedDoc{ctype: "text/html", typed304: true}, "GET", []string{"If-None-Match", `"v"`}, 200, "0123A", `||"v"| ; |||`},
		{"typed 304, HEAD", &storedDoc{ctype: "text/html", typed304: true}, "HEAD", []string{"If-None-Match", `"v"`}, 200, "", `||"v"| ; |||`},
		{"typed 304 of another type", &storedDoc{ctype: "image/png", typed304: true}, "GET", []string{"If-None-Match", `"v"`}, 304, "", `||"v"|`},
		{"bare 304", &storedDoc{ctype: "text/html"}, "GET", []string{"If-Modified-Since", lm}, 304, "", "|||" + lm},
	} {
		tc.doc.doc = `0123<esi:include src="/f/a"/>`
		srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments())}, tc.doc.ServeHTTP)
		resp, body := testclient.Do(t, tc.method, srv.URL+"/", tc.header...)
		if resp.StatusCode != tc.status || body != tc.body {
			t.Errorf("%s: %d %q, want %d %q", tc.name, resp.StatusCode, body, tc.status, tc.body)
		}
		if tc.status == http.StatusOK && (resp.Header.Get("ETag") != "" || resp.Header.Get("Last-Modified") != "") {
			t.Errorf("%s: validators %v", tc.name, resp.Header)
		}
		if got := tc.doc.requests(); got != tc.next {
			t.Errorf("%s: next got %q, want %q", tc.name, got, tc.next)
		}
	}
}
