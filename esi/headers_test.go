package esi_test

import (
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

func TestProcessedResponseHeaders(t *testing.T) {
	serve := func(ctype string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			body := `x<esi:include src="/f/a"/>`
			h := w.Header()
			h.Set("Content-Type", ctype)
			h.Set("Content-Length", "26")
			h.Set("Accept-Ranges", "bytes")
			h.Set("ETag", `"v1"`)
			h.Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
			h.Set("Surrogate-Control", `content="ESI/1.0"`)
			h.Set("Cache-Control", "max-age=60")
			h.Set("Set-Cookie", "page=1")
			io.WriteString(w, body)
		}
	}
	mux := fragments()
	mux.HandleFunc("/f/cookie", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Set-Cookie", "fragment=1")
		io.WriteString(w, "A")
	})
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(mux)}, serve("text/html"))
	resp, body := testclient.Get(t, srv.URL+"/")
	if body != "xA" {
		t.Fatalf("body %q", body)
	}
	for _, gone := range []string{"Content-Length", "Accept-Ranges", "ETag", "Last-Modified", "Surrogate-Control"} {
		if v := resp.Header.Get(gone); v != "" {
			t.Errorf("%s: %q kept", gone, v)
		}
	}
	if resp.ContentLength != -1 {
		t.Errorf("ContentLength %d", resp.ContentLength)
	}
	if resp.Header.Get("Cache-Control") != "max-age=60" || resp.Header.Get("Set-Cookie") != "page=1" {
		t.Errorf("headers %v", resp.Header)
	}

	// Not a processed type: everything stays.
	plain := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(mux)}, serve("text/plain"))
	resp, body = testclient.Get(t, plain.URL+"/")
	if body != `x<esi:include src="/f/a"/>` || resp.Header.Get("ETag") != `"v1"` || resp.ContentLength != 26 ||
		resp.Header.Get("Surrogate-Control") == "" || resp.Header.Get("Accept-Ranges") != "bytes" {
		t.Errorf("unprocessed response changed: %q %v", body, resp.Header)
	}
}

func TestFragmentSetCookieNotMerged(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/c", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Set-Cookie", "fragment=1")
		io.WriteString(w, "C")
	})
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(mux)}, htmlPage(`<esi:include src="/c"/>`))
	resp, body := testclient.Get(t, srv.URL+"/")
	if body != "C" || len(resp.Header.Values("Set-Cookie")) != 0 {
		t.Fatalf("%q %v", body, resp.Header)
	}
}

func TestFragmentRequestShape(t *testing.T) {
	var got *http.Request
	var gotBody []byte
	mux := http.NewServeMux()
	mux.HandleFunc("/frag", func(w http.ResponseWriter, r *http.Request) {
		got = r
		gotBody, _ = io.ReadAll(r.Body)
		io.WriteString(w, "F")
	})
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(mux)}, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<esi:include src="/frag?x=1"/>`)
	})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/page", strings.NewReader("form=1"))
	for k, v := range map[string]string{
		"Content-Type": "application/x-www-form-urlencoded", "If-None-Match": `"x"`,
		"If-Modified-Since": "Mon, 02 Jan 2006 15:04:05 GMT", "Range": "bytes=0-1", "If-Range": `"x"`,
		"X-Client": "yes", "Accept-Language": "fr", "Accept-Encoding": "gzip",
	} {
		req.Header.Set(k, v)
	}
	req.Header.Add("Cookie", "a=1")
	req.Header.Add("Cookie", "b=2")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "F" {
		t.Fatalf("body %q", body)
	}
	if got.Method != http.MethodGet || got.Host != req.URL.Host || got.URL.RequestURI() != "/frag?x=1" || len(gotBody) != 0 || got.ContentLength != 0 {
		t.Errorf("request %s %s%s, body %q", got.Method, got.Host, got.URL, gotBody)
	}
	want := http.Header{"X-Client": {"yes"}, "Accept-Language": {"fr"}, "Cookie": {"a=1; b=2"}, "User-Agent": {"Go-http-client/1.1"}}
	if !reflect.DeepEqual(got.Header, want) {
		t.Errorf("fragment header\n got %v\nwant %v", got.Header, want)
	}
}

func TestFragmentHeader(t *testing.T) {
	in := http.Header{
		"Cookie": {"a=1", "b=2"}, "If-Match": {"x"}, "If-Unmodified-Since": {"x"}, "Range": {"bytes=1-"},
		"Content-Length": {"3"}, "Content-Md5": {"x"}, "Transfer-Encoding": {"chunked"}, "Expect": {"100-continue"},
		"Connection": {"keep-alive, X-Hop"}, "X-Hop": {"1"}, "Keep-Alive": {"5"}, "Upgrade": {"h2c"}, "Te": {"trailers"},
		"Authorization": {"Bearer t"}, "X-Forwarded-For": {"10.0.0.1"},
	}
	out := esi.FragmentHeader(in)
	want := http.Header{"Cookie": {"a=1; b=2"}, "Authorization": {"Bearer t"}, "X-Forwarded-For": {"10.0.0.1"}}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("got %v", out)
	}
	out["Authorization"][0] = "changed"
	if in.Get("Authorization") != "Bearer t" {
		t.Fatal("FragmentHeader shares slices with its input")
	}
}

func TestHeadIssuesNoFetch(t *testing.T) {
	var fetches atomic.Int32
	fetch := func(parent, req *http.Request) (*esi.Fragment, error) {
		fetches.Add(1)
		return esi.FetchHandler(fragments()).Fetch(parent, req)
	}
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchFunc(fetch)}, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", "25")
		w.Header().Set("ETag", `"v"`)
		io.WriteString(w, `<esi:include src="/f/a"/>`)
	})
	resp, body := testclient.Do(t, http.MethodHead, srv.URL+"/")
	if body != "" || resp.Header.Get("ETag") != "" || resp.ContentLength != -1 || fetches.Load() != 0 {
		t.Fatalf("HEAD: body %q, header %v, length %d, %d fetches", body, resp.Header, resp.ContentLength, fetches.Load())
	}
	if _, body := testclient.Get(t, srv.URL+"/"); body != "A" || fetches.Load() != 1 {
		t.Fatalf("GET: %q, %d fetches", body, fetches.Load())
	}
}
