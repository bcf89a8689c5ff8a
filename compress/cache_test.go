package compress_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/vars"
)

// object serves one fixed object whose body and ETag a test can change,
// and records $compress_cache_status of each response.
type object struct {
	mu     sync.Mutex
	body   []byte
	etag   string
	status chan string
}

func newObject() *object { return &object{status: make(chan string, 16)} }

func (o *object) set(body []byte, etag string) {
	o.mu.Lock()
	o.body, o.etag = body, etag
	o.mu.Unlock()
}

// lastStatus returns the status of the latest response. The client can
// have the whole body before the handler has returned, so it waits.
func (o *object) lastStatus() string {
	select {
	case v := <-o.status:
		return v
	case <-time.After(5 * time.Second):
		return "(handler never returned)"
	}
}

func (o *object) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &vars.State{}
		next.ServeHTTP(w, r.WithContext(vars.NewContext(r.Context(), st)))
		v, _ := st.Get(compress.CacheStatusVariable)
		o.status <- v
	})
}

func (o *object) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	body, etag := o.body, o.etag
	o.mu.Unlock()
	w.Header().Set("Content-Type", "text/html")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	w.Write(body)
}

func newCacheForTest(t *testing.T, size int64) *compress.BodyCache {
	t.Helper()
	bc, err := compress.NewBodyCache(size)
	if err != nil {
		t.Fatal(err)
	}
	return bc
}

// encoderTakes counts the brotli encoders a pool has handed out.
func encoderTakes(p *compress.EncoderPool) int64 {
	s := p.Stats()
	return int64(s.Reused + s.Allocated)
}

func TestBodyCacheCompressesOnce(t *testing.T) {
	for _, coding := range []string{"br", "zstd", "gzip"} {
		t.Run(coding, func(t *testing.T) {
			bc := newCacheForTest(t, 16<<20)
			pool := compress.NewEncoderPool(compress.DefaultIdleEncoders)
			obj := newObject()
			obj.set(text(100<<10), `"v1"`)
			opts := allOn(func(o *compress.Options) { o.Cache, o.Brotli.Encoders, o.Brotli.Level = bc, pool, 11 })
			url := serve(t, obj.handler(mustNew(t, obj, opts)))

			r1, b1 := fetch(t, http.MethodGet, url, "Accept-Encoding: "+coding)
			if got := decode(t, r1.Header.Get("Content-Encoding"), b1); !bytes.Equal(got, text(100<<10)) {
				t.Fatal("first response does not decode to the object")
			}
			if s := obj.lastStatus(); s != "MISS" {
				t.Fatalf("first response: status %q, want MISS", s)
			}
			takes := encoderTakes(pool)
			r2, b2 := fetch(t, http.MethodGet, url, "Accept-Encoding: "+coding)
			if !bytes.Equal(b1, b2) {
				t.Fatal("second response differs from the first")
			}
			if s := obj.lastStatus(); s != "HIT" {
				t.Fatalf("second response: status %q, want HIT", s)
			}
			if got := encoderTakes(pool); got != takes {
				t.Fatalf("second response took an encoder: %d takes, want %d", got, takes)
			}
			for _, h := range []string{"Content-Encoding", "Etag", "Vary"} {
				if r1.Header.Get(h) != r2.Header.Get(h) {
					t.Errorf("%s: %q on the hit, %q on the miss", h, r2.Header.Get(h), r1.Header.Get(h))
				}
			}
			if r2.Header.Get("Etag") != `W/"v1"` || r2.Header.Get("Content-Encoding") != coding {
				t.Errorf("hit headers: ETag %q, Content-Encoding %q", r2.Header.Get("Etag"), r2.Header.Get("Content-Encoding"))
			}
			if r2.ContentLength != int64(len(b2)) {
				t.Errorf("hit Content-Length %d, body %d bytes", r2.ContentLength, len(b2))
			}
			if s := bc.Stats(); s.Hits != 1 || s.Misses != 1 || s.Entries != 1 {
				t.Errorf("stats %+v, want 1 hit, 1 miss, 1 entry", s)
			}

			// A changed object has a new ETag: compressed anew, then kept.
			obj.set(text(90<<10), `"v2"`)
			fetchDecoded(t, url, text(90<<10), "Accept-Encoding: "+coding)
			if s := obj.lastStatus(); s != "MISS" {
				t.Fatalf("changed object: status %q, want MISS", s)
			}
			fetchDecoded(t, url, text(90<<10), "Accept-Encoding: "+coding)
			if s := obj.lastStatus(); s != "HIT" {
				t.Fatalf("changed object, second time: status %q, want HIT", s)
			}
		})
	}
}

// TestBodyCacheKeys checks that what changes the compressed bytes keeps
// bodies apart: coding and host.

func TestBodyCacheKeys(t *testing.T) {
	bc := newCacheForTest(t, 16<<20)
	obj := newObject()
	obj.set(text(10<<10), `"k"`)
	url := serve(t, obj.handler(mustNew(t, obj, allOn(func(o *compress.Options) { o.Cache = bc }))))
	for _, ae := range []string{"br", "gzip", "zstd", "br"} {
		fetchDecoded(t, url, text(10<<10), "Accept-Encoding: "+ae)
	}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "other.example"
	req.Header.Set("Accept-Encoding", "br")
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if s := bc.Stats(); s.Hits != 1 || s.Misses != 4 {
		t.Fatalf("stats %+v, want 1 hit (br twice) and 4 misses", s)
	}
}

