package ssi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestFetchHandlerInterim: an include's handler that sends 103 Early
// Hints before its answer is fetched with the final status and body.
func TestFetchHandlerInterim(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</a.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "gone")
	})
	parent := httptest.NewRequest(http.MethodGet, "/page.shtml", nil)
	resp, err := FetchHandler(h)(parent, "/frag")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusNotFound || string(body) != "gone" {
		t.Errorf("got %d %q, want 404 \"gone\"", resp.StatusCode, body)
	}
}
