package esi_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mosaic-edge/mosaic/esi"
)

// memFragments is a small Fetcher: it answers fragment requests from memory,
// where a server would run a subrequest or ask an origin.
type memFragments map[string]string

func (f memFragments) Fetch(_, req *http.Request) (*esi.Fragment, error) {
	body, ok := f[req.URL.Path]
	if !ok {
		return &esi.Fragment{Status: http.StatusNotFound}, nil
	}
	return &esi.Fragment{
		Status: http.StatusOK,
		Header: http.Header{"Content-Type": {"text/html"}},
		Body:   io.NopCloser(strings.NewReader(body)),
	}, nil
}

// The page's <esi:include> elements are replaced by the memFragments the
// Fetcher returns.
func ExampleNew() {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<h1><esi:include src="/title"/></h1><p><esi:include src="/user"/></p>`)
	})
	h, err := esi.New(page, esi.Options{
		Fetcher:      memFragments{"/title": "Welcome", "/user": "Signed in as ada"},
		SilentErrors: true,
	})
	if err != nil {
		log.Fatal(err)
	}

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	fmt.Println(rec.Body.String())
	// Output:
	// <h1>Welcome</h1><p>Signed in as ada</p>
}

// FetchHandler fetches memFragments from a handler in the same process: here
// the application itself, so that a page and its memFragments share routes.
func ExampleFetchHandler() {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<nav><esi:include src="/nav"/></nav>`)
	})
	mux.HandleFunc("/nav", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<a href="/">home</a>`)
	})
	h, err := esi.New(mux, esi.Options{Fetcher: esi.FetchHandler(mux)})
	if err != nil {
		log.Fatal(err)
	}

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	fmt.Println(rec.Body.String())
	// Output:
	// <nav><a href="/">home</a></nav>
}

// New refuses options without a Fetcher: the middleware could fetch no
// fragment.
func ExampleNew_noFetcher() {
	_, err := esi.New(http.NotFoundHandler(), esi.Options{})
	fmt.Println(err)
	// Output:
	// esi: Options.Fetcher is nil
}
