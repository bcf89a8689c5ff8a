package proxy_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mosaic-edge/mosaic/proxy"
)

// TestAccelLastContentType: the hook gets the last of the upstream's
// Content-Type fields, the one the relay sends without a redirect and
// the one NGINX's copies leave in place.
func TestAccelLastContentType(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = []string{"text/html", "application/json", "text/plain"}
		w.Header().Set("X-Accel-Redirect", "/target")
	}))
	defer origin.Close()
	p, err := proxy.ParsePass(origin.URL)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	h, err := proxy.New(proxy.Options{Pass: p, AccelRedirect: func(w http.ResponseWriter, r *http.Request, a *proxy.Accel) {
		got = a.ContentType
	}})
	if err != nil {
		t.Fatal(err)
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if got != "text/plain" {
		t.Errorf("Accel.ContentType %q, want the last, text/plain", got)
	}
}
