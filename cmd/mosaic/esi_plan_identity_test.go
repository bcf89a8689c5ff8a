package main

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestESIPlanRefilledEntry: a page that is stored again, with a body that
// differs only inside a verbatim run and a header that agrees in every
// field (URI, Date, length, no validators), gets a plan of its own: plans
// are keyed on the identity the cache draws for each stored body, so the
// refill never replays, or stitches the stored runs of, the plan of the
// body it replaced.
func TestESIPlanRefilledEntry(t *testing.T) {
	t.Parallel()
	var version, maxAge atomic.Value
	version.Store("one")
	maxAge.Store("01") // as long as the refill's: the headers agree in size
	date := time.Now().UTC().Format(http.TimeFormat)
	lead := strings.Repeat("<p>Lorem ipsum dolor sit amet, a < b, <em>consectetur</em> adipiscing elit.</p>\n", 100)
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/up/") {
			w.Write([]byte("FRAG"))
			return
		}
		w.Header().Set("Cache-Control", "max-age="+maxAge.Load().(string))
		w.Header().Set("Date", date)
		html(w, lead+"version "+version.Load().(string)+` <esi:include src="/up/f"/>`+lead)
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `
	http {
		esi on;
		gzip on;
		esi_plan_zone plans:4m;
		proxy_cache_path memory keys_zone=pages:4m;
		server { listen 127.0.0.1:{port};
			location /p/ { proxy_pass http://{origin}; proxy_cache pages; esi_plan plans; esi_stitch on; }
			location /up/ { internal; esi off; proxy_pass http://{origin}; }
		}
	}`)
	check := func(want string) {
		t.Helper()
		// The miss or first hit records, the next hits replay; the gzip
		// ones send the stored runs from the third on.
		for i := 0; i < 4; i++ {
			for _, ae := range []string{"", "gzip"} {
				_, body := planGet(t, base+"/p/page", ae, "test")
				if !strings.Contains(body, "version "+want+" FRAG") || strings.Count(body, "Lorem") != 200 {
					t.Fatalf("delivery %d (%q): want version %s, got %q", i, ae, want, body[len(body)-len(lead)-40:len(body)-len(lead)])
				}
			}
		}
	}
	check("one")
	version.Store("two")
	maxAge.Store("60")
	time.Sleep(1100 * time.Millisecond) // stale: the next request stores the page again
	check("two")
}
