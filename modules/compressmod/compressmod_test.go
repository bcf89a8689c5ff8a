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
