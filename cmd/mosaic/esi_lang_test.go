package main

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The ESI 1.0 language through the binary: pages proxied from an origin on
// loopback, their fragments proxied to the same origin.

func TestESILanguageThroughBinary(t *testing.T) {
	port := freePort(t)
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page/lang":
			html(w, `<esi:choose><esi:when test="$(HTTP_COOKIE{tier})=='gold' &amp; $(QUERY_STRING{v}) >= 2">GOLD</esi:when>`+
				`<esi:otherwise>PLAIN</esi:otherwise></esi:choose>|`+
				`<esi:try><esi:attempt><esi:include src="/up/down"/></esi:attempt><esi:except>E:<esi:include src="/up/ok"/></esi:except></esi:try>|`+
				`<esi:try><esi:attempt>A:<esi:include src="/up/ok"/></esi:attempt><esi:except><esi:include src="/up/never"/></esi:except></esi:try>|`+
				`<esi:vars>$(HTTP_COOKIE{name}|'guest')</esi:vars>|$(HTTP_COOKIE{name})|`+
				`<esi:include src="/up/echo/$(HTTP_COOKIE{tier}|'none')?q=$(QUERY_STRING{q})"/>`)
		case "/up/down":
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "down")
		case "/up/ok":
			io.WriteString(w, "ok")
		default:
			fmt.Fprintf(w, "UP %s", r.URL.RequestURI())
		}
	})
	base, _ := esiSite(t, port, o, `http {
		esi on;
		server { listen 127.0.0.1:{port};
			location /page/ { proxy_pass http://{origin}; }
			location /up/ { internal; esi off; proxy_pass http://{origin}; }
		}
	}`)

	hdr := http.Header{"Cookie": {"tier=gold; name=<i>x</i>"}}
	_, body := esiDo(t, "GET", base+"/page/lang?v=3&q=a%26b", hdr)
	if want := `GOLD|E:ok|A:ok|&lt;i&gt;x&lt;/i&gt;|$(HTTP_COOKIE{name})|UP /up/echo/gold?q=a%26b`; body != want {
		t.Errorf("gold client:\n got %q\nwant %q", body, want)
	}
	_, body = esiDo(t, "GET", base+"/page/lang?v=1&q=x%3Fy%23z", nil)
	if want := `PLAIN|E:ok|A:ok|guest|$(HTTP_COOKIE{name})|UP /up/echo/none?q=x%3Fy%23z`; body != want {
		t.Errorf("plain client:\n got %q\nwant %q", body, want)
	}
	// The failing attempt's include was fetched; the except of the
	// successful try never was.
	if o.count("/up/down") != 2 || o.count("/up/never") != 0 {
		t.Errorf("origin hits: %v", o.counts())
	}
}

func TestESISurrogateThroughBinary(t *testing.T) {
	port := freePort(t)
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/asks"):
			w.Header().Set("Surrogate-Control", `max-age=60, content="ESI/1.0"`)
			html(w, `[<esi:include src="/up/ok"/>]`)
		case strings.HasSuffix(r.URL.Path, "/other"):
			w.Header().Set("Surrogate-Control", `max-age=60`)
			html(w, `[<esi:include src="/up/ok"/>]`)
		case strings.HasSuffix(r.URL.Path, "/plain"):
			html(w, `[<esi:include src="/up/ok"/>]`)
		case strings.HasSuffix(r.URL.Path, "/capability"):
			html(w, r.Header.Get("Surrogate-Capability"))
		default:
			io.WriteString(w, "ok")
		}
	})
	base, _ := esiSite(t, port, o, `http {
		esi on;
		proxy_cache_path memory keys_zone=pages:1m;
		server { listen 127.0.0.1:{port};
			location /s/ { esi_surrogate on; proxy_pass http://{origin}; }
			location /cached/ { esi_surrogate on; proxy_cache pages; proxy_cache_valid 200 1h; proxy_pass http://{origin}; }
			location /page/ { proxy_pass http://{origin}; }
			location /up/ { internal; esi off; proxy_pass http://{origin}; }
		}
	}`)
	const verbatim = `[<esi:include src="/up/ok"/>]`
	for _, tc := range []struct{ path, want string }{
		{"/s/asks", "[ok]"},
		{"/s/other", verbatim},
		{"/s/plain", verbatim},
		{"/s/capability", `mosaic="Surrogate/1.0 ESI/1.0"`},
		{"/page/other", "[ok]"},
		{"/page/plain", "[ok]"},
		{"/page/capability", ""},
		// The cache stores the origin's header; each delivery, a hit
		// included, reads it and removes it.
		{"/cached/asks", "[ok]"},
		{"/cached/asks", "[ok]"},
		{"/cached/plain", verbatim},
		{"/cached/plain", verbatim},
	} {
		resp, body := esiDo(t, "GET", base+tc.path, nil)
		if body != tc.want {
			t.Errorf("%s: got %q, want %q", tc.path, body, tc.want)
		}
		if sc := resp.Header.Get("Surrogate-Control"); sc != "" {
			t.Errorf("%s: Surrogate-Control %q reached the client", tc.path, sc)
		}
	}
	if o.count("/cached/asks") != 1 || o.count("/cached/plain") != 1 {
		t.Errorf("origin hits: %v", o.counts())
	}
}

func TestESISurrogateConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.conf")
	writeFile(t, path, "http { esi_surrogate yes; server { listen 127.0.0.1:1; } }\n")
	out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
	want := fmt.Sprintf(`invalid value "yes" in "esi_surrogate" directive, it must be "on" or "off" in %s:1`, path)
	if err == nil || !strings.Contains(string(out), want) {
		t.Errorf("%v\n got %s\nwant %s", err, out, want)
	}
	good := filepath.Join(dir, "good.conf")
	writeFile(t, good, "http { esi on; esi_surrogate on; server { listen 127.0.0.1:1; location / { esi_surrogate off; } } }\n")
	if out, err := exec.Command(checkPath, "-t", "-c", good).CombinedOutput(); err != nil {
		t.Errorf("esi_surrogate on/off: %v\n%s", err, out)
	}
}
