package headers_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/headers"
	"github.com/mosaic-edge/mosaic/vars"
)

func mustNew(t *testing.T, next http.Handler, opts headers.Options) http.Handler {
	t.Helper()
	h, err := headers.New(next, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestAddHeaderStatuses(t *testing.T) {
	opts := headers.Options{Headers: []headers.Header{
		{Name: "x-plain", Value: vars.MustCompile("p")},
		{Name: "X-Always", Value: vars.MustCompile("a"), Always: true},
		{Name: "X-Method", Value: vars.MustCompile("$request_method")},
		{Name: "X-Empty", Value: vars.MustCompile("$http_x_absent")},
	}}
	for _, c := range []struct {
		code        int
		plain, also bool
	}{{200, true, true}, {204, true, true}, {301, true, true}, {304, true, true}, {404, false, true}, {500, false, true}} {
		h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(c.code) }), opts)
		srv := httptest.NewServer(h)
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Close()
		if (resp.Header.Get("X-Plain") == "p") != c.plain || (resp.Header.Get("X-Always") == "a") != c.also {
			t.Errorf("%d: %v", c.code, resp.Header)
		}
		if c.plain && resp.Header.Get("X-Method") != "GET" {
			t.Errorf("%d: variable value %q", c.code, resp.Header.Get("X-Method"))
		}
		if _, ok := resp.Header["X-Empty"]; ok {
			t.Errorf("%d: empty value sent", c.code)
		}
	}
}

func TestWriterKeepsInterfaces(t *testing.T) {
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(io.ReaderFrom); !ok {
			t.Error("ReaderFrom lost")
		}
		io.Copy(w, strings.NewReader("body"))
		http.NewResponseController(w).Flush()
	}), headers.Options{Headers: []headers.Header{{Name: "X-A", Value: vars.MustCompile("1")}}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "body" || resp.Header.Get("X-A") != "1" {
		t.Fatalf("%q %v", b, resp.Header)
	}
}

// New keeps a copy of the options: the caller's slice is neither
// rewritten (to the canonical name) nor read again later.
func TestNewCopiesOptions(t *testing.T) {
	hs := []headers.Header{{Name: "x-a", Value: vars.MustCompile("1")}}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := mustNew(t, ok, headers.Options{Headers: hs})
	if hs[0].Name != "x-a" {
		t.Fatalf("caller's header renamed to %q", hs[0].Name)
	}
	hs[0] = headers.Header{Name: "X-B", Value: vars.MustCompile("2")}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if got := w.Header(); got.Get("X-A") != "1" || got.Get("X-B") != "" {
		t.Fatalf("headers %v after the caller changed its slice, want X-A: 1 only", got)
	}
}

func TestNewNothingToAdd(t *testing.T) {
	next := http.NewServeMux()
	h, err := headers.New(next, headers.Options{})
	if err != nil || h != http.Handler(next) {
		t.Fatalf("New with nothing to add: %v, %v; want next itself", h, err)
	}
}

func TestNewRefuses(t *testing.T) {
	v := vars.MustCompile("v")
	for name, c := range map[string]struct {
		next http.Handler
		opts headers.Options
	}{
		"nil next":         {nil, headers.Options{}},
		"empty name":       {http.NotFoundHandler(), headers.Options{Headers: []headers.Header{{Value: v}}}},
		"name with space":  {http.NotFoundHandler(), headers.Options{Headers: []headers.Header{{Name: "X A", Value: v}}}},
		"name with colon":  {http.NotFoundHandler(), headers.Options{Headers: []headers.Header{{Name: "X:A", Value: v}}}},
		"name with CRLF":   {http.NotFoundHandler(), headers.Options{Headers: []headers.Header{{Name: "X\r\nA", Value: v}}}},
		"no value":         {http.NotFoundHandler(), headers.Options{Headers: []headers.Header{{Name: "X-A"}}}},
		"daily past a day": {http.NotFoundHandler(), headers.Options{Expires: headers.Expires{Mode: headers.ExpiresDaily, D: 24*time.Hour + time.Second}}},
		"daily negative":   {http.NotFoundHandler(), headers.Options{Expires: headers.Expires{Mode: headers.ExpiresDaily, D: -time.Hour}}},
		"unknown mode":     {http.NotFoundHandler(), headers.Options{Expires: headers.Expires{Mode: 99}}},
	} {
		if h, err := headers.New(c.next, c.opts); err == nil || h != nil {
			t.Errorf("%s: accepted (%v, %v)", name, h, err)
		}
	}
}

// Trailers go out after the body with the statuses add_header uses
// (always: any), an empty value left out, none for HEAD; through
// net/http's server, as http.TrailerPrefix fields.
func TestTrailers(t *testing.T) {
	opts := headers.Options{Trailers: []headers.Header{
		{Name: "X-Plain", Value: vars.MustCompile("p")},
		{Name: "X-Always", Value: vars.MustCompile("a"), Always: true},
		{Name: "X-Empty", Value: vars.MustCompile("$http_x_absent")},
	}}
	for _, c := range []struct {
		method string
		code   int
		want   string
	}{{"GET", 200, "a p"}, {"GET", 206, "a p"}, {"GET", 404, "a"}, {"GET", 500, "a"}, {"HEAD", 200, ""}} {
		h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.code)
			io.WriteString(w, "body")
		}), opts)
		srv := httptest.NewServer(h)
		req, _ := http.NewRequest(c.method, srv.URL, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		srv.Close()
		var got []string
		for k, vv := range resp.Trailer {
			if k == "X-Empty" && len(vv) > 0 {
				t.Errorf("%s %d: empty trailer sent", c.method, c.code)
			}
			if strings.HasPrefix(k, "X-") {
				got = append(got, vv...)
			}
		}
		slices.Sort(got)
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s %d: trailers %v, want %q", c.method, c.code, resp.Trailer, c.want)
		}
	}
}
