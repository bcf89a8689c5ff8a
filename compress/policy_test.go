package compress_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/compress"
)

const browser = "Accept-Encoding: gzip, deflate, br, zstd"

func TestStatuses(t *testing.T) {
	page := text(2000)
	for _, tc := range []struct {
		status int
		want   string
	}{
		{200, "br"}, {403, "br"}, {404, "br"},
		{201, ""}, {301, ""}, {410, ""}, {500, ""}, {503, ""},
	} {
		url := serve(t, mustNew(t, respond(tc.status, page, "Content-Type: text/html"), allOn(nil)))
		resp := fetchDecoded(t, url, page, browser)
		if got := resp.Header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("status %d: Content-Encoding %q, want %q", tc.status, got, tc.want)
		}
		if resp.StatusCode != tc.status {
			t.Errorf("status %d came back as %d", tc.status, resp.StatusCode)
		}
	}
}

func TestBodylessStatuses(t *testing.T) {
	for _, tc := range []struct {
		status int
		vary   string
	}{
		{http.StatusNoContent, ""},
		// A 304 stands for its 200, which would be compressible: it
		// carries the 200's Vary (RFC 9110 section 15.4.5).
		{http.StatusNotModified, "Accept-Encoding"},
	} {
		url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Etag", `"v1"`)
			w.WriteHeader(tc.status)
		}), allOn(nil)))
		resp, b := fetch(t, http.MethodGet, url, browser)
		if resp.StatusCode != tc.status || len(b) != 0 {
			t.Fatalf("status %d, %d body bytes", resp.StatusCode, len(b))
		}
		if ce, vary, etag := resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"), resp.Header.Get("Etag"); ce != "" || vary != tc.vary || etag != `"v1"` {
			t.Errorf("%d: Content-Encoding %q, Vary %q, ETag %q; want none, %q, the handler's", tc.status, ce, vary, etag, tc.vary)
		}
	}
}

// TestNotModifiedVary holds a 304's and a 206's Vary to what their 200
// would carry, judged from their own headers: a 304 without a
// Content-Type says nothing of its 200 and is left alone, one of a type
// no coding takes does not vary, as its 200 does not, and neither does a
// 206 whose Content-Range gives a complete length below every min length.
func TestNotModifiedVary(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		headers []string
		vary    bool // gzip_vary
		want    string
	}{
		{"304 typed", 304, []string{"Content-Type: text/html"}, true, "Accept-Encoding"},
		{"304 of a type no coding takes", 304, []string{"Content-Type: image/png"}, true, ""},
		{"304 typed, gzip_vary off", 304, []string{"Content-Type: text/html"}, false, ""},
		{"304 bare", 304, nil, true, ""},
		{"304 of an encoded 200", 304, []string{"Content-Type: text/html", "Content-Encoding: br"}, true, ""},
		{"304 no-transform", 304, []string{"Content-Type: text/html", "Cache-Control: no-transform"}, true, ""},
		{"304 keeps the handler's Vary", 304, []string{"Content-Type: text/html", "Vary: Origin"}, true, "Accept-Encoding|Origin"},
		{"206 typed", 206, []string{"Content-Type: text/html", "Content-Range: bytes 0-0/10000"}, true, "Accept-Encoding"},
		{"206 of a 200 below every min length", 206, []string{"Content-Type: text/html", "Content-Range: bytes 0-0/10"}, true, ""},
		{"206 of an unknown length", 206, []string{"Content-Type: text/html", "Content-Range: bytes 0-0/*"}, true, "Accept-Encoding"},
		// What an upstream states is read strictly: digits only, within
		// int64, and on a 206 only; anything else is a length unknown.
		{"206 of a signed length", 206, []string{"Content-Type: text/html", "Content-Range: bytes 0-0/+10"}, true, "Accept-Encoding"},
		{"206 of a length past int64", 206, []string{"Content-Type: text/html", "Content-Range: bytes 0-0/99999999999999999999"}, true, "Accept-Encoding"},
		{"206 of another unit", 206, []string{"Content-Type: text/html", "Content-Range: items 0-0/10"}, true, "Accept-Encoding"},
		{"304 with a stray Content-Range", 304, []string{"Content-Type: text/html", "Content-Range: bytes 0-0/10"}, true, "Accept-Encoding"},
		{"412 typed", 412, []string{"Content-Type: text/html"}, true, ""},
	} {
		url := serve(t, mustNew(t, respond(tc.status, nil, tc.headers...), allOn(func(o *compress.Options) { o.Vary = tc.vary })))
		resp, _ := fetch(t, http.MethodGet, url, browser)
		if got := strings.Join(resp.Header.Values("Vary"), "|"); resp.StatusCode != tc.status || got != tc.want {
			t.Errorf("%s: %d, Vary %q, want %q", tc.name, resp.StatusCode, got, tc.want)
		}
	}
}

