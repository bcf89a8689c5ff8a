package compress_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/pcre"
)

func gzipOnly(mod func(*compress.Options)) compress.Options {
	return allOn(func(o *compress.Options) {
		o.Brotli.Enable, o.Zstd.Enable = false, false
		if mod != nil {
			mod(o)
		}
	})
}

func TestGzipLevels(t *testing.T) {
	js := jquery(t)
	var sizes []int
	for _, level := range []int{1, 6, 9} {
		url := serve(t, mustNew(t, respond(200, js, "Content-Type: text/html"), gzipOnly(func(o *compress.Options) { o.Gzip.Level = level })))
		resp, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: gzip")
		if resp.Header.Get("Content-Encoding") != "gzip" || string(decode(t, "gzip", raw)) != string(js) {
			t.Fatalf("level %d: no gzip round trip", level)
		}
		sizes = append(sizes, len(raw))
	}
	if !(sizes[0] > sizes[1] && sizes[1] >= sizes[2]) {
		t.Errorf("gzip_comp_level has no effect: sizes %v at levels 1, 6, 9", sizes)
	}
}

func TestGzipHTTPVersion(t *testing.T) {
	page := text(3000)
	for _, tc := range []struct {
		min   compress.ProtoVersion
		proto string
		want  string
	}{
		{compress.ProtoVersion{1, 1}, "HTTP/1.0", ""},
		{compress.ProtoVersion{1, 1}, "HTTP/1.1", "gzip"},
		{compress.ProtoVersion{1, 0}, "HTTP/1.0", "gzip"},
	} {
		url := serve(t, mustNew(t, respond(200, page, "Content-Type: text/html"), gzipOnly(func(o *compress.Options) { o.Gzip.HTTPVersion = tc.min })))
		conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(conn, "GET / %s\r\nHost: test\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n", tc.proto)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(resp.Body)
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		ce := resp.Header.Get("Content-Encoding")
		if ce != tc.want || string(decode(t, ce, raw)) != string(page) {
			t.Errorf("gzip_http_version %v, %s request: Content-Encoding %q, want %q", tc.min, tc.proto, ce, tc.want)
		}
	}
}

func TestGzipDisable(t *testing.T) {
	page := text(3000)
	opts := allOn(func(o *compress.Options) {
		o.Gzip.Disable = compress.GzipDisable{MSIE6: true, Patterns: []compress.UserAgentPattern{pcre.MustCompile("badbot", true)}}
	})
	url := serve(t, mustNew(t, respond(200, page, "Content-Type: text/html"), opts))
	for _, tc := range []struct{ ua, ae, want string }{
		{"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.0)", "gzip", ""},
		{"Mozilla/4.0 (compatible; MSIE 5.5; Windows 98)", "gzip", ""},
		{"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)", "gzip", "gzip"}, // XP SP2
		{"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1) Opera 7.0", "gzip", "gzip"},
		{"Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.0)", "gzip", "gzip"},
		{"BadBot/1.0", "gzip", ""},
		{"Mozilla/5.0 BADBOT", "gzip", ""},
		{"Mozilla/5.0", "gzip", "gzip"},
		{"BadBot/1.0", "br, gzip", "br"}, // gzip_disable concerns gzip only
		{"BadBot/1.0", "gzip;q=1, zstd;q=0.5", "zstd"},
	} {
		resp := fetchDecoded(t, url, page, "User-Agent: "+tc.ua, "Accept-Encoding: "+tc.ae)
		if got := resp.Header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("%q, %q: Content-Encoding %q, want %q", tc.ua, tc.ae, got, tc.want)
		}
	}
}

