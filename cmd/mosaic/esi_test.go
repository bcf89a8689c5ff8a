package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ESI through the real binary: pages proxied from an origin on loopback,
// fragments served by internal locations or proxied to the same origin.

// esiOrigin is an origin server that counts the requests for each path.
type esiOrigin struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func startESIOrigin(t *testing.T, h http.HandlerFunc) *esiOrigin {
	t.Helper()
	o := &esiOrigin{hits: map[string]int{}}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.hits[r.URL.Path]++
		o.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *esiOrigin) addr() string { return o.srv.Listener.Addr().String() }

// counts returns a copy of the request counts, for messages.
func (o *esiOrigin) counts() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.hits)
}

func (o *esiOrigin) count(path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hits[path]
}

// esiSite starts mosaic on port with conf, in which {origin} stands for the
// origin's address and {dir} for the directory that holds the files given
// (path -> content), and returns the base URL.
func esiSite(t *testing.T, port int, o *esiOrigin, conf string, files ...string) (string, *proc) {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i+1 < len(files); i += 2 {
		writeFile(t, filepath.Join(dir, files[i]), files[i+1])
	}
	conf = strings.NewReplacer("{origin}", o.addr(), "{dir}", dir).Replace(conf)
	p := startMosaic(t, dir, conf, port)
	return fmt.Sprintf("http://127.0.0.1:%d", port), p
}

// esiClient sends exactly the headers given: no transparent gzip.
var esiClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

func esiDo(t *testing.T, method, url string, hdr http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vv := range hdr {
		req.Header[k] = vv
	}
	resp, err := esiClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp, string(b)
}

func gzipBytes(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gunzipString(t *testing.T, s string) string {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		t.Fatalf("not gzip: %v (%q)", err, s)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return string(b)
}

// html answers with an HTML page.
func html(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, body)
}

func TestESIIncludesThroughBinary(t *testing.T) {
	port := freePort(t)
	self := fmt.Sprintf("127.0.0.1:%d", port)
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page/basic", "/off/basic":
			html(w, `<p>A<esi:include src="/int/one"/>B<esi:include src="/up/two?x=1&amp;y=2"/>C`+
				`<esi:include src="rel"/>D<esi:remove><esi:include src="/int/removed"/></esi:remove>E<!--esi <b>F</b>-->G</p>`)
		case "/page/abs":
			html(w, `[<esi:include src="http://`+self+`/int/abs"/>|<esi:include src="//`+self+`/up/sch"/>|`+
				`<esi:include src="http://elsewhere.test/int/x"/>]`)
		case "/page/data.json", "/json/data.json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"a":"<esi:include src="/int/j"/>"}`)
		default:
			fmt.Fprintf(w, "UP %s", r.URL.RequestURI())
		}
	})
	base, p := esiSite(t, port, o, `http {
		esi on;
		server { listen 127.0.0.1:{port};
			location /page/ { proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
			location /int/ { internal; return 200 "INT $uri"; }
			location /off/ { esi off; proxy_pass http://{origin}; }
			location /json/ { esi_types application/json; proxy_pass http://{origin}; }
			location /static/ { root {dir}/www; }
			location /files/ { internal; root {dir}/www; }
		}
	}`, "www/static/page.html", `<h1><esi:include src="/files/f.html"/>|<esi:include src="/int/s"/>|<esi:include src="/up/s"/></h1>`,
		"www/files/f.html", "static fragment")

	_, body := esiDo(t, "GET", base+"/page/basic", nil)
	if want := `<p>AINT /int/oneBUP /up/two?x=1&y=2CUP /page/relDE <b>F</b>G</p>`; body != want {
		t.Errorf("internal, proxied and relative includes:\n got %q\nwant %q", body, want)
	}
	if o.count("/int/removed") != 0 || o.count("/up/two") != 1 {
		t.Errorf("origin hits: %v", o.counts())
	}
	// A page from a file, fragments from an internal file location, an
	// internal return and a proxied location.
	_, body = esiDo(t, "GET", base+"/static/page.html", nil)
	if want := `<h1>static fragment|INT /int/s|UP /up/s</h1>`; body != want {
		t.Errorf("static page:\n got %q\nwant %q", body, want)
	}
	if r, _ := esiDo(t, "GET", base+"/files/f.html", nil); r.StatusCode != 404 {
		t.Errorf("internal file location answered a client: %d", r.StatusCode)
	}
	// Same-authority absolute URLs are local subrequests; another
	// authority is refused with the marker and an error-log line.
	_, body = esiDo(t, "GET", base+"/page/abs", nil)
	if want := `[INT /int/abs|UP /up/sch|<!-- ESI include error -->]`; body != want {
		t.Errorf("absolute URLs:\n got %q\nwant %q", body, want)
	}
	waitOutput(t, p, `refused: its authority is not this request's host`)

	// An internal location serves subrequests only.
	if r, _ := esiDo(t, "GET", base+"/int/one", nil); r.StatusCode != 404 {
		t.Errorf("internal location answered a client: %d", r.StatusCode)
	}
	// esi off in a location of an "esi on" http block: markup untouched.
	_, body = esiDo(t, "GET", base+"/off/basic", nil)
	if !strings.Contains(body, `<esi:include src="/int/one"/>`) || strings.Contains(body, "INT") {
		t.Errorf("esi off: %q", body)
	}
	// esi_types: JSON is processed only where it is listed.
	if _, body = esiDo(t, "GET", base+"/page/data.json", nil); !strings.Contains(body, "<esi:include") {
		t.Errorf("json processed without esi_types: %q", body)
	}
	if _, body = esiDo(t, "GET", base+"/json/data.json", nil); body != `{"a":"INT /int/j"}` {
		t.Errorf("esi_types application/json: %q", body)
	}
}

