package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	pathpkg "path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	mbrotli "github.com/mosaic-edge/mosaic/brotli"
)

// The compression tests run the binary on a site of generated files and
// look at the bytes on the wire. Each directive has a check that fails if
// the directive is ignored.

// rawClient leaves Accept-Encoding alone and does not decode responses, as
// net/http's default transport would.
var rawClient = &http.Client{
	Transport:     &http.Transport{DisableCompression: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// get requests url with the given header name/value pairs and returns the
// response and its raw body.
func get(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	return request(t, http.MethodGet, url, header...)
}

func request(t *testing.T, method, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp, body
}

// decode undoes a Content-Encoding.
func decode(t *testing.T, coding string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return b
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("gzip header: %v", err)
		}
		r = zr
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("unexpected Content-Encoding %q", coding)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decoding %s: %v", coding, err)
	}
	return out
}

// corpus returns n bytes of script-like text: compressible, but with
// enough variety that compression levels give different sizes.
func corpus(n int) []byte {
	words := strings.Fields("function return var const let if else for while this " +
		"value index length push call apply prototype object array string number " +
		"true false null undefined document window element style event handler")
	var b bytes.Buffer
	x := uint32(2463534242)
	for b.Len() < n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		fmt.Fprintf(&b, "%s%d", words[x%uint32(len(words))], x>>24%97)
		switch x >> 8 % 7 {
		case 0:
			b.WriteString(";\n")
		case 1:
			b.WriteString("(")
		case 2:
			b.WriteString(") {")
		default:
			b.WriteString(" ")
		}
	}
	return b.Bytes()[:n]
}

