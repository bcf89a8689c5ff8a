package addition

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// parts answers the added URIs from a map; a URI it lacks fails.
func parts(m map[string]string) Fetcher {
	return func(_ *http.Request, uri string) (*http.Response, error) {
		body, ok := m[uri]
		if !ok {
			return nil, errors.New("no such part")
		}
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(body))}, nil
	}
}

func page(status int, ctype, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Length", "99")
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Etag", `"e"`)
		w.Header().Set("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
		w.WriteHeader(status)
		if body != "" {
			// By ReadFrom where w has it, as a file server sends.
			io.Copy(w, strings.NewReader(body))
		}
	})
}

func TestAddition(t *testing.T) {
	fetch := parts(map[string]string{"/h": "<h>", "/f": "<f>"})
	for _, c := range []struct {
		name         string
		opts         Options
		next         http.Handler
		method       string
		body, etag   string
		cl, accepted string
	}{
		{"both", Options{Before: "/h", After: "/f"}, page(200, "text/html; charset=utf-8", "page"), "GET", "<h>page<f>", `W/"e"`, "", ""},
		{"before", Options{Before: "/h"}, page(200, "text/html", "page"), "GET", "<h>page", `W/"e"`, "", ""},
		{"after", Options{After: "/f"}, page(200, "text/html", "page"), "GET", "page<f>", `W/"e"`, "", ""},
		{"empty body", Options{Before: "/h", After: "/f"}, page(200, "text/html", ""), "GET", "<h><f>", `W/"e"`, "", ""},
		{"head", Options{Before: "/h", After: "/f"}, page(200, "text/html", ""), "HEAD", "", `W/"e"`, "", ""},
		{"other type", Options{Before: "/h"}, page(200, "text/plain", "page"), "GET", "page", `"e"`, "99", "bytes"},
		{"listed type", Options{Before: "/h", Types: []string{"text/plain"}}, page(200, "text/plain", "page"), "GET", "<h>page", `W/"e"`, "", ""},
		{"any type", Options{Before: "/h", Types: []string{"*"}}, page(200, "image/png", "page"), "GET", "<h>page", `W/"e"`, "", ""},
		{"not 200", Options{Before: "/h"}, page(404, "text/html", "page"), "GET", "page", `"e"`, "99", "bytes"},
		{"subrequest", Options{Before: "/h", Main: func(*http.Request) bool { return false }}, page(200, "text/html", "page"), "GET", "page", `"e"`, "99", "bytes"},
		{"nothing written", Options{After: "/f"}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Header().Set("Content-Type", "text/html") }), "GET", "<f>", "", "", ""},
	} {
		c.opts.Fetch = fetch
		h, err := New(c.next, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, "/", nil))
		res := rec.Result()
		if got := rec.Body.String(); got != c.body {
			t.Errorf("%s: body %q, want %q", c.name, got, c.body)
		}
		if got := res.Header.Get("Etag"); got != c.etag {
			t.Errorf("%s: ETag %q, want %q", c.name, got, c.etag)
		}
		if got := res.Header.Get("Content-Length"); got != c.cl {
			t.Errorf("%s: Content-Length %q, want %q", c.name, got, c.cl)
		}
		if got := res.Header.Get("Accept-Ranges"); got != c.accepted {
			t.Errorf("%s: Accept-Ranges %q, want %q", c.name, got, c.accepted)
		}
		if c.etag != "" && res.Header.Get("Last-Modified") == "" {
			t.Errorf("%s: Last-Modified removed", c.name)
		}
	}
}

// TestAdditionFailureAborts: a part that cannot be fetched ends the
// response after what was sent, as NGINX closes the connection.
func TestAdditionFailureAborts(t *testing.T) {
	h, err := New(page(200, "text/html", "page"), Options{
		Before: "/h", After: "/gone", Fetch: parts(map[string]string{"/h": "<h>"}), Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Errorf("panic %v, want http.ErrAbortHandler", p)
		}
		if got := rec.Body.String(); got != "<h>page" {
			t.Errorf("sent %q before the failure", got)
		}
	}()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
}

func TestAdditionNeedsFetch(t *testing.T) {
	if _, err := New(http.NotFoundHandler(), Options{Before: "/h"}); err == nil {
		t.Error("no error without Fetch")
	}
	next := http.NotFoundHandler()
	if h, err := New(next, Options{}); err != nil || h == nil {
		t.Errorf("without URIs: %v, %v", h, err)
	}
}