func TestESIAltOnerrorAndErrors(t *testing.T) {
	page := `[<esi:include src="/up/missing" alt="/int/alt"/>|<esi:include src="/up/broken" onerror="continue"/>|` +
		`<esi:include src="/up/missing"/>|<esi:include src="http://other.test/x"/>|` +
		`<esi:include src="http://other.test/x" onerror="continue"/>|<esi:include src="/up/ok"/>]`
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/page"):
			html(w, page)
		case r.URL.Path == "/up/missing":
			w.WriteHeader(404)
			io.WriteString(w, "no such fragment")
		case r.URL.Path == "/up/broken":
			w.WriteHeader(500)
			io.WriteString(w, "broken fragment")
		default:
			io.WriteString(w, "ok")
		}
	})
	port := freePort(t)
	base, p := esiSite(t, port, o, `http {
		server { listen 127.0.0.1:{port};
			esi on;
			location /loud/ { proxy_pass http://{origin}; }
			location /silent/ { esi_silent_errors on; proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
			location /int/ { internal; return 200 "ALT"; }
		}
	}`)
	_, body := esiDo(t, "GET", base+"/loud/page", nil)
	// alt replaces the 404; onerror="continue" leaves nothing for the 500;
	// a 404 without alt is inlined; a refused fetch leaves the marker.
	if want := `[ALT||no such fragment|<!-- ESI include error -->||ok]`; body != want {
		t.Errorf("loud:\n got %q\nwant %q", body, want)
	}
	if o.count("/up/broken") != 1 || o.count("/up/missing") != 2 {
		t.Errorf("origin hits: %v", o.counts())
	}
	_, body = esiDo(t, "GET", base+"/silent/page", nil)
	if want := `[ALT||no such fragment|||ok]`; body != want {
		t.Errorf("esi_silent_errors on:\n got %q\nwant %q", body, want)
	}
	// Silenced, the failure is still in the error log.
	waitOutput(t, p, `msg="esi: include failed" uri=/silent/page src=http://other.test/x`)
}