// encodeBrotli is the brotli stream the server sends for data of known
// length at quality with window lgwin: mosaic's own encoder's, size-hinted
// by the length, as its Encode is.
func encodeBrotli(t *testing.T, data []byte, quality, lgwin int) []byte {
	t.Helper()
	out, err := mbrotli.Encode(nil, data, mbrotli.Options{Quality: quality, LGWin: lgwin})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func encodeGzip(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeZstd(t *testing.T, data []byte) []byte {
	t.Helper()
	w, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(data, nil)
}

// brotliWindow reads the window size (WBITS) from a brotli stream's first
// byte (RFC 7932 section 9.1).
func brotliWindow(t *testing.T, b []byte) int {
	t.Helper()
	if len(b) == 0 {
		t.Fatal("empty brotli stream")
	}
	if b[0]&1 == 0 {
		return 16
	}
	if n := b[0] >> 1 & 7; n != 0 {
		return 17 + int(n)
	}
	switch m := b[0] >> 4 & 7; m {
	case 0:
		return 17
	case 1:
		t.Fatal("large-window brotli stream")
	default:
		return 8 + int(m)
	}
	return 0
}

// site is a directory of test files served by a running mosaic.
type site struct {
	dir, root, base string
	p               *proc
	files           map[string][]byte
}

// The test files. Sizes matter: big.js needs a 2^17 window (128k), mid.js
// a 2^14 one (16k); mid.js and small.js keep high levels quick.
func siteFiles(t *testing.T) map[string][]byte {
	t.Helper()
	css := corpus(12_000)
	only := corpus(9_000)
	packed := corpus(7_000)
	return map[string][]byte{
		"big.js":        corpus(100_000),
		"mid.js":        corpus(12_000),
		"small.js":      corpus(5_000),
		"tiny.js":       []byte("var a=1;var b=2;"), // 16 bytes: below the default min length
		"data.json":     append(append([]byte(`{"x":"`), corpus(20_000)...), `"}`...),
		"page.html":     append([]byte("<!doctype html><p>"), corpus(20_000)...),
		"pic.png":       corpus(20_000), // compressible bytes with an image type
		"app.css":       css,
		"app.css.br":    encodeBrotli(t, css, 11, 22),
		"app.css.gz":    encodeGzip(t, css),
		"app.css.zst":   encodeZstd(t, css),
		"only.js":       only,
		"only.js.gz":    encodeGzip(t, only),
		"packed.txt.gz": encodeGzip(t, packed),
	}
}

// startSite writes the test files and starts mosaic with conf, in which
// {root} names the files' directory, {dir} the test's directory and
// {port} the port.
func startSite(t *testing.T, conf string) *site {
	t.Helper()
	s := &site{dir: t.TempDir(), files: siteFiles(t)}
	s.root = filepath.Join(s.dir, "www")
	if err := os.Mkdir(s.root, 0o755); err != nil {
		t.Fatal(err)
	}
	// Distinct modification times give each variant an ETag of its own.
	mtime := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for name, data := range s.files {
		path := filepath.Join(s.root, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		mtime = mtime.Add(time.Minute)
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	conf = strings.NewReplacer("{root}", s.root, "{dir}", s.dir).Replace(conf)
	port := freePort(t)
	s.p = startMosaic(t, s.dir, conf, port)
	s.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	t.Cleanup(rawClient.CloseIdleConnections)
	return s
}

// etagOf is the ETag static gives a file: hex mtime and size.
func (s *site) etagOf(t *testing.T, name string) string {
	t.Helper()
	fi, err := os.Stat(filepath.Join(s.root, name))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`"%x-%x"`, fi.ModTime().Unix(), fi.Size())
}

// expect fetches path with header pairs and checks the Content-Encoding
// and that the body decodes to file. It returns the response and raw body.
func (s *site) expect(t *testing.T, path, coding, file string, header ...string) (*http.Response, []byte) {
	t.Helper()
	resp, body := get(t, s.base+path, header...)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s %v: status %d", path, header, resp.StatusCode)
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != coding {
		t.Fatalf("GET %s %v: Content-Encoding %q, want %q", path, header, ce, coding)
	}
	if got := decode(t, coding, body); !bytes.Equal(got, s.files[file]) {
		t.Fatalf("GET %s %v: body decodes to %d bytes, not the %d of %s", path, header, len(got), len(s.files[file]), file)
	}
	return resp, body
}

const ae = "Accept-Encoding"

func TestCompressBrotliDirectives(t *testing.T) {
	s := startSite(t, `
http {
    brotli on;
    brotli_types application/javascript application/json;
    server {
        listen 127.0.0.1:{port};
        root {root};
        location /off/      { alias {root}/; brotli off; }
        location /css-only/ { alias {root}/; brotli_types text/css; }
        location /l1/       { alias {root}/; brotli_comp_level 1; }
        location /l11/      { alias {root}/; brotli_comp_level 11; }
        location /l0/       { alias {root}/; brotli_comp_level 0; }
        location /window/   { alias {root}/; brotli_window 16k; }
        location /min/      { alias {root}/; brotli_min_length 200k; }
        location /buffers/  { alias {root}/; brotli_buffers 2 1k; }
    }
}`)
	// brotli, brotli_types (http level), defaults: level 6, and a window
	// of 2^17 (the smallest that holds 100,000 bytes, under 512k).
	resp, body := s.expect(t, "/big.js", "br", "big.js", ae, "br")
	if w := brotliWindow(t, body); w != 17 {
		t.Errorf("default brotli_window on 100,000 bytes: window 2^%d, want 2^17", w)
	}
	if want := encodeBrotli(t, s.files["big.js"], 6, 17); !bytes.Equal(body, want) {
		t.Errorf("default level: %d bytes differ from quality 6 output (%d bytes)", len(body), len(want))
	}
	// The whole compressed body fits the default buffers: it goes out
	// with its length.
	if resp.ContentLength != int64(len(body)) {
		t.Errorf("Content-Length %d, want %d", resp.ContentLength, len(body))
	}
	s.expect(t, "/data.json", "br", "data.json", ae, "br")
	s.expect(t, "/page.html", "br", "page.html", ae, "br")
	s.expect(t, "/app.css", "", "app.css", ae, "br")
	s.expect(t, "/tiny.js", "", "tiny.js", ae, "br") // below brotli_min_length's default 20
	s.expect(t, "/big.js", "", "big.js")             // no Accept-Encoding

	s.expect(t, "/off/big.js", "", "big.js", ae, "br")

	// A location's list replaces the inherited one; text/html stays.
	s.expect(t, "/css-only/app.css", "br", "app.css", ae, "br")
	s.expect(t, "/css-only/data.json", "", "data.json", ae, "br")
	s.expect(t, "/css-only/page.html", "br", "page.html", ae, "br")

	// brotli_comp_level: the bytes are the encoder's at that quality.
	for _, q := range []int{0, 1, 11} {
		_, body := s.expect(t, fmt.Sprintf("/l%d/mid.js", q), "br", "mid.js", ae, "br")
		if want := encodeBrotli(t, s.files["mid.js"], q, 14); !bytes.Equal(body, want) {
			t.Errorf("brotli_comp_level %d: %d bytes, want the %d of quality %d", q, len(body), len(want), q)
		}
	}

	_, body = s.expect(t, "/window/big.js", "br", "big.js", ae, "br")
	if w := brotliWindow(t, body); w != 14 {
		t.Errorf("brotli_window 16k: window 2^%d, want 2^14", w)
	}

	s.expect(t, "/min/big.js", "", "big.js", ae, "br")

	// brotli_buffers 2 1k: the output outgrows 2k, so the headers leave
	// before the end and the body is chunked.
	resp, _ = s.expect(t, "/buffers/big.js", "br", "big.js", ae, "br")
	if resp.ContentLength != -1 {
		t.Errorf("brotli_buffers 2 1k: Content-Length %d, want none (chunked)", resp.ContentLength)
	}
}

func TestCompressGzipDirectives(t *testing.T) {
	s := startSite(t, `
http {
    gzip on;
    gzip_types application/javascript application/json;
    server {
        listen 127.0.0.1:{port};
        root {root};
        gzip_comp_level 9;
        location /off/      { alias {root}/; gzip off; }
        location /css-only/ { alias {root}/; gzip_types text/css; }
        location /l1/       { alias {root}/; gzip_comp_level 1; }
        location /min/      { alias {root}/; gzip_min_length 200k; }
        location /buffers/  { alias {root}/; gzip_buffers 2 1k; }
        location /vary/     { alias {root}/; gzip_vary on; }
        location /proxied/  { alias {root}/; gzip_proxied any; }
        location /auth/     { alias {root}/; gzip_proxied auth no_etag; }
        location /http10/   { alias {root}/; gzip_http_version 1.0; }
        location /disable/  { alias {root}/; gzip_disable "curl/" msie6; }
    }
}`)
	resp, l9 := s.expect(t, "/big.js", "gzip", "big.js", ae, "gzip")
	if resp.Header.Get("Vary") != "" {
		t.Errorf("gzip_vary off: Vary %q", resp.Header.Get("Vary"))
	}
	if resp.ContentLength != int64(len(l9)) {
		t.Errorf("Content-Length %d, want %d", resp.ContentLength, len(l9))
	}
	s.expect(t, "/data.json", "gzip", "data.json", ae, "gzip")
	s.expect(t, "/app.css", "", "app.css", ae, "gzip")
	s.expect(t, "/off/big.js", "", "big.js", ae, "gzip")
	s.expect(t, "/css-only/app.css", "gzip", "app.css", ae, "gzip")
	s.expect(t, "/css-only/big.js", "", "big.js", ae, "gzip")
	s.expect(t, "/css-only/page.html", "gzip", "page.html", ae, "gzip")

	// gzip_comp_level 9 from the server level against 1 in a location.
	_, l1 := s.expect(t, "/l1/big.js", "gzip", "big.js", ae, "gzip")
	if len(l9) >= len(l1) {
		t.Errorf("gzip_comp_level 9 gave %d bytes, level 1 %d: want fewer at 9", len(l9), len(l1))
	}

	s.expect(t, "/min/big.js", "", "big.js", ae, "gzip")
	resp, _ = s.expect(t, "/buffers/big.js", "gzip", "big.js", ae, "gzip")
	if resp.ContentLength != -1 {
		t.Errorf("gzip_buffers 2 1k: Content-Length %d, want none", resp.ContentLength)
	}

	resp, _ = s.expect(t, "/vary/big.js", "gzip", "big.js", ae, "gzip")
	if v := resp.Header.Values("Vary"); len(v) != 1 || v[0] != "Accept-Encoding" {
		t.Errorf("gzip_vary on: Vary %q", v)
	}
	// No Vary when the size rules compression out, as NGINX, whose
	// gzip_min_length check comes before it marks the response.
	resp, _ = s.expect(t, "/vary/tiny.js", "", "tiny.js", ae, "gzip")
	if v := resp.Header.Get("Vary"); v != "" {
		t.Errorf("gzip_vary on, body below gzip_min_length: Vary %q", v)
	}

	// gzip_proxied: requests with Via are proxied ones. A file has an
	// ETag, which no_etag refuses unless auth lets the request through.
	s.expect(t, "/big.js", "", "big.js", ae, "gzip", "Via", "1.1 proxy")
	s.expect(t, "/proxied/big.js", "gzip", "big.js", ae, "gzip", "Via", "1.1 proxy")
	s.expect(t, "/auth/big.js", "", "big.js", ae, "gzip", "Via", "1.1 proxy")
	s.expect(t, "/auth/big.js", "gzip", "big.js", ae, "gzip", "Via", "1.1 proxy", "Authorization", "Basic eDp5")

	// gzip_http_version: 1.1 by default, so an HTTP/1.0 request gets none.
	for _, tc := range []struct{ path, want string }{{"/big.js", ""}, {"/http10/big.js", "gzip"}} {
		if got := http10Encoding(t, s, tc.path); got != tc.want {
			t.Errorf("HTTP/1.0 GET %s: Content-Encoding %q, want %q", tc.path, got, tc.want)
		}
	}

	// gzip_disable: regular expressions, case-insensitive, and msie6.
	for _, tc := range []struct{ ua, want string }{
		{"curl/8.5.0", ""},
		{"CURL/8.5.0", ""},
		{"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.0)", ""},
		{"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)", "gzip"},
		{"Mozilla/5.0 (X11; Linux x86_64)", "gzip"},
	} {
		s.expect(t, "/disable/big.js", tc.want, "big.js", ae, "gzip", "User-Agent", tc.ua)
		s.expect(t, "/big.js", "gzip", "big.js", ae, "gzip", "User-Agent", tc.ua)
	}
}

// send opens a connection to the site, closed when the test ends, and
// writes req on it as it is.
func (s *site) send(t *testing.T, req string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	return c
}

// http10Encoding sends an HTTP/1.0 request for path and returns the
// response's Content-Encoding.
func http10Encoding(t *testing.T, s *site, path string) string {
	t.Helper()
	c := s.send(t, fmt.Sprintf("GET %s HTTP/1.0\r\nHost: localhost\r\nAccept-Encoding: gzip\r\n\r\n", path))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got := decode(t, resp.Header.Get("Content-Encoding"), body); !bytes.Equal(got, s.files[pathpkg.Base(path)]) {
		t.Fatalf("HTTP/1.0 GET %s: body does not decode to the file", path)
	}
	return resp.Header.Get("Content-Encoding")
}

func TestCompressZstdDirectives(t *testing.T) {
	s := startSite(t, `
http {
    zstd on;
    zstd_types application/javascript;
    zstd_comp_level 1;
    server {
        listen 127.0.0.1:{port};
        root {root};
        location /off/      { alias {root}/; zstd off; }
        location /json/     { alias {root}/; zstd_types application/json; }
        location /l19/      { alias {root}/; zstd_comp_level 19; }
        location /min/      { alias {root}/; zstd_min_length 200k; }
        location /buffers/  { alias {root}/; zstd_buffers 2 1k; }
    }
}`)
	resp, l1 := s.expect(t, "/big.js", "zstd", "big.js", ae, "zstd")
	if resp.ContentLength != int64(len(l1)) {
		t.Errorf("Content-Length %d, want %d", resp.ContentLength, len(l1))
	}
	s.expect(t, "/data.json", "", "data.json", ae, "zstd")
	s.expect(t, "/page.html", "zstd", "page.html", ae, "zstd")
	s.expect(t, "/off/big.js", "", "big.js", ae, "zstd")
	s.expect(t, "/json/data.json", "zstd", "data.json", ae, "zstd")
	s.expect(t, "/json/big.js", "", "big.js", ae, "zstd")
	_, l19 := s.expect(t, "/l19/big.js", "zstd", "big.js", ae, "zstd")
	if len(l19) >= len(l1) {
		t.Errorf("zstd_comp_level 19 gave %d bytes, level 1 %d: want fewer at 19", len(l19), len(l1))
	}
	s.expect(t, "/min/big.js", "", "big.js", ae, "zstd")
	resp, _ = s.expect(t, "/buffers/big.js", "zstd", "big.js", ae, "zstd")
	if resp.ContentLength != -1 {
		t.Errorf("zstd_buffers 2 1k: Content-Length %d, want none", resp.ContentLength)
	}
}

func TestCompressPreferAndSkipTypes(t *testing.T) {
	s := startSite(t, `
http {
    brotli on; brotli_types *;
    zstd on;   zstd_types *;
    gzip on;   gzip_types *;
    server {
        listen 127.0.0.1:{port};
        root {root};
        location /prefer/   { alias {root}/; compress_prefer gzip zstd; }
        location /noskip/   { alias {root}/; compress_skip_types off; }
        location /skipjson/ { alias {root}/; compress_skip_types application/json; }
        location /pngbr/    { alias {root}/; brotli_types image/png; }
    }
}`)
	all := "gzip, deflate, br, zstd"
	s.expect(t, "/big.js", "br", "big.js", ae, all)
	s.expect(t, "/big.js", "zstd", "big.js", ae, "gzip, zstd")
	s.expect(t, "/prefer/big.js", "gzip", "big.js", ae, all)
	// Codings left out of compress_prefer follow in the default order.
	s.expect(t, "/prefer/big.js", "zstd", "big.js", ae, "br, zstd")
	// The client's weights come first.
	s.expect(t, "/prefer/big.js", "br", "big.js", ae, "gzip;q=0.5, br")

	// The default skip list holds image/png, even with "*" types.
	s.expect(t, "/pic.png", "", "pic.png", ae, all)
	s.expect(t, "/noskip/pic.png", "br", "pic.png", ae, all)
	s.expect(t, "/skipjson/pic.png", "br", "pic.png", ae, all)
	s.expect(t, "/skipjson/data.json", "", "data.json", ae, all)
	s.expect(t, "/skipjson/big.js", "br", "big.js", ae, all)
	// A type named in a coding's list is compressed by that coding although
	// the skip list holds it; "*" of the other codings still yields to it.
	s.expect(t, "/pngbr/pic.png", "br", "pic.png", ae, all)
	s.expect(t, "/pngbr/pic.png", "", "pic.png", ae, "gzip, zstd")
}

// encoderLog returns the brotli encoder debug lines of the server's output
// after the first skip ones, waiting until there are want of them.
func encoderLog(t *testing.T, p *proc, skip, want int) []string {
	t.Helper()
	deadline := time.Now().Add(waitCeiling)
	for {
		var lines []string
		for _, l := range strings.Split(p.out.String(), "\n") {
			if strings.Contains(l, `msg="brotli encoder"`) {
				lines = append(lines, l)
			}
		}
		if len(lines) >= skip+want || time.Now().After(deadline) {
			if len(lines) != skip+want {
				t.Fatalf("%d brotli encoder lines, want %d:\n%s", len(lines), skip+want, p.out.String())
			}
			return lines[skip:]
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// reuses requests each path in turn and reports, per response, whether
// the server reused an idle brotli encoder (from the debug log).
func reuses(t *testing.T, s *site, seen *int, paths ...string) []bool {
	t.Helper()
	var out []bool
	for _, path := range paths {
		s.expect(t, path, "br", "small.js", ae, "br")
		line := encoderLog(t, s.p, *seen, 1)[0]
		*seen++
		switch {
		case strings.Contains(line, "reused=true"):
			out = append(out, true)
		case strings.Contains(line, "reused=false"):
			out = append(out, false)
		default:
			t.Fatalf("encoder line without reused=: %s", line)
		}
	}
	return out
}

func TestCompressEncoderReuse(t *testing.T) {
	s := startSite(t, `
error_log stderr debug;
http {
    brotli on;
    brotli_types application/javascript;
    brotli_idle_encoders 8;
    server {
        listen 127.0.0.1:{port};
        root {root};
        location /on/      { alias {root}/; brotli_comp_level 2; }
        location /off/     { alias {root}/; brotli_comp_level 3; brotli_reuse_memory off; }
        location /release/ { alias {root}/; brotli_comp_level 4; brotli_retention_policy release_all; }
        location /small/   { alias {root}/; brotli_comp_level 5; brotli_retention_policy bounded 1k; }
        location /large/   { alias {root}/; brotli_comp_level 6; brotli_retention_policy bounded 256m; }
        location /cc-a/    { alias {root}/; brotli_comp_level 7; brotli_retention_policy current_config; }
        location /cc-b/    { alias {root}/; brotli_comp_level 8; brotli_retention_policy current_config; }
        location /ag-a/    { alias {root}/; brotli_comp_level 7; }
        location /ag-b/    { alias {root}/; brotli_comp_level 8; }
    }
}`)
	seen := 0
	check := func(what string, got []bool, want ...bool) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: reused %v, want %v", what, got, want)
		}
	}
	check("brotli_reuse_memory on", reuses(t, s, &seen, "/on/small.js", "/on/small.js"), false, true)
	check("brotli_reuse_memory off", reuses(t, s, &seen, "/off/small.js", "/off/small.js"), false, false)
	check("release_all", reuses(t, s, &seen, "/release/small.js", "/release/small.js"), false, false)
	check("bounded 1k", reuses(t, s, &seen, "/small/small.js", "/small/small.js"), false, false)
	check("bounded 256m", reuses(t, s, &seen, "/large/small.js", "/large/small.js"), false, true)
	// current_config frees the idle encoder of other settings rather than
	// keep its memory; aggressive keeps both.
	check("current_config", reuses(t, s, &seen, "/cc-a/small.js", "/cc-b/small.js", "/cc-a/small.js"), false, false, false)
	check("aggressive", reuses(t, s, &seen, "/ag-a/small.js", "/ag-b/small.js", "/ag-a/small.js"), false, false, true)
}

func TestCompressIdleEncoders(t *testing.T) {
	conf := `
error_log stderr debug;
http {
    brotli on;
    brotli_types application/javascript;
    brotli_idle_encoders %d;
    server {
        listen 127.0.0.1:{port};
        root {root};
        location /a/ { alias {root}/; brotli_comp_level 2; }
        location /b/ { alias {root}/; brotli_comp_level 3; }
    }
}`
	for _, tc := range []struct {
		idle int
		want string
	}{
		{0, "[false false false]"},
		// One idle encoder: /b/'s pushes /a/'s out (least recently used).
		{1, "[false false false]"},
		{2, "[false false true]"},
	} {
		s := startSite(t, fmt.Sprintf(conf, tc.idle))
		seen := 0
		if tc.idle == 0 {
			if got := fmt.Sprint(reuses(t, s, &seen, "/a/small.js", "/a/small.js", "/a/small.js")); got != tc.want {
				t.Errorf("brotli_idle_encoders 0: reused %s, want %s", got, tc.want)
			}
			continue
		}
		if got := fmt.Sprint(reuses(t, s, &seen, "/a/small.js", "/b/small.js", "/a/small.js")); got != tc.want {
			t.Errorf("brotli_idle_encoders %d: reused %s, want %s", tc.idle, got, tc.want)
		}
	}
}

func TestCompressPrecompressedFiles(t *testing.T) {
	s := startSite(t, `
http {
    gzip_vary on;
    server {
        listen 127.0.0.1:{port};
        root {root};
        location /pre/      { alias {root}/; brotli_static on; gzip_static on; zstd_static on; }
        location /br-only/  { alias {root}/; brotli_static on; }
        location /always/   { alias {root}/; gzip_static always; }
        location /gunzip/   { alias {root}/; gzip_static always; gunzip on; }
        location /disable/  { alias {root}/; gzip_static on; gzip_disable "^curl"; }
    }
}`)
	variant := func(path, header, coding, file string) *http.Response {
		t.Helper()
		resp, body := get(t, s.base+path, ae, header)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != coding {
			t.Fatalf("GET %s, Accept-Encoding %q: %d, Content-Encoding %q, want 200 %q",
				path, header, resp.StatusCode, resp.Header.Get("Content-Encoding"), coding)
		}
		if !bytes.Equal(body, s.files[file]) {
			t.Fatalf("GET %s, Accept-Encoding %q: body is not %s", path, header, file)
		}
		if resp.ContentLength != int64(len(s.files[file])) {
			t.Errorf("GET %s: Content-Length %d, want %s's %d", path, resp.ContentLength, file, len(s.files[file]))
		}
		if et := resp.Header.Get("ETag"); et != s.etagOf(t, file) {
			t.Errorf("GET %s: ETag %s, want %s's %s", path, et, file, s.etagOf(t, file))
		}
		if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(file, "app.css") && ct != "text/css" {
			t.Errorf("GET %s: Content-Type %q, want the original's text/css", path, ct)
		}
		return resp
	}
	resp := variant("/pre/app.css", "br", "br", "app.css.br")
	if v := resp.Header.Get("Vary"); v != "Accept-Encoding" {
		t.Errorf("gzip_vary on: Vary %q", v)
	}
	fi, _ := os.Stat(filepath.Join(s.root, "app.css.br"))
	if lm := resp.Header.Get("Last-Modified"); lm != fi.ModTime().UTC().Format(http.TimeFormat) {
		t.Errorf("Last-Modified %q, want the variant's", lm)
	}
	variant("/pre/app.css", "gzip", "gzip", "app.css.gz")
	variant("/pre/app.css", "zstd", "zstd", "app.css.zst")
	variant("/pre/app.css", "gzip, deflate, br, zstd", "br", "app.css.br") // server order
	variant("/pre/app.css", "br;q=0.5, gzip", "gzip", "app.css.gz")        // client's weights
	s.expect(t, "/pre/app.css", "", "app.css")
	s.expect(t, "/pre/app.css", "", "app.css", ae, "deflate")

	// A missing .br does not stop the .gz.
	respOnly, body := get(t, s.base+"/pre/only.js", ae, "br, gzip")
	if respOnly.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(body, s.files["only.js.gz"]) {
		t.Errorf("only.js without .br: Content-Encoding %q, want the .gz", respOnly.Header.Get("Content-Encoding"))
	}
	s.expect(t, "/br-only/only.js", "", "only.js", ae, "br, gzip")
	variant("/br-only/app.css", "br", "br", "app.css.br")
	s.expect(t, "/br-only/app.css", "", "app.css", ae, "gzip") // gzip_static is off there

	// The variant goes whole, Range ignored, as from NGINX 1.22
	// (TestBrotliStaticAsNGINX).
	br := s.files["app.css.br"]
	resp, body = get(t, s.base+"/pre/app.css", ae, "br", "Range", "bytes=0-9")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "br" ||
		!bytes.Equal(body, br) || resp.Header.Get("Accept-Ranges") != "" {
		t.Errorf("range on the variant: %d %q %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Encoding"),
			resp.Header.Get("Accept-Ranges"), len(body))
	}

	// Conditionals use the variant's validators.
	brTag := s.etagOf(t, "app.css.br")
	resp, _ = get(t, s.base+"/pre/app.css", ae, "br", "If-None-Match", brTag)
	if resp.StatusCode != http.StatusNotModified || resp.Header.Get("ETag") != brTag {
		t.Errorf("If-None-Match with the variant's ETag: %d, ETag %s", resp.StatusCode, resp.Header.Get("ETag"))
	}
	resp, _ = get(t, s.base+"/pre/app.css", ae, "br", "If-None-Match", s.etagOf(t, "app.css"))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("If-None-Match with the original's ETag: %d, want 200 with the variant", resp.StatusCode)
	}

	// always: whatever the client sent; one coding served always does not
	// depend on Accept-Encoding, so no Vary.
	resp = variant("/always/app.css", "", "gzip", "app.css.gz")
	if v := resp.Header.Get("Vary"); v != "" {
		t.Errorf("gzip_static always: Vary %q", v)
	}
	variant("/always/app.css", "br", "gzip", "app.css.gz")

	// gunzip decodes the .gz for a client that does not take gzip.
	resp, body = get(t, s.base+"/gunzip/packed.txt")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, corpus(7_000)) {
		t.Errorf("gunzip on: %d, Content-Encoding %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body))
	}
	variant("/gunzip/packed.txt", "gzip", "gzip", "packed.txt.gz")
	variant("/always/packed.txt", "", "gzip", "packed.txt.gz") // no gunzip there

	// gzip_static on makes NGINX's gzip checks: gzip_disable applies.
	s.expect(t, "/disable/app.css", "", "app.css", ae, "gzip", "User-Agent", "curl/8")
	variant("/disable/app.css", "gzip", "gzip", "app.css.gz")
}

func TestCompressRatioVariables(t *testing.T) {
	s := startSite(t, `
http {
    log_format ratios '$uri br=$brotli_ratio gzip=$gzip_ratio zstd=$zstd_ratio';
    access_log {dir}/ratio.log ratios;
    brotli on; brotli_types application/javascript;
    gzip on;   gzip_types application/javascript;
    zstd on;   zstd_types application/javascript;
    server {
        listen 127.0.0.1:{port};
        root {root};
    }
}`)
	sizes := map[string]int{}
	for _, coding := range []string{"br", "gzip", "zstd"} {
		_, body := s.expect(t, "/big.js", coding, "big.js", ae, coding)
		sizes[coding] = len(body)
	}
	s.expect(t, "/app.css", "", "app.css", ae, "br")

	var lines []string
	deadline := time.Now().Add(waitCeiling)
	for len(lines) < 4 && time.Now().Before(deadline) {
		b, _ := os.ReadFile(filepath.Join(s.dir, "ratio.log"))
		lines = strings.Split(strings.TrimSpace(string(b)), "\n")
		time.Sleep(10 * time.Millisecond)
	}
	if len(lines) != 4 {
		t.Fatalf("access log: %q", lines)
	}
	for i, coding := range []string{"br", "gzip", "zstd"} {
		fields := strings.Fields(lines[i])
		for _, f := range fields[1:] {
			name, value, _ := strings.Cut(f, "=")
			if name != coding {
				if value != "-" {
					t.Errorf("%s response: %s=%s, want -", coding, name, value)
				}
				continue
			}
			got, err := strconv.ParseFloat(value, 64)
			want := float64(len(s.files["big.js"])) / float64(sizes[coding])
			if err != nil || strings.Count(value, ".") != 1 || len(value)-strings.IndexByte(value, '.') != 3 ||
				got < want-0.006 || got > want+0.006 {
				t.Errorf("$%s_ratio %q, want %.2f (two decimals)", strings.Replace(coding, "br", "brotli", 1), value, want)
			}
		}
	}
	if lines[3] != "/app.css br=- gzip=- zstd=-" {
		t.Errorf("uncompressed response logged %q", lines[3])
	}
}

func TestCompressDirectiveErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ line, want string }{
		{"brotli_comp_level 12;", `invalid value "12" in "brotli_comp_level" directive, it must be 0..11`},
		{"gzip_comp_level 0;", `invalid value "0" in "gzip_comp_level" directive, it must be 1..9`},
		{"zstd_comp_level 23;", `invalid value "23" in "zstd_comp_level" directive, it must be 1..22`},
		{"brotli_window 3k;", `invalid value "3k" in "brotli_window" directive, it must be 1k, 2k`},
		{"brotli_static maybe;", `invalid value "maybe" in "brotli_static" directive, it must be "on", "off" or "always"`},
		{"gzip on; gzip off;", `"gzip" directive is duplicate`},
		{"brotli yes;", `invalid value "yes" in "brotli" directive, it must be "on" or "off"`},
		{"brotli_retention_policy bounded;", `"bounded" needs a size`},
		{"brotli_retention_policy lazy;", `invalid value "lazy" in "brotli_retention_policy" directive`},
		{"gzip_proxied sometimes;", `invalid value "sometimes" in "gzip_proxied" directive`},
		{"gzip_http_version 2.0;", `invalid value "2.0" in "gzip_http_version" directive, it must be "1.0" or "1.1"`},
		// NGINX 1.22 with PCRE2 says exactly this.
		{"gzip_disable \"(\";", `pcre2_compile() failed: missing closing parenthesis in "("`},
		{"compress_prefer br deflate;", `invalid value "deflate" in "compress_prefer" directive, it must be "br", "zstd" or "gzip"`},
		{"compress_skip_types off image/png;", `invalid value "off" in "compress_skip_types" directive`},
		{"gzip_buffers 0 4k;", `invalid value "0" in "gzip_buffers" directive, it must be 1..65536`},
		{"server { brotli_idle_encoders 2; }", `"brotli_idle_encoders" directive is not allowed here`},
		{"brotli_idle_encoders 1025;", `invalid value "1025" in "brotli_idle_encoders" directive, it must be 0..1024`},
	} {
		path := filepath.Join(dir, "bad.conf")
		os.WriteFile(path, []byte("http {\n"+tc.line+"\n}\n"), 0o644)
		cmd := exec.Command(checkPath, "-t", "-c", path)
		out, err := cmd.CombinedOutput()
		if err == nil || cmd.ProcessState.ExitCode() != 1 {
			t.Errorf("%s: -t succeeded:\n%s", tc.line, out)
			continue
		}
		if !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), path+":2") {
			t.Errorf("%s: output %q, want %q at %s:2", tc.line, out, tc.want, path)
		}
	}
}

