package esi

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestMaxIncludes(t *testing.T) {
	log, sink := newLog()
	doc := strings.Repeat(`<esi:include src="/f/a"/>`, 5)
	srv := pageServer(t, Options{Fetch: FetchHandler(fragments()), MaxIncludes: 3, Logger: log}, htmlPage(doc))
	if _, body := get(t, srv.URL+"/"); body != "AAA"+marker+marker {
		t.Fatalf("got %q", body)
	}
	if n := sink.count("more than 3 includes for one request"); n != 1 {
		t.Fatalf("limit logged %d times:\n%s", n, sink)
	}
}

func TestMaxIncludesCountsNested(t *testing.T) {
	mux := fragments()
	mux.HandleFunc("/f/three", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `(`+strings.Repeat(`<esi:include src="/f/a"/>`, 3)+`)`)
	})
	srv := pageServer(t, Options{Fetch: FetchHandler(mux), MaxIncludes: 3, Logger: discardLog()}, htmlPage(`<esi:include src="/f/three"/>`))
	if _, body := get(t, srv.URL+"/"); body != "(AA"+marker+")" {
		t.Fatalf("got %q", body)
	}
}

func TestDefaultMaxIncludes(t *testing.T) {
	doc := strings.Repeat(`<esi:include src="/f/a"/>`, DefaultMaxIncludes+1)
	srv := pageServer(t, Options{Fetch: FetchHandler(fragments()), SilentErrors: true, Logger: discardLog()}, htmlPage(doc))
	if _, body := get(t, srv.URL+"/"); body != strings.Repeat("A", DefaultMaxIncludes) {
		t.Fatalf("got %d bytes", len(body))
	}
}

func TestFragmentTimeout(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/slow", delay(5*time.Second))
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		// Headers and half a body, then nothing.
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.Handle("/fast", delay(0))
	_, fetch := origin(t, mux)
	log, sink := newLog()
	doc := `a<esi:include src="/slow"/>b<esi:include src="/stall"/>c<esi:include src="/fast"/>d`
	srv := pageServer(t, Options{Fetch: fetch, FragmentTimeout: 150 * time.Millisecond, Logger: log}, htmlPage(doc))
	start := time.Now()
	_, body := get(t, srv.URL+"/")
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Fatalf("took %v", elapsed)
	}
	if want := "a" + marker + "b" + marker + "c/fastd"; body != want {
		t.Fatalf("got %q, want %q", body, want)
	}
	if n := sink.count("deadline exceeded"); n != 2 {
		t.Fatalf("%d timeouts logged:\n%s", n, sink)
	}
}