func TestESINestedAndRecursionBound(t *testing.T) {
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page/outer", "/raw/outer":
			html(w, `O[<esi:include src="/up/middle"/>|<esi:include src="/raw/middle"/>]`)
		case "/up/middle", "/raw/middle":
			html(w, `M(<esi:include src="/int/leaf"/>)`)
		case "/page/self", "/shallow/self":
			html(w, `S<esi:include src="`+r.URL.Path+`"/>`)
		}
	})
	port := freePort(t)
	base, p := esiSite(t, port, o, `http {
		esi on;
		server { listen 127.0.0.1:{port};
			location /page/ { proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
			location /raw/ { esi off; proxy_pass http://{origin}; }
			location /int/ { internal; return 200 "L"; }
			location /shallow/ { esi_max_depth 2; proxy_pass http://{origin}; }
		}
	}`)
	// The fragment location's own "esi" decides about the fragment's ESI.
	_, body := esiDo(t, "GET", base+"/page/outer", nil)
	if want := `O[M(L)|M(<esi:include src="/int/leaf"/>)]`; body != want {
		t.Errorf("nested:\n got %q\nwant %q", body, want)
	}
	// A page that includes itself stops at the depth bound: the page, five
	// nested copies, then the marker where a sixth would be.
	_, body = esiDo(t, "GET", base+"/page/self", nil)
	if want := strings.Repeat("S", 6) + "<!-- ESI include error -->"; body != want {
		t.Errorf("self include:\n got %q\nwant %q", body, want)
	}
	if n := o.count("/page/self"); n != 6 {
		t.Errorf("self include: %d origin requests, want 6", n)
	}
	waitOutput(t, p, "ESI nesting depth limit 5 reached")
	_, body = esiDo(t, "GET", base+"/shallow/self", nil)
	if want := "SSS<!-- ESI include error -->"; body != want {
		t.Errorf("esi_max_depth 2:\n got %q\nwant %q", body, want)
	}
	if n := o.count("/shallow/self"); n != 3 {
		t.Errorf("esi_max_depth 2: %d origin requests, want 3", n)
	}
}

