package esi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestMaxFragmentSize: a fragment's body, inflated when gzipped, may be
// MaxFragmentSize bytes long; a longer one fails the include (the error
// marker, a log line, a try's except), whether it is spliced or processed
// as nested ESI.
func TestMaxFragmentSize(t *testing.T) {
	const max = 100
	exact, over := strings.Repeat("x", max), strings.Repeat("y", max+1)
	mux := http.NewServeMux()
	plain := func(ctype, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", ctype)
			io.WriteString(w, body)
		}
	}
	mux.Handle("/f/exact", plain("text/plain", exact))
	mux.Handle("/f/over", plain("text/plain", over))
	mux.Handle("/f/nested-over", plain("text/html", "<b>"+over))
	mux.Handle("/f/gz-over", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gzipped(over)) // a few bytes on the wire, 101 inflated
	}))
	log, sink := newLog()
	opts := esi.Options{Fetcher: esi.FetchHandler(mux), MaxFragmentSize: max, Logger: log}
	for _, c := range []struct{ page, want string }{
		{`[<esi:include src="/f/exact"/>]`, "[" + exact + "]"},
		{`[<esi:include src="/f/over"/>]`, "[<!-- ESI include error -->]"},
		{`[<esi:include src="/f/nested-over"/>]`, "[<!-- ESI include error -->]"},
		{`[<esi:include src="/f/gz-over"/>]`, "[<!-- ESI include error -->]"},
		{`[<esi:try><esi:attempt><esi:include src="/f/over"/></esi:attempt><esi:except>small</esi:except></esi:try>]`, "[small]"},
	} {
		srv := pageServer(t, opts, htmlPage(c.page))
		if _, body := testclient.Get(t, srv.URL+"/"); body != c.want {
			t.Errorf("%s: got %.80q, want %.80q", c.page, body, c.want)
		}
	}
	if !strings.Contains(sink.String(), "fragment longer than 100 bytes (esi_max_fragment_size)") {
		t.Errorf("no log line names the bound:\n%s", sink.String())
	}
}
