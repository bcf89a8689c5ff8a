package esi_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// surrogatePages serves pages, and fragments with ESI of their own, each
// with the Surrogate-Control header its path names.
func surrogatePages() *http.ServeMux {
	mux := fragments()
	serve := func(sc, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			if sc != "" {
				w.Header().Set("Surrogate-Control", sc)
			}
			io.WriteString(w, body)
		}
	}
	const inc = `<esi:include src="/f/a"/>`
	mux.Handle("/asks", serve(`max-age=60, content="ESI/1.0"`, inc))
	mux.Handle("/targeted", serve(`content="ESI/1.0 ESI-Inline/1.0";mosaic`, inc))
	mux.Handle("/other", serve(`max-age=60, content="ESI-Inline/1.0"`, inc))
	mux.Handle("/none", serve("", inc))
	mux.Handle("/nested", serve(`content="ESI/1.0"`, `<esi:include src="/sf/asks"/><esi:include src="/sf/none"/>`))
	mux.Handle("/sf/asks", serve(`content="ESI/1.0"`, "("+inc+")"))
	mux.Handle("/sf/none", serve("", "("+inc+")"))
	mux.HandleFunc("/capability", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, r.Header.Get("Surrogate-Capability"))
	})
	return mux
}

func TestSurrogate(t *testing.T) {
	// Fragments come from an origin over HTTP: the including page decides
	// whether to process their ESI.
	_, fetch := origin(t, surrogatePages())
	const inc = `<esi:include src="/f/a"/>`
	for _, tc := range []struct {
		surrogate bool
		path      string
		want      string
	}{
		{true, "/asks", "A"},
		{true, "/targeted", "A"},
		{true, "/other", inc},
		{true, "/none", inc},
		{true, "/nested", "(A)(" + inc + ")"},
		{true, "/capability", `mosaic="Surrogate/1.0 ESI/1.0"`},
		{false, "/other", "A"},
		{false, "/none", "A"},
		{false, "/nested", "(A)(A)"},
		{false, "/capability", ""},
	} {
		srv := pageServer(t, esi.Options{Fetcher: fetch, Surrogate: tc.surrogate, Logger: discardLog()},
			surrogatePages().ServeHTTP)
		resp, body := testclient.Get(t, srv.URL+tc.path)
		if body != tc.want {
			t.Errorf("surrogate %v, %s: got %q, want %q", tc.surrogate, tc.path, body, tc.want)
		}
		// Surrogate-Control never reaches the client: surrogate mode
		// removes it always, and a processed page loses it anyway.
		if sc := resp.Header.Get("Surrogate-Control"); sc != "" {
			t.Errorf("surrogate %v, %s: Surrogate-Control %q reached the client", tc.surrogate, tc.path, sc)
		}
	}
}
