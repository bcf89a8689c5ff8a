package compressmod

import (
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/server"
)

// brotli_window takes the sizes brotli has a window for, the powers of two
// from 1k to 16m, and nothing else.
func TestBrotliWindowSizes(t *testing.T) {
	for _, tc := range []struct {
		size string
		ok   bool
	}{
		{"1k", true}, {"512k", true}, {"16m", true}, {"1024", true},
		{"512", false}, {"3k", false}, {"32m", false}, {"0", false},
	} {
		_, err := server.LoadString("test.conf", "http { brotli_window "+tc.size+"; }")
		switch {
		case tc.ok && err != nil:
			t.Errorf("brotli_window %s: %v", tc.size, err)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), `invalid value "`+tc.size+`" in "brotli_window" directive`)):
			t.Errorf("brotli_window %s: error %v, want it refused", tc.size, err)
		}
	}
}

// A types entry with a parameter or a blank loads, as in NGINX, and is
// left out of the list with a notice: NGINX looks a response up by its
// bare type, so the entry matches none; so does an empty entry (NGINX
// loads it too, and a response without a type matches nothing).
func TestTypesWithParameters(t *testing.T) {
	cfg, err := server.LoadString("test.conf", `http { gzip_types "text/css; charset=utf-8" application/json; brotli_types "text/plain ";
		compress_skip_types "image/png;x"; zstd_types ""; }`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`gzip_types entry "text/css; charset=utf-8" matches no response (a list holds bare media types) in test.conf:1`,
		`brotli_types entry "text/plain " matches no response (a list holds bare media types) in test.conf:1`,
		`compress_skip_types entry "image/png;x" matches no response (a list holds bare media types) in test.conf:2`,
		`zstd_types entry "" matches no response (a list holds bare media types) in test.conf:2`,
	}
	if got := cfg.Notices(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
