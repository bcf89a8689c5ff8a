package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// additionOrigin answers /up/ with an HTML body that names its length,
// ranges, an ETag and a date, as a file server would.
func additionOrigin(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Etag", `"up-1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
		w.Header().Set("Content-Length", "9")
		fmt.Fprint(w, "UPSTREAM\n")
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// TestAdditionMatchesNGINX serves the same files through the same
// add_before_body and add_after_body lines from both servers and compares
// status, body, the fields the filter touches and the access log: the
// types, HEAD, Range, conditional requests, an empty file, an error page
// (left alone), an added URI that is missing (its 404 page is added), a
// "?" in an added URI, the page's own sub_filter and SSI (which do not
// see the added bodies), an SSI include of a location with
// add_before_body (a subrequest gets nothing added), gzip over the
// whole, a proxied page, a cache hit asked for a range, return, and an
// error_page's 200.
func TestAdditionMatchesNGINX(t *testing.T) {
	nginxPath(t)
	origin := additionOrigin(t)
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	for _, p := range []string{"page.html", "only-before/page.html", "only-after/page.html", "types/page.html",
		"missing-inc/page.html", "q/page.html", "subf/page.html", "gz/page.html", "ep/page.html"} {
		writeFile(t, filepath.Join(www, p), "PAGE HEADER\n")
	}
	writeFile(t, filepath.Join(www, "page.txt"), "TEXT\n")
	writeFile(t, filepath.Join(www, "types/page.txt"), "TEXT\n")
	writeFile(t, filepath.Join(www, "empty.html"), "")
	writeFile(t, filepath.Join(www, "hdr.html"), "HEADER\n")
	writeFile(t, filepath.Join(www, "ftr.html"), "FOOTER\n")
	writeFile(t, filepath.Join(www, "hdr.html?x=1"), "ODD NAME\n")
	writeFile(t, filepath.Join(www, "ssi/page.html"), `SSI <!--# echo var="uri" --> <!--# include virtual="/only-before/part.html" --> end`+"\n")
	writeFile(t, filepath.Join(www, "ssi/hdr.html"), `hdr <!--# echo var="uri" -->`+"\n")
	writeFile(t, filepath.Join(www, "only-before/part.html"), "PART\n")
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(www, "page.html"), old, old); err != nil {
		t.Fatal(err)
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`proxy_cache_path %[4]s/cache-%[5]s keys_zone=addz:1m;
		log_format add '$request|$status|$body_bytes_sent';
		map $server_protocol $http10 { HTTP/1.0 1; default 0; }
		access_log %[4]s/%[6]s/access.log add if=$http10;
		server {
			listen 127.0.0.1:%[1]d; root %[2]s;
			types { text/html html; text/plain txt; }
			add_before_body /hdr.html;
			add_after_body /ftr.html;
			location = /hdr.html { add_before_body ""; add_after_body ""; }
			location = /ftr.html { add_before_body ""; add_after_body ""; }
			location / { }
			location /only-before/ { add_after_body ""; }
			location /only-after/ { add_before_body ""; }
			location /types/ { addition_types text/plain; }
			location /missing-inc/ { add_before_body /nope.html; }
			location /q/ { add_before_body "/hdr.html?x=1"; }
			location /subf/ { sub_filter HEADER hdr; sub_filter PAGE page; }
			location /ssi/ { ssi on; add_before_body /ssi/hdr.html; add_after_body ""; }
			location = /ssi/hdr.html { ssi on; add_before_body ""; }
			location /gz/ { gzip on; gzip_min_length 1; }
			location /up/ { proxy_pass http://%[3]s; }
			location /cached/ { proxy_pass http://%[3]s/up/; proxy_cache addz; proxy_cache_valid 200 1m; }
			location /ret/ { default_type text/html; return 200 "RET $uri\n"; }
			location /ep/ { error_page 404 =200 /page.html; }
		}`, port, www, origin, dir, who, map[string]string{"m": "mosaic", "n": "nginx"}[who])
	})
	ims := old.Format(http.TimeFormat)
	cases := []struct {
		method, path string
		hdr          map[string]string
	}{
		{"GET", "/page.html", nil},
		{"HEAD", "/page.html", nil},
		{"GET", "/page.html", map[string]string{"Range": "bytes=0-3"}},
		{"GET", "/page.html", map[string]string{"If-Modified-Since": ims}},
		{"GET", "/page.txt", nil},
		{"GET", "/empty.html", nil},
		{"GET", "/missing.html", nil},
		{"GET", "/only-before/page.html", nil},
		{"GET", "/only-after/page.html", nil},
		{"GET", "/types/page.txt", nil},
		{"GET", "/types/page.html", nil},
		{"GET", "/missing-inc/page.html", nil},
		{"GET", "/q/page.html", nil},
		{"GET", "/subf/page.html", nil},
		{"GET", "/ssi/page.html", nil},
		{"GET", "/gz/page.html", map[string]string{"Accept-Encoding": "gzip"}},
		{"GET", "/up/a.html", nil},
		{"HEAD", "/up/a.html", nil},
		{"GET", "/up/a.html", map[string]string{"If-None-Match": `"up-1"`}},
		// Filled, then a hit asked for a range: the whole body, added to.
		{"GET", "/cached/a.html", nil},
		{"GET", "/cached/a.html", map[string]string{"Range": "bytes=0-3"}},
		{"GET", "/ret/x", nil},
		{"GET", "/ep/missing.html", nil},
	}
	for _, c := range cases {
		name := c.method + " " + c.path + fmt.Sprint(c.hdr)
		mr, mb := do(t, c.method, fmt.Sprintf("http://127.0.0.1:%d%s", mport, c.path), c.hdr)
		nr, nb := do(t, c.method, fmt.Sprintf("http://127.0.0.1:%d%s", nport, c.path), c.hdr)
		mb, nb = gunzipped(t, mr, mb), gunzipped(t, nr, nb)
		mb = strings.ReplaceAll(mb, "mosaic", "nginx/1.22.1")
		if mr.StatusCode != nr.StatusCode || mb != nb {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", name, mr.StatusCode, mb, nr.StatusCode, nb)
		}
		// A GET's Content-Length is how each server frames a body it
		// has whole; a HEAD's says whether the filter removed it.
		if c.method == "HEAD" && (mr.Header.Get("Content-Length") == "") != (nr.Header.Get("Content-Length") == "") {
			t.Errorf("%s: Content-Length: mosaic %q, nginx %q", name, mr.Header.Get("Content-Length"), nr.Header.Get("Content-Length"))
		}
		for _, h := range []string{"Last-Modified", "Etag", "Accept-Ranges", "Content-Encoding", "Content-Range"} {
			if m, n := mr.Header.Get(h), nr.Header.Get(h); m != n {
				t.Errorf("%s: %s: mosaic %q, nginx %q", name, h, m, n)
			}
		}
	}
	// Over HTTP/1.0 neither server frames the body, so the logs' byte
	// counts are the added bodies'. The error pages name the server, and
	// are left out.
	logged := 0
	for _, c := range cases {
		if c.method != "GET" || strings.Contains(c.path, "missing") || c.hdr != nil {
			continue
		}
		req := "GET " + c.path + " HTTP/1.0\r\nHost: a.test\r\n\r\n"
		_, mb, _ := strings.Cut(sendUntilClosed(t, mport, req), "\r\n\r\n")
		_, nb, _ := strings.Cut(sendUntilClosed(t, nport, req), "\r\n\r\n")
		if mb != nb {
			t.Errorf("%q: mosaic %q, nginx %q", req, mb, nb)
		}
		logged++
	}
	sameAccessLogs(t, dir, logged)
}

// The addition directives are refused where NGINX refuses them, with its
// message and the line named.
func TestAdditionErrorsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, block := range []string{
		"add_before_body /a;\nadd_before_body /b;",
		"add_after_body;",
		"add_after_body /a /b;",
		"addition_types;",
		"server { location / { if ($arg_x) { add_before_body /a; } } }",
	} {
		mout, err, want := testBoth(t, dir, i, block)
		if want == "" || err == nil || !strings.Contains(mout, want) {
			t.Errorf("%q:\nmosaic %s\nnginx  %s", block, mout, want)
		}
	}
}
