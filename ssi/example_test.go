package ssi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/mosaic-edge/mosaic/ssi"
)

// A handler's HTML pages get SSI; includes are served by the same handler
// in process. The page waits for its include, so it sees the variable the
// include sets.
func Example() {
	pages := map[string]string{
		"/index.html": `<h1><!--# include virtual="title.html" wait="yes" --></h1><!--# if expr="$title" --><!--# echo var="title" --><!--# endif -->`,
		"/title.html": `<!--# set var="title" value="Hello & welcome" -->Hello`,
	}
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, pages[r.URL.Path])
	})
	var h http.Handler
	h = ssi.New(app, ssi.Options{
		// Includes go through h, so that they are processed too.
		Fetch: ssi.FetchHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) })),
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/index.html", nil))
	fmt.Println(rec.Body.String())
	// Output: <h1>Hello</h1>Hello &amp; welcome
}
