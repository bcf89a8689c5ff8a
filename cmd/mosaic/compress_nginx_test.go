package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// The gzip filter against Debian's NGINX on the same configuration:
// whether a response is compressed, and the headers that go with it.

// headerOrigin answers with a text/html page of 2,000 bytes and the
// header fields its query names, "h=Name:Value" each.
func headerOrigin(t *testing.T) string {
	t.Helper()
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, f := range r.URL.Query()["h"] {
			k, v, _ := strings.Cut(f, ":")
			w.Header().Add(k, v)
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, strings.Repeat("compressible text ", 112)[:2000])
	}))
	t.Cleanup(o.Close)
	return o.Listener.Addr().String()
}

// sameCoding sends a request to both servers and reports where their
// statuses, Content-Encoding or Vary differ.
func sameCoding(t *testing.T, mport, nport int, head string) {
	t.Helper()
	req := head + "\r\nConnection: close\r\n\r\n"
	m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
	n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
	sig := func(r *http.Response) string {
		return fmt.Sprintf("%d %q %q", r.StatusCode, r.Header.Get("Content-Encoding"), r.Header.Values("Vary"))
	}
	if m.StatusCode != http.StatusOK || sig(m) != sig(n) {
		t.Errorf("%q: mosaic %s, nginx %s", req, sig(m), sig(n))
	}
}

// TestGzipProxiedCacheControlAsNGINX: gzip_proxied no-cache, no-store and
// private count a Cache-Control directive only when it stands alone, as
// NGINX's list parser does: `no-cache="Set-Cookie"` and `private="X"` limit
// the directive to those fields and leave the body storable by a shared
// cache, which could then hand the gzip body to a client without gzip.
func TestGzipProxiedCacheControlAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := headerOrigin(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`gzip on; gzip_proxied no-cache no-store private;
			server { listen 127.0.0.1:%d; location / { proxy_pass http://%s; } }`, port, origin)
	})
	for _, cc := range []string{
		"no-cache", "NO-CACHE", "public,%20no-store", "max-age=0,private", "private%20",
		"no-cache=%22Set-Cookie%22", "private=%22X%22", "no-store%3Bx", "no-cachex", "max-age=0",
	} {
		sameCoding(t, mport, nport, "GET /?h=Cache-Control:"+cc+" HTTP/1.1\r\nHost: a.test\r\nAccept-Encoding: gzip\r\nVia: 1.1 p")
	}
}

// TestGzipProxiedNoLastModifiedFileAsNGINX: gzip_proxied no_last_modified
// refuses an upstream's answer with Last-Modified but not a static file,
// whose date NGINX keeps out of the header list until the header goes out,
// after its gzip filter: the file is compressed for a request through a
// proxy (etag off: no_etag would refuse it for its ETag, in both). mosaic
// counted the file's Last-Modified and sent it uncompressed.
func TestGzipProxiedNoLastModifiedFileAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := headerOrigin(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	writeFile(t, filepath.Join(root, "a.html"), strings.Repeat("compressible text ", 100))
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`gzip on; gzip_vary on; etag off;
			server { listen 127.0.0.1:%d; root %s;
				location /nl/ { alias %[2]s/; gzip_proxied no_last_modified; }
				location /ne/ { alias %[2]s/; gzip_proxied no_etag; etag on; }
				location /p/ { proxy_pass http://%s/; gzip_proxied no_last_modified; } }`, port, root, origin)
	})
	for _, path := range []string{"/nl/a.html", "/ne/a.html", "/p/?h=Last-Modified:Sun,%2013%20Sep%202020%2012:26:40%20GMT", "/p/"} {
		for _, via := range []string{"", "\r\nVia: 1.1 p"} {
			sameCoding(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test\r\nAccept-Encoding: gzip"+via)
		}
	}
}

// TestGzipTypesEntryWithParameterAsNGINX: a gzip_types entry with a
// parameter loads, as in NGINX, and matches no response: NGINX looks a
// response up by its bare type, so text/css goes out uncompressed and the list's other
// entries and text/html still compress; an empty entry loads and matches
// nothing as well. mosaic refused the configuration.
func TestGzipTypesEntryWithParameterAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	for _, f := range []string{"a.css", "a.json", "a.html"} {
		writeFile(t, filepath.Join(root, f), strings.Repeat("compressible text ", 100))
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`gzip on; gzip_types "text/css; charset=utf-8" "" application/json;
			server { listen 127.0.0.1:%d; root %s;
				types { text/css css; application/json json; text/html html; } }`, port, root)
	})
	for _, path := range []string{"/a.css", "/a.json", "/a.html"} {
		sameCoding(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test\r\nAccept-Encoding: gzip")
	}
}

