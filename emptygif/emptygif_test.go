package emptygif

import (
	"bytes"
	"image/gif"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mosaic-edge/mosaic/static"
)

func TestGIFDecodes(t *testing.T) {
	img, err := gif.Decode(bytes.NewReader(GIF[:]))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1 || b.Dy() != 1 {
		t.Errorf("bounds %v", b)
	}
	if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
		t.Errorf("pixel not transparent: alpha %d", a)
	}
}

func TestHandler(t *testing.T) {
	for _, c := range []struct {
		method, header, value string
		code                  int
		body                  bool
	}{
		{"GET", "", "", 200, true},
		{"HEAD", "", "", 200, false},
		{"POST", "", "", 405, false},
		{"GET", "If-Modified-Since", "Mon, 28 Sep 1970 06:00:00 GMT", 304, false},
		{"GET", "If-Modified-Since", "Mon, 28 Sep 1980 06:00:00 GMT", 200, true},
		{"GET", "If-Unmodified-Since", "Mon, 28 Sep 1970 05:00:00 GMT", 412, false},
	} {
		r := httptest.NewRequest(c.method, "/pixel.gif", nil)
		if c.header != "" {
			r.Header.Set(c.header, c.value)
		}
		w := httptest.NewRecorder()
		Handler{Preconditions: func(r *http.Request, mtime int64) int {
			return static.Preconditions(r, nil, mtime, static.ModifiedSinceExact, false)
		}}.ServeHTTP(w, r)
		if w.Code != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.header, w.Code, c.code)
		}
		if got := bytes.Equal(w.Body.Bytes(), GIF[:]); got != c.body {
			t.Errorf("%s %s: body %q", c.method, c.header, w.Body.Bytes())
		}
		if c.code < 400 && w.Header().Get("Last-Modified") != "Mon, 28 Sep 1970 06:00:00 GMT" {
			t.Errorf("%s %s: %v", c.method, c.header, w.Header())
		}
	}
	w := httptest.NewRecorder()
	Handler{}.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Header().Get("Content-Type") != "image/gif" || w.Header().Get("Content-Length") != "43" {
		t.Errorf("%v", w.Header())
	}
}
