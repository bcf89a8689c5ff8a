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
	_, body := esiDo(t, "GET", base+"/page/self", nil)
	// The page and its 20 includes, one "S" each: fewer would mean the
	// includes were not followed at all, and the test would prove nothing.
	if n := o.count("/page/self"); n != 21 || body != strings.Repeat("S", 21) {
		t.Errorf("fan-out of 4 to depth 5: %d origin requests, body %q; want 21 (the page and esi_max_includes 20)", n, body)
	}
}

// TestESIAttackSrcClimb (audit10): an include whose src climbs with
// encoded dots ("%2e%2e", "..%2f"), or whose variable brings them, reaches
// no file above the root of the location it names: the subrequest's URI
// is normalized as a client's is, and one that climbs above "/" fails.
func TestESIAttackSrcClimb(t *testing.T) {
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		html(w, `[<esi:include src="/files/%2e%2e/%2e%2e/secret.txt"/>]`+
			`[<esi:include src="/files/..%2f..%2fsecret.txt"/>]`+
			`[<esi:include src="/files/%2e%2e/secret.txt"/>]`+
			`[<esi:include src="/files/$(QUERY_STRING{f})"/>]`+
			`[<esi:include src="/files/ok.txt"/>]`)
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		esi on; esi_silent_errors on;
		server { listen 127.0.0.1:{port};
			location /page/ { proxy_pass http://{origin}; }
			location /files/ { alias {dir}/www/files/; }
			location / { root {dir}/www; }
		}
	}`, "secret.txt", "SECRET", "www/secret.txt", "ROOT", "www/files/ok.txt", "ok")
	_, body := esiDo(t, "GET", base+"/page/x?f=%2e%2e%2f%2e%2e%2fsecret.txt", nil)
	// Climbing above "/" fails (nothing, errors silenced); one ".." below
	// it is resolved as a client's "/files/%2e%2e/secret.txt" is, to
	// "/secret.txt" in the root; the variable's value holds a "/" and is
	// refused, leaving "/files/", a directory without an index (403).
	if strings.Contains(body, "SECRET") || !strings.HasPrefix(body, "[][][ROOT][") || !strings.HasSuffix(body, "[ok]") {
		t.Errorf("body %q", body)
	}
}