// TestGzipStaticAlwaysGunzipRangeAsNGINX: with "gzip_static always" and
// "gunzip on", a client without gzip that asks for a range gets the whole
// file decoded, as from NGINX (its gunzip turns ranges off): a range of
// the .gz bytes, which gunzip cannot decode, went out as a 206 with
// Content-Encoding: gzip that the client cannot read.
func TestGzipStaticAlwaysGunzipRangeAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	plain := strings.Repeat("precompressed text ", 200)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(plain))
	zw.Close()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "www/a.txt.gz"), gz.String())
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		root := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "www")
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s; gzip_static always; gunzip on; }`, port, root)
	})
	for _, extra := range []string{"", "\r\nAccept-Encoding: identity", "\r\nIf-Range: W/\"x\""} {
		req := "GET /a.txt HTTP/1.1\r\nHost: a.test\r\nRange: bytes=0-9" + extra
		sameCoding(t, mport, nport, req)
		sameAnswer(t, mport, nport, req, "")
	}
	// An HTTP/1.0 client that accepts gzip fails gzip_http_version (1.1 by
	// default): gunzip decodes the copy for it too, whole.
	req := "GET /a.txt HTTP/1.0\r\nHost: a.test\r\nAccept-Encoding: gzip\r\nRange: bytes=0-9"
	sameCoding(t, mport, nport, req)
	sameAnswer(t, mport, nport, req, "")
}

// TestHeadersBeforeCompressionAsNGINX: NGINX's headers filter (add_header,
// expires) runs before gzip and SSI see the response, so gzip_proxied
// judges the Cache-Control and Expires that expires sets and the
// Last-Modified that add_header sets, gzip weakens an ETag that
// add_header sets, and SSI drops an added ETag and Last-Modified as it
// drops the content's.
func TestHeadersBeforeCompressionAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := headerOrigin(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`gzip on;
			server { listen 127.0.0.1:%[1]d;
				location /expired/ { gzip_proxied expired; expires 1h; proxy_pass http://%[2]s; }
				location /nocache/ { gzip_proxied no-store; add_header Cache-Control no-store; proxy_pass http://%[2]s; }
				location /nolm/ { gzip_proxied no_last_modified; add_header Last-Modified "Mon, 01 Jan 2024 00:00:00 GMT"; proxy_pass http://%[2]s; }
				location /etag/ { add_header ETag '"v1"'; proxy_pass http://%[2]s; }
				location /ssi/ { ssi on; gzip off; add_header ETag '"v2"'; add_header Last-Modified "Mon, 01 Jan 2024 00:00:00 GMT"; proxy_pass http://%[2]s; }
			} `, port, origin)
	})
	for _, path := range []string{"/expired/", "/nocache/", "/nolm/"} {
		sameCoding(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test\r\nAccept-Encoding: gzip\r\nVia: 1.1 p")
	}
	validators := func(port int, path string) string {
		r, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET "+path+" HTTP/1.1\r\nHost: a.test\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n")
		return fmt.Sprintf("%d %q ETag %q Last-Modified %q", r.StatusCode, r.Header.Get("Content-Encoding"), r.Header.Values("ETag"), r.Header.Values("Last-Modified"))
	}
	for _, path := range []string{"/etag/", "/ssi/"} {
		if m, n := validators(mport, path), validators(nport, path); m != n {
			t.Errorf("%s: mosaic %s, nginx %s", path, m, n)
		}
	}
}

// TestVaryAcceptEncodingFirstAsNGINX: NGINX writes gzip_vary's "Vary:
// Accept-Encoding" before the response's own Vary lines, an upstream's or
// add_header's, which since add_header runs before compression are
// already there when it compresses.
func TestVaryAcceptEncodingFirstAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := headerOrigin(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`gzip on; gzip_vary on;
			server { listen 127.0.0.1:%[1]d;
				location /added/ { add_header Vary Origin; proxy_pass http://%[2]s; }
				location /ssi/ { ssi on; add_header Vary Origin; proxy_pass http://%[2]s; }
				location /upstream/ { proxy_pass http://%[2]s; }
			} `, port, origin)
	})
	for _, path := range []string{"/added/", "/ssi/", "/upstream/?h=Vary:Cookie"} {
		sameCoding(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test\r\nAccept-Encoding: gzip")
	}
}