func TestESIMaxIncludes(t *testing.T) {
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/page") {
			var b strings.Builder
			for i := range 5 {
				fmt.Fprintf(&b, `<esi:include src="/up/%d"/>`, i)
			}
			html(w, b.String())
			return
		}
		io.WriteString(w, strings.TrimPrefix(r.URL.Path, "/up/"))
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		esi on;
		server { listen 127.0.0.1:{port};
			location /all/ { proxy_pass http://{origin}; }
			location /few/ { esi_max_includes 3; esi_silent_errors on; proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
		}
	}`)
	if _, body := esiDo(t, "GET", base+"/all/page", nil); body != "01234" {
		t.Errorf("default limit: %q", body)
	}
	// Fragments are fetched concurrently, so which three of the five get
	// through is not fixed; three do, and two never reach the origin.
	_, body := esiDo(t, "GET", base+"/few/page", nil)
	if len(body) != 3 {
		t.Errorf("esi_max_includes 3: %q", body)
	}
	total := 0
	for i := range 5 {
		total += o.count(fmt.Sprintf("/up/%d", i))
	}
	if total != 5+3 {
		t.Errorf("fragment requests %d, want 8 (5 + 3)", total)
	}
}

// esi_max_fragment_size: a fragment's body may be that long; a longer one
// fails the include, with a log line that names the bound.
func TestESIMaxFragmentSize(t *testing.T) {
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/page") {
			html(w, `[<esi:include src="/up/1k"/>|<esi:include src="/up/big"/>]`)
			return
		}
		n := 1024
		if r.URL.Path == "/up/big" {
			n = 4 << 20
		}
		w.Write(bytes.Repeat([]byte("z"), n))
	})
	port := freePort(t)
	base, p := esiSite(t, port, o, `http {
		esi on;
		server { listen 127.0.0.1:{port};
			location /default/ { proxy_pass http://{origin}; }
			location /small/ { esi_max_fragment_size 1k; proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
		}
	}`)
	k := strings.Repeat("z", 1024)
	// The default, 1m, refuses the 4 MiB fragment.
	if _, body := esiDo(t, "GET", base+"/default/page", nil); body != "["+k+"|<!-- ESI include error -->]" {
		t.Errorf("default bound: %.80q... (%d bytes)", body, len(body))
	}
	waitOutput(t, p, "fragment longer than 1048576 bytes (esi_max_fragment_size)")
	if _, body := esiDo(t, "GET", base+"/small/page", nil); body != "["+k+"|<!-- ESI include error -->]" {
		t.Errorf("esi_max_fragment_size 1k: %.80q... (%d bytes)", body, len(body))
	}
	waitOutput(t, p, "fragment longer than 1024 bytes (esi_max_fragment_size)")
}

// esi_max_held_size: page text behind a fragment not yet in is held up
// to the bound, and then the page is read no further until the fragment
// is in. Measured by how far the origin got writing a 48 MiB page (the
// sockets between hold a few MiB more): with 32m it writes more than 32
// MiB, with the default 1m far less, and both pages come out whole.
func TestESIMaxHeldSize(t *testing.T) {
	const total, chunk = 48 << 20, 64 << 10
	type page struct {
		written  atomic.Int64
		release  chan struct{}
		min, max int64
	}
	pages := map[string]*page{
		"/default/page": {release: make(chan struct{}), max: 24 << 20},
		"/large/page":   {release: make(chan struct{}), min: 32 << 20, max: total},
	}
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/up/slow" {
			<-pages[r.URL.RawQuery].release
			w.Write([]byte("S"))
			return
		}
		pg := pages[r.URL.Path]
		html(w, `[<esi:include src="/up/slow?`+r.URL.Path+`"/>]`)
		b := bytes.Repeat([]byte("t"), chunk)
		for range total / chunk {
			if _, err := w.Write(b); err != nil {
				return
			}
			pg.written.Add(chunk)
		}
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		esi on; proxy_buffering off;
		server { listen 127.0.0.1:{port};
			location /default/ { proxy_pass http://{origin}; }
			location /large/ { esi_max_held_size 32m; proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
		}
	}`)
	for path, pg := range pages {
		done := make(chan string, 1)
		go func() {
			resp, err := esiClient.Get(base + path)
			if err != nil {
				done <- err.Error()
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			done <- string(body)
		}()
		// Settled: no progress over half a second (a busy machine may
		// pause the origin for less).
		last, still := int64(-1), 0
		for still < 5 {
			if n := pg.written.Load(); n != last || n == 0 {
				last, still = n, 0
			} else {
				still++
			}
			time.Sleep(100 * time.Millisecond)
		}
		if last < pg.min || last > pg.max {
			t.Errorf("%s: the origin wrote %d bytes while a fragment was held back, want %d to %d", path, last, pg.min, pg.max)
		}
		close(pg.release)
		if body := <-done; body != "[S]"+strings.Repeat("t", total) {
			t.Errorf("%s: page of %d bytes", path, len(body))
		}
	}
}

func TestESIFragmentTimeout(t *testing.T) {
	// The slow fragment's origin holds it this long unless cancelled: a
	// page that waited for the fragment comes no sooner, however fast
	// the machine, and one that did not comes before, however slow.
	const hold = 10 * time.Second
	cancelled := make(chan struct{}, 1)
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/page"):
			html(w, `[<esi:include src="/up/slow"/>|<esi:include src="/up/fast"/>]`)
		case r.URL.Path == "/up/slow":
			select {
			case <-time.After(hold):
			case <-r.Context().Done():
				cancelled <- struct{}{}
			}
			io.WriteString(w, "slow")
		default:
			io.WriteString(w, "fast")
		}
	})
	port := freePort(t)
	base, p := esiSite(t, port, o, `http {
		esi on;
		server { listen 127.0.0.1:{port};
			location /page { esi_fragment_timeout 300ms; proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
		}
	}`)
	start := time.Now()
	_, body := esiDo(t, "GET", base+"/page", nil)
	if took := time.Since(start); took >= hold {
		t.Errorf("page took %v with a 300ms fragment timeout: it waited for the fragment", took)
	}
	if want := `[<!-- ESI include error -->|fast]`; body != want {
		t.Errorf("timeout:\n got %q\nwant %q", body, want)
	}
	waitOutput(t, p, "deadline exceeded")
	// The timeout cancels the subrequest, and with it the proxied request.
	select {
	case <-cancelled:
	case <-time.After(2 * time.Second):
		t.Error("the origin's request for the fragment was not cancelled")
	}
}

