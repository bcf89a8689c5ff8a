package main

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestFilteredBodyFramingAsNGINX: a short body whose length a filter took
// away (a page SSI processed, a body charset recoded to UTF-8, the 415 of
// image_filter for a file that is no image, sub_filter, add_after_body,
// gunzip) goes out chunked, as from NGINX, whose chunked filter decides
// by the length the header has, on a connection kept alive or closed
// after the response; NGINX's 415 page has its length.
func TestFilteredBodyFramingAsNGINX(t *testing.T) {
	load := imageFilterNGINX(t)
	dir := t.TempDir()
	charsetMapFiles(t, dir)
	www := filepath.Join(dir, "www")
	writeFile(t, filepath.Join(www, "ssi/page.html"), `<p>SSI <!--# echo var="uri" --></p>`)
	writeFile(t, filepath.Join(www, "cs/page.html"), "\xf0\xd2\xc9\xd7\xc5\xd4\n")
	writeFile(t, filepath.Join(www, "img/not.jpg"), "not an image")
	writeFile(t, filepath.Join(www, "plain/page.html"), "<p>plain</p>")
	writeFile(t, filepath.Join(www, "sub/page.html"), "<p>hello</p>")
	writeFile(t, filepath.Join(www, "add/page.html"), "<p>page</p>")
	writeFile(t, filepath.Join(www, "gz/page.html.gz"), string(gzipBytes(t, "<p>gzip</p>")))
	mport, nport := startBothMain(t, dir, load, func(who string, port int) string {
		return fmt.Sprintf(`include %[2]s/koi-utf;
		server {
			listen 127.0.0.1:%[1]d; root %[3]s; server_tokens off;
			location /ssi/ { ssi on; }
			location /cs/ { charset utf-8; source_charset koi8-r; }
			location /img/ { image_filter resize 10 10; }
			location /sub/ { sub_filter hello HI; }
			location /add/ { add_after_body /plain/page.html; }
			location /gz/ { gzip_static always; gunzip on; }
		}`, port, dir, www)
	})
	for _, p := range []string{"/ssi/page.html", "/cs/page.html", "/img/not.jpg", "/plain/page.html",
		"/sub/page.html", "/add/page.html", "/gz/page.html"} {
		for _, conn := range []string{"close", "keep-alive"} {
			raw := "GET " + p + " HTTP/1.1\r\nHost: a.test\r\nConnection: " + conn + "\r\n\r\n"
			name := p + ", Connection: " + conn
			m, mb := testclient.Raw(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(mport)), raw)
			n, nb := testclient.Raw(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(nport)), raw)
			nb = strings.ReplaceAll(nb, "<center>nginx</center>", "<center>mosaic</center>")
			if m.StatusCode != n.StatusCode || mb != nb {
				t.Errorf("%s: mosaic %d %q, nginx %d %q", name, m.StatusCode, mb, n.StatusCode, nb)
			}
			// The lengths themselves differ by the server's name in
			// an error page.
			if fmt.Sprint(m.TransferEncoding) != fmt.Sprint(n.TransferEncoding) || (m.Header.Get("Content-Length") == "") != (n.Header.Get("Content-Length") == "") {
				t.Errorf("%s: mosaic %v Content-Length %q, nginx %v Content-Length %q", name,
					m.TransferEncoding, m.Header.Get("Content-Length"), n.TransferEncoding, n.Header.Get("Content-Length"))
			}
		}
	}
}
