package headers

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

func TestAddHeaderStatuses(t *testing.T) {
	opts := Options{Headers: []Header{
		{Name: "x-plain", Value: vars.MustCompile("p")},
		{Name: "X-Always", Value: vars.MustCompile("a"), Always: true},
		{Name: "X-Method", Value: vars.MustCompile("$request_method")},
		{Name: "X-Empty", Value: vars.MustCompile("$http_x_absent")},
	}}
	for _, c := range []struct {
		code        int
		plain, also bool
	}{{200, true, true}, {204, true, true}, {301, true, true}, {304, true, true}, {404, false, true}, {500, false, true}} {
		h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(c.code) }), opts)
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

func TestExpiresForms(t *testing.T) {
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		args    []string
		expires string
		cc      string
	}{
		{[]string{"1h"}, "Fri, 02 Jan 2026 11:00:00 GMT", "max-age=3600"},
		{[]string{"-1"}, "Fri, 02 Jan 2026 09:59:59 GMT", "no-cache"},
		{[]string{"epoch"}, "Thu, 01 Jan 1970 00:00:01 GMT", "no-cache"},
		{[]string{"max"}, "Thu, 31 Dec 2037 23:55:55 GMT", "max-age=315360000"},
		{[]string{"@15h30m"}, "Fri, 02 Jan 2026 15:30:00 GMT", "max-age=19800"},
		{[]string{"@9h"}, "Sat, 03 Jan 2026 09:00:00 GMT", "max-age=82800"},
		{[]string{"modified", "1d"}, "Thu, 01 Jan 2026 00:00:00 GMT", "no-cache"},
	}
	for _, c := range cases {
		e, err := ParseExpires(c.args)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		h := http.Header{"Last-Modified": {"Wed, 31 Dec 2025 00:00:00 GMT"}}
		setExpires(h, e, now)
		if h.Get("Expires") != c.expires || h.Get("Cache-Control") != c.cc {
			t.Errorf("%v: Expires %q Cache-Control %q", c.args, h.Get("Expires"), h.Get("Cache-Control"))
		}
	}
	for _, bad := range [][]string{{"soon"}, {"modified", "@1h"}, {"later", "1h"}, {"@25h"}} {
		if _, err := ParseExpires(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if e, _ := ParseExpires([]string{"off"}); e.Mode != ExpiresOff {
		t.Error("off")
	}
}

func TestWriterKeepsInterfaces(t *testing.T) {
	h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(io.ReaderFrom); !ok {
			t.Error("ReaderFrom lost")
		}
		io.Copy(w, strings.NewReader("body"))
		http.NewResponseController(w).Flush()
	}), Options{Headers: []Header{{Name: "X-A", Value: vars.MustCompile("1")}}})
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
	if Handler(http.NotFoundHandler(), Options{}) == nil {
		t.Fatal("nil handler")
	}
}
