package compress_test

import (
	"net/http"
	"testing"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/vars"
)

func TestFormatRatio(t *testing.T) {
	for _, tc := range []struct {
		in, out int64
		want    string
	}{
		{359, 100, "3.59"},
		{2125, 1000, "2.13"}, // NGINX rounds the third decimal half up
		{2124, 1000, "2.12"},
		{1999, 1000, "2.00"},
		{100, 100, "1.00"},
		{99, 100, "0.99"},
		{1, 3, "0.33"},
		{2, 3, "0.67"},
		{87533, 1, "87533.00"},
	} {
		if got := compress.FormatRatio(tc.in, tc.out); got != tc.want {
			t.Errorf("compress.FormatRatio(%d, %d) = %s, want %s", tc.in, tc.out, got, tc.want)
		}
	}
}

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
			if want := compress.FormatRatio(int64(len(js)), int64(len(raw))); got != want {
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