func TestGzipProxied(t *testing.T) {
	page := text(3000)
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	future := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name     string
		proxied  compress.Proxied
		request  []string
		response []string
		want     string
	}{
		{"not proxied", 0, nil, nil, "gzip"},
		{"off", 0, []string{"Via: 1.1 cache"}, nil, ""},
		{"any", compress.ProxiedAny, []string{"Via: 1.1 cache"}, nil, "gzip"},
		{"expired, past", compress.ProxiedExpired, []string{"Via: 1.1 cache"}, []string{"Expires: " + past}, "gzip"},
		{"expired, future", compress.ProxiedExpired, []string{"Via: 1.1 cache"}, []string{"Expires: " + future}, ""},
		{"expired, invalid", compress.ProxiedExpired, []string{"Via: 1.1 cache"}, []string{"Expires: 0"}, ""},
		{"Expires without expired", compress.ProxiedNoCache, []string{"Via: 1.1 cache"}, []string{"Expires: " + past, "Cache-Control: no-cache"}, ""},
		{"no-cache", compress.ProxiedNoCache, []string{"Via: 1.1 cache"}, []string{"Cache-Control: max-age=0, No-Cache"}, "gzip"},
		{"no-cache missing", compress.ProxiedNoCache, []string{"Via: 1.1 cache"}, []string{"Cache-Control: max-age=60"}, ""},
		{"no-store", compress.ProxiedNoStore, []string{"Via: 1.1 cache"}, []string{"Cache-Control: no-store"}, "gzip"},
		{"private", compress.ProxiedPrivate, []string{"Via: 1.1 cache"}, []string{"Cache-Control: private"}, "gzip"},
		{"private, public response", compress.ProxiedPrivate, []string{"Via: 1.1 cache"}, []string{"Cache-Control: public"}, ""},
		{"auth", compress.ProxiedAuth, []string{"Via: 1.1 cache", "Authorization: Bearer x"}, []string{"Cache-Control: public"}, "gzip"},
		{"no_last_modified", compress.ProxiedNoLastModified, []string{"Via: 1.1 cache"}, []string{"Last-Modified: " + past}, ""},
		{"no_last_modified, none", compress.ProxiedNoLastModified, []string{"Via: 1.1 cache"}, nil, "gzip"},
		{"no_etag", compress.ProxiedNoETag, []string{"Via: 1.1 cache"}, []string{`ETag: "x"`}, ""},
		{"no_etag, none", compress.ProxiedNoETag, []string{"Via: 1.1 cache"}, nil, "gzip"},
	} {
		url := serve(t, mustNew(t, respond(200, page, append(tc.response, "Content-Type: text/html")...), gzipOnly(func(o *compress.Options) { o.Gzip.Proxied = tc.proxied })))
		resp := fetchDecoded(t, url, page, append(tc.request, "Accept-Encoding: gzip")...)
		if got := resp.Header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("%s: Content-Encoding %q, want %q", tc.name, got, tc.want)
		}
	}
	// A file's date, which a file server reports (header.FileDated), is
	// not a Last-Modified line to no_last_modified, as NGINX keeps a
	// static file's date out of the header list until after its filters.
	file := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", past)
		w.Header().Set("Content-Type", "text/html")
		header.FileDated(w)
		w.Write(page)
	})
	url := serve(t, mustNew(t, file, gzipOnly(func(o *compress.Options) { o.Gzip.Proxied = compress.ProxiedNoLastModified })))
	if resp := fetchDecoded(t, url, page, "Via: 1.1 cache", "Accept-Encoding: gzip"); resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("no_last_modified, a file's date: Content-Encoding %q, want gzip", resp.Header.Get("Content-Encoding"))
	}
	// Brotli does not look at gzip_proxied, as with ngx_brotli.
	url = serve(t, mustNew(t, respond(200, page, "Content-Type: text/html"), allOn(nil)))
	if resp := fetchDecoded(t, url, page, "Via: 1.1 cache", "Accept-Encoding: br, gzip"); resp.Header.Get("Content-Encoding") != "br" {
		t.Errorf("proxied brotli: %q", resp.Header.Get("Content-Encoding"))
	}
}
