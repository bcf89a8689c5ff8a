package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExampleTour runs examples/mosaic.conf, as the README's first command
// does, and checks what the README's quick tour says each curl shows. The
// example's ports are replaced by free ones.
func TestExampleTour(t *testing.T) {
	src, err := os.ReadFile("../../examples/mosaic.conf")
	if err != nil {
		t.Fatal(err)
	}
	port, appPort := freePort(t), freePort(t)
	conf := strings.NewReplacer(
		"127.0.0.1:8080", fmt.Sprintf("127.0.0.1:%d", port),
		"127.0.0.1:8081", fmt.Sprintf("127.0.0.1:%d", appPort),
	).Replace(string(src))
	path := filepath.Join(t.TempDir(), "mosaic.conf")
	writeFile(t, path, conf)
	runMosaic(t, "../..", path, port) // the example's paths are relative to the repository root
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	// The page: both fragments in place, no markup left.
	_, page := do(t, "GET", base+"/", nil)
	for _, want := range []string{"<ul class=\"headlines\">", "<p class=\"clock\">Assembled at "} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<esi:") {
		t.Errorf("the page kept ESI markup:\n%s", page)
	}

	// The cached fragment: a hit once the page fetched it. The clock
	// location has no cache.
	resp, _ := do(t, "HEAD", base+"/fragments/headlines.html", nil)
	if cs := resp.Header.Get("Cache-Status"); !strings.HasPrefix(cs, "mosaic; hit; ttl=") {
		t.Errorf("fragment Cache-Status %q, want a hit", cs)
	}
	if resp, _ := do(t, "GET", base+"/live/clock", nil); resp.Header.Get("Cache-Status") != "" {
		t.Errorf("live fragment cached: %q", resp.Header.Get("Cache-Status"))
	}

	// Each client gets the coding it asks for, on files and on the page.
	for _, enc := range []string{"br", "zstd", "gzip"} {
		for _, path := range []string{"/style.css", "/"} {
			resp, _ := do(t, "GET", base+path, map[string]string{"Accept-Encoding": enc})
			if got := resp.Header.Get("Content-Encoding"); got != enc || resp.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("%s with %s: Content-Encoding %q, Vary %q", path, enc, got, resp.Header.Get("Vary"))
			}
		}
	}

	if _, body := do(t, "GET", base+"/api/status", nil); !strings.Contains(body, `"components"`) {
		t.Errorf("api: %q", body)
	}
	if resp, _ := do(t, "GET", base+"/", map[string]string{"Host": "..."}); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("Host ...: %d, want 400", resp.StatusCode)
	}
}