func TestPartialContentAndRange(t *testing.T) {
	page := text(5000)
	// A handler that honours Range: the 206 must stay identity.
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "page.html", fixedTime, bytes.NewReader(page))
	}), allOn(nil)))
	resp, b := fetch(t, http.MethodGet, url, browser, "Range: bytes=100-199")
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(b, page[100:200]) || resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("range: status %d, %d bytes, Content-Encoding %q", resp.StatusCode, len(b), resp.Header.Get("Content-Encoding"))
	}
	// A handler that ignores Range answers 200; it is served as identity
	// too, and varies, since without the Range it would be compressed.
	url = serve(t, mustNew(t, respond(200, page, "Content-Type: text/html"), allOn(nil)))
	resp, b = fetch(t, http.MethodGet, url, browser, "Range: bytes=0-10")
	if !bytes.Equal(b, page) || resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("ignored range: %d bytes, Content-Encoding %q, Vary %q", len(b), resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
	}
}

func TestAlreadyEncoded(t *testing.T) {
	payload := []byte("opaque bytes that are someone else's encoding")
	url := serve(t, mustNew(t, respond(200, payload, "Content-Type: text/html", "Content-Encoding: custom"), allOn(nil)))
	resp, b := fetch(t, http.MethodGet, url, browser)
	if !bytes.Equal(b, payload) || resp.Header.Get("Content-Encoding") != "custom" || resp.Header.Get("Vary") != "" {
		t.Fatalf("got %q with Content-Encoding %q, Vary %q", b, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
	}
}

func TestEmptyBody(t *testing.T) {
	for name, h := range map[string]http.Handler{
		"no write": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
		}),
		"empty write": respond(200, nil, "Content-Type: text/html"),
		"length 0":    respond(200, nil, "Content-Type: text/html", "Content-Length: 0"),
	} {
		url := serve(t, mustNew(t, h, allOn(func(o *compress.Options) { o.Brotli.MinLength = 0 })))
		resp, b := fetch(t, http.MethodGet, url, browser)
		if len(b) != 0 || resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: %d bytes, Content-Encoding %q", name, len(b), resp.Header.Get("Content-Encoding"))
		}
		if resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s: Vary %q; a skip for size still varies", name, resp.Header.Get("Vary"))
		}
	}
}

func TestMinLength(t *testing.T) {
	for _, tc := range []struct {
		min     int64
		size    int
		declare bool
		want    string
	}{
		{20, 19, true, ""},
		{20, 20, true, "br"},
		{20, 21, true, "br"},
		{1000, 999, true, ""},
		{1000, 1000, true, "br"},
		{0, 1, true, "br"},
		{20, 5, false, "br"}, // streamed: the length is only taken from Content-Length
	} {
		page := text(tc.size)
		headers := []string{"Content-Type: text/html"}
		if tc.declare {
			headers = append(headers, "Content-Length: "+strconv.Itoa(tc.size))
		}
		url := serve(t, mustNew(t, respond(200, page, headers...), allOn(func(o *compress.Options) { o.Brotli.MinLength = tc.min })))
		resp := fetchDecoded(t, url, page, "Accept-Encoding: br")
		if got := resp.Header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("min %d, %d bytes (declared %v): Content-Encoding %q, want %q", tc.min, tc.size, tc.declare, got, tc.want)
		}
		// A body too short for every coding is never compressed, so does
		// not vary, as in NGINX (gzip_min_length before gzip_vary); zstd
		// and gzip keep their default min length, 20.
		want := "Accept-Encoding"
		if tc.want == "" && tc.size < 20 {
			want = ""
		}
		if got := resp.Header.Get("Vary"); got != want {
			t.Errorf("min %d, %d bytes: Vary %q, want %q", tc.min, tc.size, got, want)
		}
	}
}

// Each coding applies its own min length and types: a response one coding
// turns down falls to the next the client accepts.
func TestPerCodingDirectives(t *testing.T) {
	page := text(100)
	opts := allOn(func(o *compress.Options) {
		o.Brotli.MinLength = 1000
		o.Zstd.Types = []string{"text/css"}
		o.Gzip.Types = []string{"text/css"}
	})
	url := serve(t, mustNew(t, respond(200, page, "Content-Type: text/css", "Content-Length: 100"), opts))
	resp := fetchDecoded(t, url, page, browser)
	if got := resp.Header.Get("Content-Encoding"); got != "zstd" {
		t.Errorf("Content-Encoding %q, want zstd (br is below its min length)", got)
	}
	url = serve(t, mustNew(t, respond(200, page, "Content-Type: text/javascript", "Content-Length: 100"), opts))
	resp = fetchDecoded(t, url, page, browser)
	if got := resp.Header.Get("Content-Encoding"); got != "" {
		t.Errorf("Content-Encoding %q: no coding takes text/javascript at this size", got)
	}
}

