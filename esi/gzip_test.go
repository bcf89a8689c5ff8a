package esi_test

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

const gzDoc = `<html>head <esi:include src="/f/a"/> tail</html>`

// gzipPage serves gzDoc gzipped, by Write in 7-byte pieces or by io.Copy.
func gzipPage(copyFrom bool) http.HandlerFunc {
	z := gzipped(strings.Repeat(gzDoc, 200))
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Vary", "Accept-Encoding")
		if copyFrom {
			io.Copy(w, bytes.NewReader(z))
			return
		}
		for b := z; len(b) > 0; b = b[min(7, len(b)):] {
			w.Write(b[:min(7, len(b))])
		}
	}
}

func TestGzippedPageInflated(t *testing.T) {
	want := strings.Repeat(`<html>head A tail</html>`, 200)
	for _, copyFrom := range []bool{false, true} {
		srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments())}, gzipPage(copyFrom))
		// With or without gzip in Accept-Encoding, the page comes out
		// inflated: recompressing is the compression filter's job.
		for _, ae := range []string{"gzip", "identity"} {
			resp, body := testclient.Get(t, srv.URL+"/", "Accept-Encoding", ae)
			if body != want {
				t.Errorf("io.Copy %v, Accept-Encoding %s: got %d bytes %.60q", copyFrom, ae, len(body), body)
			}
			if ce := resp.Header.Get("Content-Encoding"); ce != "" {
				t.Errorf("Content-Encoding %q kept", ce)
			}
			if resp.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("Vary dropped: %v", resp.Header)
			}
		}
	}
}

func TestOtherEncodingPassesThrough(t *testing.T) {
	log, sink := newLog()
	raw := []byte("\x8b\x02\x80<esi:include src=\"/f/a\"/>\x03")
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: log}, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "br")
		w.Header().Set("Content-Length", "29")
		w.Header().Set("ETag", `"b"`)
		w.Write(raw)
	})
	resp, body := testclient.Get(t, srv.URL+"/", "Accept-Encoding", "br")
	if body != string(raw) || resp.Header.Get("Content-Encoding") != "br" || resp.ContentLength != 29 || resp.Header.Get("ETag") != `"b"` {
		t.Fatalf("br page changed: %q %v", body, resp.Header)
	}
	if !strings.Contains(sink.String(), "level=INFO") || !strings.Contains(sink.String(), "content_encoding=br") {
		t.Fatalf("no info line:\n%s", sink)
	}
}

func TestCorruptGzipPage(t *testing.T) {
	log, sink := newLog()
	z := gzipped(strings.Repeat("x", 100000) + `<esi:include src="/f/a"/>`)
	bad := append(bytes.Clone(z[:len(z)/2]), bytes.Repeat([]byte{0xff}, 64)...)
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: log}, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bad)
	})
	_, body := testclient.Get(t, srv.URL+"/")
	if len(body) == 0 || strings.Trim(body, "x") != "" {
		t.Fatalf("got %d bytes %.40q", len(body), body)
	}
	if !strings.Contains(sink.String(), "cannot inflate the page") {
		t.Fatalf("no error logged:\n%s", sink)
	}
}

func TestGzippedFragmentOverHTTP(t *testing.T) {
	orig, _ := origin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "" {
			t.Errorf("fragment request asked for %q", r.Header.Get("Accept-Encoding"))
		}
		// Gzipped regardless, as some origins do.
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gzipped(`[<esi:include src="/f/a"/>]`))
	}))
	u, _ := url.Parse(orig.URL)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	fetch := func(parent, req *http.Request) (*esi.Fragment, error) {
		if req.URL.Path == "/f/a" {
			return esi.FetchHandler(fragments()).Fetch(parent, req)
		}
		return esi.HTTPFetch(client, u).Fetch(parent, req)
	}
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchFunc(fetch)}, htmlPage(`a<esi:include src="/f/gz"/>b`))
	// The gzipped fragment is inflated, then processed as nested ESI.
	if _, body := testclient.Get(t, srv.URL+"/"); body != "a[A]b" {
		t.Fatalf("got %q", body)
	}
}

func TestHeadOfEncodedPages(t *testing.T) {
	serve := func(enc string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", enc)
			w.Header().Set("Content-Length", "10")
		}
	}
	gz := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments())}, serve("gzip"))
	resp, _ := testclient.Do(t, http.MethodHead, gz.URL+"/")
	if resp.Header.Get("Content-Encoding") != "" || resp.ContentLength != -1 {
		t.Errorf("HEAD of a gzipped page: %v", resp.Header)
	}
	br := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: discardLog()}, serve("br"))
	resp, _ = testclient.Do(t, http.MethodHead, br.URL+"/")
	if resp.Header.Get("Content-Encoding") != "br" || resp.ContentLength != 10 {
		t.Errorf("HEAD of a br page: %v", resp.Header)
	}
}
