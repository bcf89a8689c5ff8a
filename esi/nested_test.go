package esi_test

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// chain serves /n/K: a page that includes /n/K+1, forever.
func chain(w http.ResponseWriter, r *http.Request) {
	k, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/n/"))
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, `[%d<esi:include src="/n/%d"/>]`, k, k+1)
}

func TestNestedDepthBound(t *testing.T) {
	_, fetch := origin(t, http.HandlerFunc(chain))
	for _, tc := range []struct {
		depth int
		want  string
	}{
		{0, "[1[2[3[4[5" + marker + "]]]]]"}, // default 5
		{2, "[1[2" + marker + "]]"},
		{1, "[1" + marker + "]"},
	} {
		log, sink := newLog()
		srv := pageServer(t, esi.Options{Fetcher: fetch, MaxDepth: tc.depth, Logger: log}, htmlPage(`<esi:include src="/n/1"/>`))
		if _, body := testclient.Get(t, srv.URL+"/"); body != tc.want {
			t.Errorf("MaxDepth %d: got %q, want %q", tc.depth, body, tc.want)
		}
		if !strings.Contains(sink.String(), "ESI nesting depth limit") {
			t.Errorf("MaxDepth %d: no error logged:\n%s", tc.depth, sink)
		}
	}
}

// TestSelfIncludeInProcess serves fragments through an ESI handler of
// their own, as a server's subrequests through an esi location do: that
// handler processes the fragment (here with silent errors, unlike the
// page's), and the depth carried in the context stops a page that
// includes itself.
func TestSelfIncludeInProcess(t *testing.T) {
	log, sink := newLog()
	mux := http.NewServeMux()
	mux.HandleFunc("/self", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `s<esi:include src="/self"/>`)
	})
	var inner http.Handler
	inner = mustNew(t, mux, esi.Options{Fetcher: esi.FetchFunc(func(parent, req *http.Request) (*esi.Fragment, error) {
		return esi.FetchHandler(inner).Fetch(parent, req)
	}), SilentErrors: true, Logger: log})
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(inner), Logger: log}, mux.ServeHTTP)
	_, body := testclient.Get(t, srv.URL+"/self")
	if body != "ssssss" {
		t.Fatalf("got %q, want six pages and no marker", body)
	}
	if n := sink.count("ESI nesting depth limit 5"); n != 1 {
		t.Fatalf("depth error logged %d times:\n%s", n, sink)
	}
}

func TestSelfIncludeOverHTTP(t *testing.T) {
	page := `s<esi:include src="/self"/>`
	_, fetch := origin(t, htmlPage(page))
	srv := pageServer(t, esi.Options{Fetcher: fetch, Logger: discardLog()}, htmlPage(page))
	if _, body := testclient.Get(t, srv.URL+"/self"); body != "ssssss"+marker {
		t.Fatalf("got %q", body)
	}
}

func TestFinalFragmentNotProcessed(t *testing.T) {
	fetch := func(_, _ *http.Request) (*esi.Fragment, error) {
		h := http.Header{"Content-Type": {"text/html"}}
		return &esi.Fragment{Status: 200, Header: h, Body: io.NopCloser(strings.NewReader(`<esi:include src="/x"/>`)), Final: true}, nil
	}
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchFunc(fetch)}, htmlPage(`a<esi:include src="/f"/>b`))
	if _, body := testclient.Get(t, srv.URL+"/"); body != `a<esi:include src="/x"/>b` {
		t.Fatalf("got %q", body)
	}
}

func TestDepthInContext(t *testing.T) {
	var depths []int
	mux := http.NewServeMux()
	mux.HandleFunc("/d", func(w http.ResponseWriter, r *http.Request) {
		depths = append(depths, esi.Depth(r.Context()))
		w.Header().Set("Content-Type", "text/html")
		if esi.Depth(r.Context()) < 2 {
			io.WriteString(w, `<esi:include src="/d"/>`)
		}
	})
	var h http.Handler
	h = mustNew(t, mux, esi.Options{Fetcher: esi.FetchFunc(func(parent, req *http.Request) (*esi.Fragment, error) { return esi.FetchHandler(h).Fetch(parent, req) })})
	srv := httptestServer(t, h)
	testclient.Get(t, srv.URL+"/d")
	if fmt.Sprint(depths) != "[0 1 2]" {
		t.Fatalf("depths %v", depths)
	}
}

// TestInProcessFragmentNotReprocessed: a fragment served through an ESI handler
// of its own is processed there, and only there.
func TestInProcessFragmentNotReprocessed(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/frag", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<esi:foo/>`)
	})
	for _, inner := range []bool{false, true} {
		log, sink := newLog()
		var fetch esi.Fetcher = esi.FetchHandler(mux)
		if inner {
			fetch = esi.FetchHandler(mustNew(t, mux, esi.Options{Fetcher: esi.FetchHandler(mux), Logger: log}))
		}
		srv := pageServer(t, esi.Options{Fetcher: fetch, Logger: log}, htmlPage(`<esi:include src="/frag"/>`))
		if _, body := testclient.Get(t, srv.URL+"/"); body != `<esi:foo/>` {
			t.Fatalf("got %q", body)
		}
		if n := sink.count("unknown ESI element"); n != 1 {
			t.Errorf("inner Handler %v: fragment processed %d times", inner, n)
		}
	}
}
