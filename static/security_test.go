package static

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Requests that try to leave the root, written raw on a TCP connection so
// that no client cleans the path first.
func TestTraversalRaw(t *testing.T) {
	fx := serve(t, nil)
	for _, target := range []string{
		"/../outside.txt",
		"/../../../../etc/passwd",
		"/dir/../../outside.txt",
		"/%2e%2e/outside.txt",
		"/%2e%2e%2foutside.txt",
		"/%2E%2E%2Foutside.txt",
		"/dir/%2e%2e/%2e%2e/outside.txt",
		"/..%5coutside.txt",
		"/dir%5c..%5c..%5coutside.txt",
		"/a.txt%00.html",
		"/..",
	} {
		resp, body := fx.raw(target)
		if resp.StatusCode != 404 {
			t.Errorf("GET %s: status %d, want 404", target, resp.StatusCode)
		}
		if strings.Contains(body, "secret") {
			t.Errorf("GET %s: the file outside the root was served", target)
		}
	}
	if !strings.Contains(fx.log.String(), "request path refused") {
		t.Errorf("refusals not logged: %q", fx.log)
	}
}

// The same paths as a server that has decoded the URI passes them to
// ServePath, and as a server that has not.
func TestTraversalServePath(t *testing.T) {
	fx := serve(t, nil)
	for _, rel := range []string{
		"../outside.txt",
		"dir/../../outside.txt",
		"..",
		"/etc/passwd",
		"..\\outside.txt",
		"a.txt\x00.html",
		"%2e%2e/outside.txt", // undecoded: a file literally named so, which does not exist
		"%2e%2e%2foutside.txt",
	} {
		rec := httptest.NewRecorder()
		fx.fs.ServePath(rec, httptest.NewRequest("GET", "/x", nil), rel, "/x")
		if rec.Code != 404 || strings.Contains(rec.Body.String(), "secret") {
			t.Errorf("ServePath(%q): status %d", rel, rec.Code)
		}
	}
}

func TestSymlinks(t *testing.T) {
	fx := serve(t, nil)
	resp, body := fx.do("GET", "/in-link")
	expect(t, resp, 200, "Content-Length", "26")
	if body != alphabet {
		t.Errorf("link inside the root: body %q", body)
	}
	for _, p := range []string{"/out-link", "/abs-link"} {
		resp, body = fx.do("GET", p)
		expect(t, resp, 403)
		if strings.Contains(body, "secret") {
			t.Errorf("%s: the file outside the root was served", p)
		}
	}
	if !strings.Contains(fx.log.String(), "symbolic link leads outside the root") {
		t.Errorf("log %q", fx.log)
	}
	// A loop is NGINX's ELOOP: 403.
	resp, _ = fx.do("GET", "/loop1")
	expect(t, resp, 403)
}

// A FIFO must neither hang the request (opening it for reading blocks
// until a writer comes) nor be read: NGINX answers 404.
func TestFIFO(t *testing.T) {
	fx := serve(t, nil)
	status := make(chan int, 1)
	go func() {
		resp, err := http.Get(fx.srv.URL + "/fifo")
		if err != nil {
			status <- 0
			return
		}
		resp.Body.Close()
		status <- resp.StatusCode
	}()
	select {
	case code := <-status:
		if code != 404 {
			t.Errorf("status %d, want 404", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("request for a FIFO hangs")
	}
	if !strings.Contains(fx.log.String(), "not a regular file") {
		t.Errorf("log %q", fx.log)
	}
}

func TestRefusePath(t *testing.T) {
	for rel, refused := range map[string]bool{
		"":            false,
		"a":           false,
		"a/b.txt":     false,
		"..a":         false,
		"a..":         false,
		"a/..b/c":     false,
		".../x":       false,
		"./a":         false,
		"..":          true,
		"../a":        true,
		"a/..":        true,
		"a/../b":      true,
		"/a":          true,
		"a\\b":        true,
		"a\x00":       true,
		".hidden/x.y": false,
	} {
		if got := refusePath(rel) != ""; got != refused {
			t.Errorf("refusePath(%q) refused=%v, want %v", rel, got, refused)
		}
	}
}
