package proxy_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mosaic-edge/mosaic/proxy"
)

func TestRedirectRewrite(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The origin builds absolute URLs from the Host it received.
		base := "http://" + r.Host
		switch r.URL.Path {
		case "/remote/moved":
			w.Header().Set("Location", base+"/remote/new?x=1")
		case "/remote/refresh":
			w.Header().Set("Refresh", "5; URL="+base+"/remote/later")
		case "/remote/elsewhere":
			w.Header().Set("Location", "http://other.example/remote/x")
		case "/remote/relative":
			w.Header().Set("Location", "/remote/y")
		}
		w.WriteHeader(http.StatusFound)
	}))
	defer origin.Close()
	up := mustUpstream(t, "backend", 0, server(hostOf(origin)))
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	fetch := func(t *testing.T, url string) http.Header {
		resp, err := noFollow.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header
	}

	on := newFront(t, proxyTo(t, "http://backend/remote/", proxy.Options{Upstream: up, LocationPrefix: "/name/"}))
	for path, want := range map[string]string{
		"/name/moved":     "/name/new?x=1",
		"/name/elsewhere": "http://other.example/remote/x",
		"/name/relative":  "/remote/y",
	} {
		if got := fetch(t, on.URL+path).Get("Location"); got != want {
			t.Errorf("%s: Location %q, want %q", path, got, want)
		}
	}
	if got := fetch(t, on.URL+"/name/refresh").Get("Refresh"); got != "5; URL=/name/later" {
		t.Errorf("Refresh %q", got)
	}

	// Without a URI part, the default maps the target's root to "/".
	noURI := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, LocationPrefix: "/remote/"}))
	if got := fetch(t, noURI.URL+"/remote/moved").Get("Location"); got != "/remote/new?x=1" {
		t.Errorf("no URI: Location %q", got)
	}

	off := newFront(t, proxyTo(t, "http://backend/remote/", proxy.Options{Upstream: up, LocationPrefix: "/name/", RedirectOff: true}))
	if got := fetch(t, off.URL+"/name/moved").Get("Location"); got != "http://backend/remote/new?x=1" {
		t.Errorf("proxy_redirect off: Location %q", got)
	}
}