// TestBodyCacheKeptApartPerHandler: two handlers that share the store (two
// servers of one configuration, on two ports) may answer the same Host and
// URI with different objects that happen to share a validator (an
// origin's "v1", files of one size and mtime). Neither may be answered
// with the other's compressed body.
func TestBodyCacheKeptApartPerHandler(t *testing.T) {
	bc := newCacheForTest(t, 16<<20)
	for i, word := range []string{"first ", "second "} {
		body := bytes.Repeat([]byte(word), 2000)
		obj := newObject()
		obj.set(body, `"v1"`)
		url := serve(t, obj.handler(mustNew(t, obj, allOn(func(o *compress.Options) { o.Cache = bc }))))
		req, err := http.NewRequest(http.MethodGet, url+"/page", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "site.example"
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := rawClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(decode(t, resp.Header.Get("Content-Encoding"), got), body) {
			t.Fatalf("handler %d answered with another handler's body (%s)", i, obj.lastStatus())
		}
	}
}

func TestBodyCacheBypass(t *testing.T) {
	body := text(20 << 10)
	tests := []struct {
		name    string
		h       http.Handler
		method  string
		headers []string
		status  string
	}{
		{"no validator", respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body))), "GET", nil, "BYPASS"},
		{"weak etag alone", respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body)), `ETag: W/"w"`), "GET", nil, "BYPASS"},
		{"unknown length", respond(200, body, "Content-Type: text/html", `ETag: "s"`), "GET", nil, "BYPASS"},
		{"not 200", respond(404, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body)), `ETag: "s"`), "GET", nil, "BYPASS"},
		{"no-store", respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body)), `ETag: "s"`, "Cache-Control: no-store"), "GET", nil, "BYPASS"},
		{"head", respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body)), `ETag: "s"`), "HEAD", nil, "BYPASS"},
		{"range", respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body)), `ETag: "s"`), "GET", []string{"Range: bytes=0-9"}, ""},
		{"no-transform", respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body)), `ETag: "s"`, "Cache-Control: no-transform"), "GET", nil, ""},
		{"flushed", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Header().Set("ETag", `"f"`)
			w.Write(body[:100])
			w.(http.Flusher).Flush()
			w.Write(body[100:])
		}), "GET", nil, "MISS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bc := newCacheForTest(t, 16<<20)
			obj := newObject()
			url := serve(t, obj.handler(mustNew(t, tc.h, allOn(func(o *compress.Options) { o.Cache = bc }))))
			for range 2 {
				resp, b := fetch(t, tc.method, url, append([]string{"Accept-Encoding: br"}, tc.headers...)...)
				if tc.method == "GET" && tc.name != "range" && !bytes.Equal(decode(t, resp.Header.Get("Content-Encoding"), b), body) {
					t.Fatal("body does not decode to the original")
				}
				if s := obj.lastStatus(); s != tc.status {
					t.Fatalf("status %q, want %q", s, tc.status)
				}
			}
			if s := bc.Stats(); s.Entries != 0 || s.Hits != 0 {
				t.Fatalf("stats %+v: nothing should be kept", s)
			}
		})
	}
}

func TestBodyCacheLastModified(t *testing.T) {
	bc := newCacheForTest(t, 16<<20)
	body := text(20 << 10)
	obj := newObject()
	h := respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body)),
		"Last-Modified: "+fixedTime.Format(http.TimeFormat))
	url := serve(t, obj.handler(mustNew(t, h, allOn(func(o *compress.Options) { o.Cache = bc }))))
	for _, want := range []string{"MISS", "HIT"} {
		fetchDecoded(t, url, body, "Accept-Encoding: gzip")
		if s := obj.lastStatus(); s != want {
			t.Fatalf("status %q, want %s", s, want)
		}
	}
}

// TestBodyCacheBound fills a small store with incompressible bodies under
// many URIs and checks that it holds no more than its size.
func TestBodyCacheBound(t *testing.T) {
	const size = 256 << 10
	bc := newCacheForTest(t, size)
	body := make([]byte, 16<<10)
	rand.Read(body)
	var served atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body)), `ETag: "r"`).ServeHTTP(w, r)
	})
	url := serve(t, mustNew(t, h, allOn(func(o *compress.Options) { o.Cache = bc; o.Brotli.Level = 1 })))
	for i := range 100 {
		fetchDecoded(t, fmt.Sprintf("%s/%d", url, i), body, "Accept-Encoding: br")
	}
	bc.Settle()
	s := bc.Stats()
	if s.Bytes > size {
		t.Fatalf("store holds %d bytes, bound %d", s.Bytes, size)
	}
	if s.Entries == 0 || s.Entries >= 100 {
		t.Fatalf("store holds %d entries; want some, not all 100", s.Entries)
	}
}

func TestNewBodyCacheRejectsZero(t *testing.T) {
	if _, err := compress.NewBodyCache(0); err == nil {
		t.Fatal("a zero size is accepted")
	}
}