func TestTypes(t *testing.T) {
	page := text(3000)
	for _, tc := range []struct {
		types []string
		skip  []string
		ct    string
		want  string
	}{
		{nil, compress.DefaultSkipTypes(), "text/html", "br"}, // always
		{nil, compress.DefaultSkipTypes(), "TEXT/HTML; charset=UTF-8", "br"},
		{nil, compress.DefaultSkipTypes(), "text/css", ""},
		{[]string{"text/css"}, compress.DefaultSkipTypes(), "Text/CSS ; charset=utf-8", "br"},
		{[]string{"application/json"}, compress.DefaultSkipTypes(), "application/json", "br"},
		{[]string{"*"}, compress.DefaultSkipTypes(), "application/x-anything", "br"},
		{[]string{"*"}, compress.DefaultSkipTypes(), "image/svg+xml", "br"},
		{[]string{"*"}, compress.DefaultSkipTypes(), "IMAGE/PNG; charset=x", ""},
		{[]string{"*"}, compress.DefaultSkipTypes(), "font/woff2", ""},
		{[]string{"*"}, compress.DefaultSkipTypes(), "application/octet-stream", ""},
		{[]string{"image/png"}, compress.DefaultSkipTypes(), "image/png", "br"}, // named: the skip list yields
		{[]string{"*", "image/png"}, compress.DefaultSkipTypes(), "image/png", "br"},
		{[]string{"*", "image/png"}, compress.DefaultSkipTypes(), "image/gif", ""},
		{nil, []string{"text/html"}, "text/html", ""}, // the default yields to the skip list
		{[]string{"text/html"}, []string{"text/html"}, "text/html", "br"},
		{[]string{"*"}, nil, "image/png", "br"}, // compress_skip_types off
		{[]string{"*"}, []string{"text/csv"}, "text/csv", ""},
	} {
		url := serve(t, mustNew(t, respond(200, page, "Content-Type: "+tc.ct), allOn(func(o *compress.Options) {
			o.Brotli.Types = tc.types
			o.SkipTypes = tc.skip
		})))
		resp := fetchDecoded(t, url, page, "Accept-Encoding: br")
		if got := resp.Header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("types %v, skip %d types, %q: Content-Encoding %q, want %q", tc.types, len(tc.skip), tc.ct, got, tc.want)
		}
		// As NGINX's gzip_vary: a type no coding takes does not vary (the
		// other codings keep their default types, text/html alone).
		wantVary := ""
		if tc.want != "" {
			wantVary = "Accept-Encoding"
		}
		if got := resp.Header.Get("Vary"); got != wantVary {
			t.Errorf("%q: Vary %q, want %q", tc.ct, got, wantVary)
		}
	}
}

func TestSniffing(t *testing.T) {
	html := append([]byte("<!DOCTYPE html><html><body>"), text(3000)...)
	png := append([]byte("\x89PNG\x0D\x0A\x1A\x0A"), bytes.Repeat([]byte{0}, 3000)...)
	for _, tc := range []struct {
		name   string
		body   []byte
		chunks int
		wantCT string
		wantCE string
	}{
		{"html in one write", html, 1, "text/html; charset=utf-8", "br"},
		{"html in small writes", html, 300, "text/html; charset=utf-8", "br"},
		{"short html", html[:100], 1, "text/html; charset=utf-8", "br"},
		{"png", png, 1, "image/png", ""},
	} {
		url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			step := (len(tc.body) + tc.chunks - 1) / tc.chunks
			for b := tc.body; len(b) > 0; b = b[min(step, len(b)):] {
				w.Write(b[:min(step, len(b))])
			}
		}), allOn(nil)))
		resp := fetchDecoded(t, url, tc.body, "Accept-Encoding: br")
		if ct, ce := resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"); ct != tc.wantCT || (ce == "br") != (tc.wantCE == "br") {
			t.Errorf("%s: Content-Type %q, Content-Encoding %q; want %q, %q", tc.name, ct, ce, tc.wantCT, tc.wantCE)
		}
	}
}