// TestESIFragmentTimeoutMidBody: a fragment whose body stalls after its
// first bytes fails at the timeout, like one whose header never comes:
// the bytes that came are not spliced as if they were the fragment.
func TestESIFragmentTimeoutMidBody(t *testing.T) {
	const hold = 10 * time.Second // as in TestESIFragmentTimeout
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			html(w, `[<esi:include src="/up/stall"/>|<esi:include src="/up/fast"/>]`)
		case "/up/stall":
			io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
			select {
			case <-time.After(hold):
			case <-r.Context().Done():
			}
			io.WriteString(w, "rest")
		default:
			io.WriteString(w, "fast")
		}
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		esi on;
		server { listen 127.0.0.1:{port};
			location /page { esi_fragment_timeout 300ms; proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; proxy_buffering off; }
		}
	}`)
	start := time.Now()
	_, body := esiDo(t, "GET", base+"/page", nil)
	if took := time.Since(start); took >= hold {
		t.Errorf("page took %v with a 300ms fragment timeout: it waited for the fragment", took)
	}
	if want := `[<!-- ESI include error -->|fast]`; body != want {
		t.Errorf("got %q, want %q", body, want)
	}
}

func TestESIHeaderRules(t *testing.T) {
	page := `<esi:include src="/up/frag"/> and more text`
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.URL.Path == "/up/frag" {
			h.Set("Set-Cookie", "frag=1")
			h.Set("X-Frag", "yes")
			io.WriteString(w, "F")
			return
		}
		h.Set("Content-Type", "text/html")
		h.Set("Content-Length", strconv.Itoa(len(page)))
		h.Set("ETag", `"v1"`)
		h.Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
		h.Set("Accept-Ranges", "bytes")
		h.Set("Surrogate-Control", `content="ESI/1.0"`)
		h.Set("Set-Cookie", "page=1")
		h.Set("Cache-Control", "max-age=60")
		io.WriteString(w, page)
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		server { listen 127.0.0.1:{port};
			esi on;
			location /page { proxy_pass http://{origin}; }
			location /plain { esi off; proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
		}
	}`)
	r, body := esiDo(t, "GET", base+"/page", http.Header{"Range": {"bytes=0-3"}, "If-None-Match": {`"v1"`}})
	if r.StatusCode != 200 || body != "F and more text" {
		t.Fatalf("page: %d %q", r.StatusCode, body)
	}
	for _, h := range []string{"Content-Length", "ETag", "Last-Modified", "Accept-Ranges", "Surrogate-Control", "X-Frag"} {
		if v := r.Header.Get(h); v != "" {
			t.Errorf("processed page keeps %s: %q", h, v)
		}
	}
	if r.ContentLength != -1 || len(r.TransferEncoding) == 0 {
		t.Errorf("processed page is not chunked: length %d, %v", r.ContentLength, r.TransferEncoding)
	}
	if got := r.Header.Values("Set-Cookie"); len(got) != 1 || got[0] != "page=1" {
		t.Errorf("Set-Cookie of the page: %q (a fragment's must not be merged)", got)
	}
	if r.Header.Get("Cache-Control") != "max-age=60" {
		t.Errorf("other headers of the page lost: %v", r.Header)
	}
	// The same response unprocessed keeps them all.
	r, _ = esiDo(t, "GET", base+"/plain", nil)
	for _, h := range []string{"Content-Length", "ETag", "Last-Modified", "Accept-Ranges", "Surrogate-Control"} {
		if r.Header.Get(h) == "" {
			t.Errorf("esi off drops %s", h)
		}
	}
}

