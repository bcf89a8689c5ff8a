package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// subOrigin answers the proxied locations of TestSubFilterMatchesNGINX:
// its bodies leave in pieces of three bytes, each flushed, so that the
// patterns straddle the writes the filter gets; /up/enc.html says its body
// is encoded although it is plain; /up/big.html is long.
func subOrigin(t *testing.T) string {
	t.Helper()
	body := "Hello World, hello <b>foo</b>; fOo and HELLO again, hell"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Etag", `"up-1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
		if r.URL.Path == "/up/enc.html" {
			w.Header().Set("Content-Encoding", "x-plain")
		}
		b, step := body, 3
		if r.URL.Path == "/up/big.html" {
			// Large, in pieces of a prime size: NGINX's proxy hands the
			// filter recycled buffers, which take its flush path.
			b, step = strings.Repeat("xxhello-fooyyHELL", 8000), 997
		}
		for len(b) > 0 {
			n := min(step, len(b))
			io.WriteString(w, b[:n])
			w.(http.Flusher).Flush()
			if step == 3 {
				time.Sleep(time.Millisecond)
			}
			b = b[n:]
		}
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// TestSubFilterMatchesNGINX serves the same files and proxied bodies
// through the same sub_filter lines from both servers and compares status,
// body and the fields the filter touches: the order in which patterns are
// tried, sub_filter_once, variables in patterns and replacements, types,
// sub_filter_last_modified, HEAD, Range, If-Modified-Since, an empty file,
// an error page, gzip over the result, SSI reading it, an include's own
// sub_filter, an upstream body that arrives three bytes at a time, and a
// cache hit asked for a range.
func TestSubFilterMatchesNGINX(t *testing.T) {
	nginxPath(t)
	origin := subOrigin(t)
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	page := "Hello World, hello <b>foo</b>; fOo and HELLO again, hell"
	for _, p := range []string{"a.html", "once/a.html", "lm/a.html", "gz/a.html", "dyn/a.html"} {
		writeFile(t, filepath.Join(www, p), page)
	}
	writeFile(t, filepath.Join(www, "a.txt"), page)
	writeFile(t, filepath.Join(www, "a.bin"), page)
	writeFile(t, filepath.Join(www, "empty.html"), "")
	writeFile(t, filepath.Join(www, "order/a.html"), "abcab xabcd abcabx ab")
	writeFile(t, filepath.Join(www, "order/tail.html"), "abcab")
	writeFile(t, filepath.Join(www, "ssi/page.html"), `<p>@@URI@@ <!--# include virtual="/inc/part.html" --> hello</p>`)
	writeFile(t, filepath.Join(www, "inc/part.html"), "part hello PART")
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range []string{"a.html", "lm/a.html", "a.bin"} {
		if err := os.Chtimes(filepath.Join(www, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`proxy_cache_path %[4]s/cache-%[5]s keys_zone=subz:1m;
		server {
			listen 127.0.0.1:%[1]d; root %[2]s;
			types { text/html html; text/plain txt; application/octet-stream bin; }
			sub_filter_types text/plain;
			location / { sub_filter hello 'HI[$uri]'; sub_filter foo F; sub_filter_once off; }
			location /once/ { sub_filter hello X; sub_filter foo F; }
			location /lm/ { sub_filter hello X; sub_filter_last_modified on; }
			location /order/ { sub_filter abcd 4; sub_filter abc 3; sub_filter ab 2; sub_filter_once off; }
			location /dyn/ { sub_filter $arg_p $arg_r; sub_filter ${arg_q}o Q; sub_filter_once off; }
			location /gz/ { sub_filter hello X; sub_filter_once off; gzip on; gzip_min_length 1; }
			location /ssi/ { ssi on; sub_filter @@URI@@ '<!--# echo var="uri" -->'; }
			location /inc/ { sub_filter part P; sub_filter_once off; }
			location /ret/ { default_type text/html; return 200 "hello, Hello $uri"; sub_filter hello X; sub_filter_once off; }
			location /missing/ { sub_filter 'not found' NF; sub_filter_once off; }
			location /up/ { proxy_pass http://%[3]s; sub_filter hello X; sub_filter foo F; sub_filter_once off; }
			location /cached/ { proxy_pass http://%[3]s/up/; proxy_cache subz; proxy_cache_valid 200 1m; sub_filter hello X; }
		}`, port, www, origin, dir, who)
	})
	ims := old.Format(http.TimeFormat)
	for _, c := range []struct {
		method, path string
		hdr          map[string]string
	}{
		{"GET", "/a.html", nil},
		{"HEAD", "/a.html", nil},
		{"GET", "/a.html", map[string]string{"Range": "bytes=0-3"}},
		{"GET", "/a.html", map[string]string{"If-Modified-Since": ims}},
		{"GET", "/a.txt", nil},
		{"GET", "/a.bin", map[string]string{"Range": "bytes=0-3"}},
		{"GET", "/empty.html", nil},
		{"GET", "/once/a.html", nil},
		{"GET", "/lm/a.html", nil},
		{"GET", "/order/a.html", nil},
		{"GET", "/order/tail.html", nil},
		{"GET", "/dyn/a.html?p=HELLO&r=$uri&q=f", nil},
		{"GET", "/dyn/a.html?p=&q=", nil},
		{"GET", "/gz/a.html", map[string]string{"Accept-Encoding": "gzip"}},
		{"GET", "/ssi/page.html", nil},
		{"GET", "/missing/x.html", nil},
		{"GET", "/ret/a", nil},
		{"HEAD", "/ret/a", nil},
		{"GET", "/up/a.html", nil},
		{"GET", "/up/enc.html", nil},
		{"GET", "/up/big.html", nil},
		{"HEAD", "/up/a.html", nil},
		// Filled, then a hit asked for a range: the whole rewritten body.
		{"GET", "/cached/a.html", nil},
		{"GET", "/cached/a.html", map[string]string{"Range": "bytes=0-3"}},
	} {
		name := c.method + " " + c.path + fmt.Sprint(c.hdr)
		mr, mb := do(t, c.method, fmt.Sprintf("http://127.0.0.1:%d%s", mport, c.path), c.hdr)
		nr, nb := do(t, c.method, fmt.Sprintf("http://127.0.0.1:%d%s", nport, c.path), c.hdr)
		mb, nb = gunzipped(t, mr, mb), gunzipped(t, nr, nb)
		mb = strings.ReplaceAll(mb, "mosaic", "nginx/1.22.1")
		if mr.StatusCode != nr.StatusCode || mb != nb {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", name, mr.StatusCode, mb, nr.StatusCode, nb)
		}
		// A GET's Content-Length may differ by framing alone (mosaic's
		// compression counts a short body it compressed whole, NGINX's
		// gzip chunks it); a HEAD's says whether the filter removed it.
		if c.method == "HEAD" && (mr.Header.Get("Content-Length") == "") != (nr.Header.Get("Content-Length") == "") {
			t.Errorf("%s: Content-Length: mosaic %q, nginx %q", name, mr.Header.Get("Content-Length"), nr.Header.Get("Content-Length"))
		}
		for _, h := range []string{"Last-Modified", "Etag", "Accept-Ranges", "Content-Encoding", "Content-Range"} {
			if h == "Accept-Ranges" && strings.HasPrefix(c.path, "/cached/") {
				continue // a known difference: sub/README.md
			}
			if m, n := mr.Header.Get(h), nr.Header.Get(h); m != n {
				t.Errorf("%s: %s: mosaic %q, nginx %q", name, h, m, n)
			}
		}
	}
}

// gunzipped returns body decoded when the response is gzip-encoded: the
// two servers' compressors need not make the same bytes.
func gunzipped(t *testing.T, r *http.Response, body string) string {
	t.Helper()
	if r.Header.Get("Content-Encoding") != "gzip" {
		return body
	}
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSubFilterConfigErrorsAsNGINX checks the refusals of the sub_filter
// directives, with file:line, against NGINX's wording.
func TestSubFilterConfigErrorsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var many bytes.Buffer
	for i := range 256 {
		fmt.Fprintf(&many, "sub_filter p%d r;\n", i)
	}
	for _, c := range []struct{ conf, want string }{
		{`http { sub_filter "" x; }`, `empty search pattern`},
		{`http { sub_filter a; }`, `invalid number of arguments in "sub_filter" directive`},
		{`http { server { location / { sub_filter_once maybe; } } }`, `invalid value "maybe" in "sub_filter_once" directive`},
		{`http { sub_filter_last_modified on; sub_filter_last_modified off; }`, `"sub_filter_last_modified" directive is duplicate`},
		{`http { server { location / { if ($uri) { sub_filter a b; } } } }`, `"sub_filter" directive is not allowed here`},
		{`http { sub_filter $nope x; }`, `unknown "nope" variable`},
		{"http {\n" + many.String() + "}", `number of search patterns exceeds 255`},
	} {
		path := filepath.Join(dir, "bad.conf")
		writeFile(t, path, c.conf)
		b, _ := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		out := string(b)
		if !strings.Contains(out, c.want) || !strings.Contains(out, "bad.conf:") {
			t.Errorf("%s:\n got %s\nwant %s", c.conf, out, c.want)
		}
	}
}