func TestNoTransform(t *testing.T) {
	page := text(3000)
	url := serve(t, mustNew(t, respond(200, page, "Content-Type: text/html", "Cache-Control: public, No-Transform"), allOn(nil)))
	resp, b := fetch(t, http.MethodGet, url, browser)
	if !bytes.Equal(b, page) || resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Vary") != "" {
		t.Fatalf("no-transform: Content-Encoding %q, Vary %q", resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
	}
}

func TestStreamedBodyIsCompressed(t *testing.T) {
	var want bytes.Buffer
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for i := range 2000 {
			line := fmt.Sprintf("<li>item %d</li>\n", i)
			w.Write([]byte(line))
		}
	}), allOn(nil)))
	for i := range 2000 {
		fmt.Fprintf(&want, "<li>item %d</li>\n", i)
	}
	for _, coding := range []string{"br", "zstd", "gzip"} {
		resp := fetchDecoded(t, url, want.Bytes(), "Accept-Encoding: "+coding)
		if got := resp.Header.Get("Content-Encoding"); got != coding {
			t.Errorf("Content-Encoding %q, want %s", got, coding)
		}
	}
}

func TestNoAcceptEncoding(t *testing.T) {
	page := text(3000)
	url := serve(t, mustNew(t, respond(200, page, "Content-Type: text/html"), allOn(nil)))
	for _, ae := range []string{"", "Accept-Encoding: identity", "Accept-Encoding: deflate", "Accept-Encoding: *;q=0"} {
		var headers []string
		if ae != "" {
			headers = append(headers, ae)
		}
		resp, b := fetch(t, http.MethodGet, url, headers...)
		if !bytes.Equal(b, page) || resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%q: Content-Encoding %q", ae, resp.Header.Get("Content-Encoding"))
		}
		if resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%q: Vary %q; caches must learn the response varies", ae, resp.Header.Get("Vary"))
		}
	}
}

func TestPreferAndCodings(t *testing.T) {
	page := text(3000)
	for _, tc := range []struct {
		prefer []compress.Encoding
		ae     string
		want   string
	}{
		{nil, browser, "br"},
		{[]compress.Encoding{compress.Zstd}, browser, "zstd"},
		{[]compress.Encoding{compress.Gzip, compress.Brotli}, browser, "gzip"},
		{[]compress.Encoding{compress.Gzip}, "Accept-Encoding: gzip;q=0.5, br", "br"}, // the client's weights come first
		{nil, "Accept-Encoding: gzip, deflate", "gzip"},
		{nil, "Accept-Encoding: x-gzip", "gzip"},
	} {
		url := serve(t, mustNew(t, respond(200, page, "Content-Type: text/html"), allOn(func(o *compress.Options) { o.Prefer = tc.prefer })))
		resp := fetchDecoded(t, url, page, tc.ae)
		if got := resp.Header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("prefer %v, %q: %q, want %q", tc.prefer, tc.ae, got, tc.want)
		}
	}
}

func TestCodingsOff(t *testing.T) {
	page := text(3000)
	opts := compress.DefaultOptions()
	opts.Vary = true
	if h := mustNew(t, respond(200, page), opts); fmt.Sprintf("%T", h) != "http.HandlerFunc" {
		t.Errorf("with everything off New returned %T, want next itself", h)
	}
	opts.Gzip.Enable = true
	url := serve(t, mustNew(t, respond(200, page, "Content-Type: text/html"), opts))
	resp := fetchDecoded(t, url, page, browser)
	if got := resp.Header.Get("Content-Encoding"); got != "gzip" {
		t.Errorf("only gzip on: Content-Encoding %q", got)
	}
}

func TestInvalidOptionsRefused(t *testing.T) {
	for name, mod := range map[string]func(*compress.Options){
		"brotli level": func(o *compress.Options) { o.Brotli.Level = 12 },
		"window":       func(o *compress.Options) { o.Brotli.Window = 3000 },
		"gzip level":   func(o *compress.Options) { o.Gzip.Level = 0 },
		"zstd level":   func(o *compress.Options) { o.Zstd.Level = 23 },
		"buffers":      func(o *compress.Options) { o.Gzip.Buffers = compress.Buffers{} },
		"prefer":       func(o *compress.Options) { o.Prefer = []compress.Encoding{compress.Gzip, compress.Gzip} },
		"static":       func(o *compress.Options) { o.Zstd.Static = compress.StaticAlways + 1 },
	} {
		opts := allOn(mod)
		if err := opts.Validate(); err == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
		if h, err := compress.New(http.NotFoundHandler(), opts); err == nil || h != nil {
			t.Errorf("%s: New returned %v, %v; want an error", name, h, err)
		}
	}
	if err := allOn(nil).Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