// The compression filter runs outside ESI: pages and fragments are inflated
// by ESI, the assembled page is compressed once by gzip.
func TestESIGzipComposition(t *testing.T) {
	page := `<html>` + strings.Repeat("shell text ", 200) + `[<esi:include src="/up/frag"/>|<esi:include src="/up/gzfrag"/>]</html>`
	want := strings.Replace(page, `[<esi:include src="/up/frag"/>|<esi:include src="/up/gzfrag"/>]`, "[plain fragment|gzipped fragment]", 1)
	gzPage := gzipBytes(t, page)
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		switch r.URL.Path {
		case "/up/frag":
			io.WriteString(w, "plain fragment")
		case "/up/gzfrag":
			// Gzipped though the fragment request did not ask for it.
			h.Set("Content-Encoding", "gzip")
			w.Write(gzipBytes(t, "gzipped fragment"))
		case "/gz/page", "/gunzip/page":
			h.Set("Content-Type", "text/html")
			h.Set("Content-Encoding", "gzip")
			h.Set("Vary", "Accept-Encoding")
			w.Write(gzPage)
		case "/br/page":
			h.Set("Content-Type", "text/html")
			h.Set("Content-Encoding", "br")
			io.WriteString(w, page) // not really brotli: it must pass untouched
		default:
			html(w, page)
		}
	})
	port := freePort(t)
	base, p := esiSite(t, port, o, `http {
		error_log stderr info;
		esi on;
		gzip on;
		gzip_comp_level 6;
		server { listen 127.0.0.1:{port};
			location /plain/ { proxy_pass http://{origin}; }
			location /gz/ { proxy_pass http://{origin}; }
			location /gunzip/ { gunzip on; proxy_pass http://{origin}; }
			location /br/ { proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
		}
	}`)
	gz := http.Header{"Accept-Encoding": {"gzip"}}
	identity := http.Header{"Accept-Encoding": {"identity"}}
	for _, path := range []string{"/plain/page", "/gz/page", "/gunzip/page"} {
		r, body := esiDo(t, "GET", base+path, gz)
		if r.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s, client takes gzip: Content-Encoding %q", path, r.Header.Get("Content-Encoding"))
		} else if got := gunzipString(t, body); got != want {
			t.Errorf("%s, client takes gzip: assembled page\n got %q\nwant %q", path, got, want)
		}
		r, body = esiDo(t, "GET", base+path, identity)
		if ce := r.Header.Get("Content-Encoding"); ce != "" || body != want {
			t.Errorf("%s, client without gzip: Content-Encoding %q, body\n got %q\nwant %q", path, ce, body, want)
		}
	}
	// Another encoding cannot be processed: it goes out as it came.
	r, body := esiDo(t, "GET", base+"/br/page", http.Header{"Accept-Encoding": {"br, gzip"}})
	if r.Header.Get("Content-Encoding") != "br" || body != page {
		t.Errorf("br page: Content-Encoding %q, body changed: %v", r.Header.Get("Content-Encoding"), body != page)
	}
	waitOutput(t, p, "passed through unprocessed")
}

