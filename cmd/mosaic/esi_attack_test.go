package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestESIAttackSelfFanOut (audit10): a page that includes itself several
// times multiplies its fragments at each level; esi_max_includes bounds
// them for the whole request, nested levels included, whichever
// location's handler processes each level.
func TestESIAttackSelfFanOut(t *testing.T) {
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		html(w, "S"+strings.Repeat(`<esi:include src="`+r.URL.Path+`"/>`, 4))
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		esi on; esi_max_includes 20; esi_silent_errors on;
		server { listen 127.0.0.1:{port};
			location /page/ { proxy_pass http://{origin}; }
		}
	}`)
	esiDo(t, "GET", base+"/page/self", nil)
	if n := o.count("/page/self"); n > 21 {
		t.Errorf("fan-out of 4 to depth 5: %d origin requests, want at most 21 (the page and esi_max_includes 20)", n)
	}
}
