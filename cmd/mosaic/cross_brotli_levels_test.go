package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Brotli qualities 1, 5 and 6 (quality 1's probe without the last
// distance, 5's and 6's static literal context map) through the server's
// compress filter: files of known length cut into parallel segments and
// compressed whole, an ESI page stitched from fragments, and an upstream's
// body streamed in flushes, of script, multi-script UTF-8 and binary
// content, each of which `brotli -d` decodes to what was sent.
func TestBrotliLevelsThroughCompressFilter(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"a.js":  corpus(300_000),
		"u.txt": utf8Text(250_000),
		"b.bin": binaryish(200_000),
	}
	for name, data := range files {
		writeFile(t, filepath.Join(dir, "www", name), string(data))
	}
	frag := string(files["u.txt"][:50_000])
	for !utf8.ValidString(frag) { // whole runes
		frag = frag[:len(frag)-1]
	}
	writeFile(t, filepath.Join(dir, "www", "frag", "f.txt"), frag)
	writeFile(t, filepath.Join(dir, "www", "page.html"), `<html><esi:include src="/frag/f.txt"/>|`+
		string(files["a.js"][:40_000])+`|<esi:include src="/frag/f.txt"/></html>`)
	pageWant := "<html>" + frag + "|" + string(files["a.js"][:40_000]) + "|" + frag + "</html>"
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		b := files["u.txt"]
		for i := 0; i < len(b); i += 7_000 {
			w.Write(b[i:min(i+7_000, len(b))])
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(origin.Close)
	port := freePort(t)
	var locs strings.Builder
	for _, q := range []int{1, 5, 6} {
		fmt.Fprintf(&locs, `
        location /p%[1]d/ { alias %[2]s/www/; brotli_comp_level %[1]d; }
        location /s%[1]d/ { alias %[2]s/www/; brotli_comp_level %[1]d; brotli_thread_pool off; }
        location /e%[1]d/ { alias %[2]s/www/; brotli_comp_level %[1]d; esi on; }
        location /u%[1]d/ { brotli_comp_level %[1]d; proxy_pass http://%[3]s; }`, q, dir, origin.Listener.Addr())
	}
	p := startMosaic(t, dir, fmt.Sprintf(`
error_log stderr debug;
thread_pool one threads=2;
http {
    types { application/javascript js; text/plain txt; application/octet-stream bin; text/html html; }
    brotli on;
    brotli_types application/javascript text/plain application/octet-stream;
    brotli_thread_pool one;
    brotli_parallel_segment_size 64k;
    server {
        listen 127.0.0.1:%d;
        location /frag/ { root %s/www; }%s
    }
}`, port, dir, locs.String()), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	check := func(path string, want []byte) {
		t.Helper()
		resp, body := get(t, base+path, ae, "br")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "br" {
			t.Fatalf("GET %s: %d, Content-Encoding %q", path, resp.StatusCode, resp.Header.Get("Content-Encoding"))
		}
		if got := toolDecode(t, "brotli", body); !bytes.Equal(got, want) {
			t.Errorf("GET %s: brotli -d gives %d bytes, want %d (first difference at %d)", path, len(got), len(want), firstDiff(got, want))
		}
	}
	for _, q := range []int{1, 5, 6} {
		for name, data := range files {
			check(fmt.Sprintf("/p%d/%s", q, name), data)
			check(fmt.Sprintf("/s%d/%s", q, name), data)
		}
		check(fmt.Sprintf("/e%d/page.html", q), []byte(pageWant))
		check(fmt.Sprintf("/u%d/stream", q), files["u.txt"])
	}
	// At each level, the three /p files, the ESI page and the upstream's
	// stream went out in segments.
	if n := countOutput(p, `msg="parallel compression"`, 15); n != 15 {
		t.Errorf("%d parallel compression lines, want 15", n)
	}
}

// firstDiff is the index of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// utf8Text is n bytes or a few fewer of words of several scripts (Latin,
// Cyrillic, Greek, CJK), whole runes, in a pseudo-random order.
func utf8Text(n int) []byte {
	words := strings.Fields("mosaic edge сервер ответ заголовок πρωτόκολλο σύνδεση 服务器 请求 响应 압축 データ über straße naïve")
	var b bytes.Buffer
	x := uint32(88172645)
	for b.Len() < n-64 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b.WriteString(words[x%uint32(len(words))])
		b.WriteString([]string{" ", ", ", ".\n", " — "}[x>>16%4])
	}
	if !utf8.Valid(b.Bytes()) {
		panic("utf8Text: invalid UTF-8")
	}
	return b.Bytes()
}

// binaryish is n bytes of little-endian counters and noise, with runs
// repeated at short and long distances: content neither text nor random.
func binaryish(n int) []byte {
	b := make([]byte, 0, n)
	x := uint32(2654435761)
	for len(b) < n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		switch x % 4 {
		case 0, 1:
			b = append(b, byte(len(b)), byte(len(b)>>8), byte(x>>8), 0)
		case 2:
			if len(b) > 300 {
				back := int(x>>8%256) + 16
				b = append(b, b[len(b)-back:len(b)-back+int(x>>20%32)+4]...)
			}
		default:
			b = append(b, byte(x>>24), byte(x>>16))
		}
	}
	return b[:n]
}