// TestESIParallelFragments: a page's fragments are fetched at once. Each
// fragment's origin request waits until all eight are in, which only
// fetches in parallel let happen; fetched one after another, the first
// would wait alone. (A bound on the page's time, 400 ms for eight
// fragments of 200 ms, was a bet on the machine's load.)
func TestESIParallelFragments(t *testing.T) {
	const fragments = 8
	var arrived atomic.Int32
	all := make(chan struct{})
	var alone atomic.Int32 // fragment requests that gave up waiting
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/page" {
			var b strings.Builder
			for i := range fragments {
				fmt.Fprintf(&b, `<esi:include src="/up/%d"/>`, i)
			}
			html(w, b.String())
			return
		}
		if arrived.Add(1) == fragments {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(2 * time.Second):
			alone.Add(1)
		}
		io.WriteString(w, strings.TrimPrefix(r.URL.Path, "/up/"))
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		server { listen 127.0.0.1:{port};
			esi on;
			location /page { proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
		}
	}`)
	_, body := esiDo(t, "GET", base+"/page", nil)
	if body != "01234567" {
		t.Fatalf("body %q", body)
	}
	if n := alone.Load(); n > 0 {
		t.Errorf("%d of %d fragment requests waited 2 s for the others: not fetched in parallel", n, fragments)
	}
}

func TestESIHeadIssuesNoFragments(t *testing.T) {
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/page" {
			html(w, `a<esi:include src="/up/1"/>b<esi:include src="/up/2"/>`)
			return
		}
		io.WriteString(w, "x")
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		server { listen 127.0.0.1:{port};
			esi on;
			location /page { proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
		}
	}`)
	r, _ := esiDo(t, "HEAD", base+"/page", nil)
	if r.StatusCode != 200 || r.Header.Get("Content-Length") != "" {
		t.Errorf("HEAD: %d %v", r.StatusCode, r.Header)
	}
	if o.count("/page") != 1 || o.count("/up/1")+o.count("/up/2") != 0 {
		t.Errorf("HEAD: origin hits %v, want the page only", o.counts())
	}
	if _, body := esiDo(t, "GET", base+"/page", nil); body != "axbx" || o.count("/up/1") != 1 {
		t.Errorf("GET after HEAD: %q %v", body, o.counts())
	}
}

func TestESIFragmentRequestShaping(t *testing.T) {
	seen := make(chan http.Header, 1)
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/page" {
			html(w, `<esi:include src="/up/echo"/>`)
			return
		}
		seen <- r.Header.Clone()
		fmt.Fprintf(w, "%s %s", r.Method, r.URL.Path)
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		server { listen 127.0.0.1:{port};
			esi on;
			location /page { proxy_pass http://{origin}; }
			location /up/ { proxy_pass http://{origin}; }
		}
	}`)
	r, body := esiDo(t, "GET", base+"/page", http.Header{
		"Range":             {"bytes=0-1"},
		"If-None-Match":     {`"x"`},
		"If-Modified-Since": {"Mon, 02 Jan 2006 15:04:05 GMT"},
		"Cookie":            {"a=1", "b=2"},
		"Accept-Encoding":   {"identity"},
		"X-Client":          {"kept"},
	})
	if r.StatusCode != 200 || body != "GET /up/echo" {
		t.Fatalf("page: %d %q", r.StatusCode, body)
	}
	h := <-seen
	for _, name := range []string{"Range", "If-None-Match", "If-Modified-Since", "Accept-Encoding"} {
		if v := h.Get(name); v != "" {
			t.Errorf("fragment request carries %s: %q", name, v)
		}
	}
	if got := h.Values("Cookie"); len(got) != 1 || got[0] != "a=1; b=2" {
		t.Errorf("fragment cookies %q, want one merged header", got)
	}
	if h.Get("X-Client") != "kept" {
		t.Errorf("client header not carried to the fragment: %v", h)
	}
}

// maxChunk requests path over a raw connection and returns the size of
// the largest chunk of its chunked body.
func maxChunk(t *testing.T, port int, path string) (largest, total int) {
	t.Helper()
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", path)
	br := bufio.NewReader(c)
	chunked := false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.EqualFold(strings.TrimSpace(line), "Transfer-Encoding: chunked") {
			chunked = true
		}
		if line == "\r\n" {
			break
		}
	}
	if !chunked {
		t.Fatalf("%s: not chunked", path)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(line), 16, 32)
		if err != nil {
			t.Fatalf("chunk size %q", line)
		}
		if n == 0 {
			return largest, total
		}
		largest, total = max(largest, int(n)), total+int(n)
		if _, err := io.CopyN(io.Discard, br, n+2); err != nil {
			t.Fatal(err)
		}
	}
}

// esi_buffer_size is the size of the buffers a page is read into: a static
// page goes out in writes of that size (net/http sends a write of 2 KB or
// more as one chunk).
func TestESIBufferSize(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("0123456789abcdef", 8<<10) // 128 KB, no markup
	writeFile(t, filepath.Join(dir, "www/small/page.html"), text)
	writeFile(t, filepath.Join(dir, "www/large/page.html"), text)
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
		esi on;
		root %s/www;
		server { listen 127.0.0.1:{port};
			location /small/ { esi_buffer_size 4k; }
			location /large/ { esi_buffer_size 32k; }
		}
	}`, dir), port)
	// The server gathers small writes into its output buffer, so the
	// client sees the 4 KB writes (esi.TestBufferSizeSetsWrites) only as
	// chunks smaller than those of 32 KB writes, each sent as it comes.
	small, total := maxChunk(t, port, "/small/page.html")
	if small >= 32<<10 || total != len(text) {
		t.Errorf("esi_buffer_size 4k: largest chunk %d of %d bytes", small, total)
	}
	large, total := maxChunk(t, port, "/large/page.html")
	if large != 32<<10 || total != len(text) {
		t.Errorf("esi_buffer_size 32k: largest chunk %d of %d bytes", large, total)
	}
}

func TestESIConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct{ conf, want string }{
		{`esi maybe;`, `invalid value "maybe" in "esi" directive, it must be "on" or "off" in %s:1`},
		{`esi on; esi off;`, `"esi" directive is duplicate in %s:1`},
		{`esi_max_depth 11;`, `invalid value "11" in "esi_max_depth" directive, it must be 1..10 in %s:1`},
		{`esi_max_includes 0;`, `invalid value "0" in "esi_max_includes" directive, it must be 1..1048576 in %s:1`},
		{`esi_fragment_timeout soon;`, `invalid value "soon" in "esi_fragment_timeout" directive in %s:1`},
		{`esi_buffer_size 0;`, `invalid value "0" in "esi_buffer_size" directive, it must be 1..64m in %s:1`},
		{`esi_max_fragment_size 2g;`, `invalid value "2g" in "esi_max_fragment_size" directive, it must be 1..1g in %s:1`},
		{`esi_max_held_size 0;`, `invalid value "0" in "esi_max_held_size" directive, it must be 1..1g in %s:1`},
		{`esi_types html;`, `invalid value "html" in "esi_types" directive, it must be a media type or "*" in %s:1`},
		{`esi_silent_errors yes;`, `invalid value "yes" in "esi_silent_errors" directive, it must be "on" or "off" in %s:1`},
	}
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("bad%d.conf", i))
		writeFile(t, path, "http { "+c.conf+" server { listen 127.0.0.1:1; } }\n")
		out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		if want := fmt.Sprintf(c.want, path); err == nil || !strings.Contains(string(out), want) {
			t.Errorf("%s: %v\n got %s\nwant %s", c.conf, err, out, want)
		}
	}
	good := filepath.Join(dir, "good.conf")
	writeFile(t, good, `http {
		esi on; esi_types application/json text/xml; esi_types image/svg+xml;
		esi_silent_errors on; esi_buffer_size 16k; esi_max_depth 10; esi_max_fragment_size 8m; esi_max_held_size 4m;
		esi_max_includes 32; esi_fragment_timeout off;
		server { listen 127.0.0.1:1; esi_fragment_timeout 2s;
			location / { esi off; esi_max_depth 1; }
		}
	}`)
	if out, err := exec.Command(checkPath, "-t", "-c", good).CombinedOutput(); err != nil {
		t.Errorf("every directive: %v\n%s", err, out)
	}
}
