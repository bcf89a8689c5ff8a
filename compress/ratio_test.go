package compress_test

import (
	"net/http"
	"testing"

	"github.com/mosaic-edge/mosaic/vars"
)

// The ratio is published after the response for the access log, under the
// coding's own variable name, and only for the coding used.
func TestRatioVariables(t *testing.T) {
	js := jquery(t)
	states := make(chan *vars.State, 1)
	inner := mustNew(t, respond(200, js, "Content-Type: text/html"), allOn(nil))
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &vars.State{}
		inner.ServeHTTP(w, r.WithContext(vars.NewContext(r.Context(), st)))
		states <- st
	}))
	names := []string{"brotli_ratio", "zstd_ratio", "gzip_ratio"}
	for i, coding := range []string{"br", "zstd", "gzip"} {
		_, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: "+coding)
		st := <-states
		for j, name := range names {
			got, ok := st.Get(name)
			if j != i {
				if ok {
					t.Errorf("%s response set $%s = %s", coding, name, got)
				}
				continue
			}
			if want := vars.FormatRatio(int64(len(js)), int64(len(raw))); got != want {
				t.Errorf("$%s = %q, want %q", name, got, want)
			}
		}
	}
	fetch(t, http.MethodGet, url)
	if st := <-states; st != nil {
		if v, ok := st.Get("brotli_ratio"); ok {
			t.Errorf("identity response set $brotli_ratio = %s", v)
		}
	}
}