// testdataConf reads a configuration file kept in testdata.
func testdataConf(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func configTest(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "test is successful") {
		t.Fatalf("-t -c %s: %v\n%s", path, err, out)
	}
	return string(out)
}

// TestSeed000SampleConfiguration loads the sample configuration of the
// brotli documentation as it is, then serves with it.
func TestSeed000SampleConfiguration(t *testing.T) {
	sample := testdataConf(t, "seed000-sample.conf")
	dir := t.TempDir()
	path := filepath.Join(dir, "sample.conf")
	if err := os.WriteFile(path, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	out := configTest(t, path)
	if want := `[notice] ignoring "load_module" directive in ` + path + `:2`; !strings.Contains(out, want) {
		t.Errorf("-t output lacks %q:\n%s", want, out)
	}

	// To serve, the sample needs a server: add one inside its http block,
	// leaving its own lines as they are.
	end := strings.LastIndexByte(sample, '}')
	served := sample[:end] + "    server { listen 127.0.0.1:{port}; root {root}; }\n" + sample[end:]
	s := startSite(t, served)
	for _, f := range []struct{ name, body string }{
		{"icon.svg", `<svg xmlns="http://www.w3.org/2000/svg">` + strings.Repeat(`<rect width="1" height="1"/>`, 40) + `</svg>`},
		{"notes.txt", string(corpus(3_000))},
		{"blob.bin", string(corpus(3_000))},
	} {
		os.WriteFile(filepath.Join(s.root, f.name), []byte(f.body), 0o644)
		s.files[f.name] = []byte(f.body)
	}
	// brotli_comp_level 6, with the window that fits the body.
	_, body := s.expect(t, "/mid.js", "br", "mid.js", ae, "gzip, deflate, br")
	if want := encodeBrotli(t, s.files["mid.js"], 6, 14); !bytes.Equal(body, want) {
		t.Errorf("brotli_comp_level 6: %d bytes, want %d", len(body), len(want))
	}
	// The listed types, and text/html, which is always compressed.
	resp, _ := s.expect(t, "/data.json", "br", "data.json", ae, "br")
	if v := resp.Header.Get("Vary"); v != "" {
		t.Errorf("Vary %q: the sample leaves gzip_vary off", v)
	}
	s.expect(t, "/page.html", "br", "page.html", ae, "br")
	s.expect(t, "/icon.svg", "br", "icon.svg", ae, "br")
	s.expect(t, "/notes.txt", "br", "notes.txt", ae, "br")
	// Types it does not list.
	s.expect(t, "/pic.png", "", "pic.png", ae, "br")
	s.expect(t, "/blob.bin", "", "blob.bin", ae, "br")
	// No gzip: the sample turns only brotli on.
	s.expect(t, "/mid.js", "", "mid.js", ae, "gzip")
	// brotli_static on: app.css.br is served as it is.
	resp, body = get(t, s.base+"/app.css", ae, "br")
	if resp.Header.Get("Content-Encoding") != "br" || !bytes.Equal(body, s.files["app.css.br"]) {
		t.Errorf("brotli_static on: Content-Encoding %q, %d bytes, want app.css.br", resp.Header.Get("Content-Encoding"), len(body))
	}
}

// TestDebianNginxConfLoads checks Debian's stock nginx.conf and default
// site, with their absolute paths moved into a temporary directory.
func TestDebianNginxConfLoads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, sub := range []string{"sites-enabled", "conf.d", "modules-enabled", "log"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	site := testdataConf(t, "debian-sites-default.conf")
	if err := os.WriteFile(filepath.Join(dir, "sites-enabled", "default"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := strings.NewReplacer(
		// No mime.types beside the file: mosaic's built-in table answers.
		"include /etc/nginx/mime.types;", "include mime.types;",
		"/etc/nginx/", dir+"/",
		"/var/log/nginx/", dir+"/log/",
	).Replace(testdataConf(t, "debian-nginx.conf"))
	for _, keep := range []string{"gzip on;", "ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;"} {
		if !strings.Contains(conf, keep) {
			t.Fatalf("testdata/debian-nginx.conf lacks %q", keep)
		}
	}
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	out := configTest(t, path)
	for _, want := range []string{`ignoring "user" directive`, `ignoring "worker_connections" directive`} {
		if !strings.Contains(out, want) {
			t.Errorf("-t output lacks %q:\n%s", want, out)
		}
	}
}

// TestCompressFieldsOnTheWire reads a compressed static answer's header
// as http1 and HTTP/2 (Go's server, h2c) write it: the file server's
// Accept-Ranges, which the filter empties rather than deletes (compress
// README, "A compressed answer's fields"), sends no line at all, not an
// empty one; the ETag is the file's made weak; and the identity answer
// keeps both.
func TestCompressFieldsOnTheWire(t *testing.T) {
	h2port := freePort(t)
	s := startSite(t, fmt.Sprintf(`
http {
    server {
        listen 127.0.0.1:{port};
        listen 127.0.0.1:%d http2;
        root {root};
        brotli on;
        brotli_comp_level 1;
        brotli_types application/json;
    }
}`, h2port))
	// Each returns the header's lines, lower-cased, each after "\r\n".
	h1 := func(coding string) string {
		t.Helper()
		c := s.send(t, "GET /data.json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: "+coding+"\r\nConnection: close\r\n\r\n")
		b, err := io.ReadAll(c)
		if err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(string(b), "\r\n\r\n")
		return strings.ToLower(head) + "\r\n"
	}
	h2 := func(coding string) string {
		t.Helper()
		c := dialH2C(t, h2port)
		c.headers(t, 1, true, append(h2cGet("/data.json"), "accept-encoding", coding)...)
		lines := c.responseFields(1)
		if lines == nil {
			t.Fatalf("HTTP/2 %s: no response header", coding)
		}
		return strings.ToLower("\r\n" + strings.Join(lines, "\r\n") + "\r\n")
	}
	etag := s.etagOf(t, "data.json") // lower-case hex
	for proto, raw := range map[string]func(string) string{"HTTP/1.1": h1, "HTTP/2": h2} {
		head := raw("br")
		if !strings.Contains(head, "\r\ncontent-encoding: br\r\n") || !strings.Contains(head, "\r\netag: w/"+etag+"\r\n") ||
			strings.Contains(head, "accept-ranges") {
			t.Errorf("%s compressed answer's header:\n%s", proto, head)
		}
		head = raw("identity")
		if strings.Contains(head, "content-encoding") || !strings.Contains(head, "\r\netag: "+etag+"\r\n") ||
			!strings.Contains(head, "\r\naccept-ranges: bytes\r\n") {
			t.Errorf("%s identity answer's header:\n%s", proto, head)
		}
	}
}
