package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// mosaic's own answers carry NGINX's status lines ("302 Moved
// Temporarily", "414 Request-URI Too Large", "418 " with no phrase) and
// NGINX's built-in pages, byte for byte but for the name in the tail; a
// code NGINX has no page for gets an empty body without a type. So do
// the requests the HTTP/1 reader refuses.
func TestStatusLinesAndPagesAsNGINX(t *testing.T) {
	nginxPath(t)
	codes := []int{200, 201, 204, 301, 302, 303, 307, 308}
	for c := 400; c <= 431; c++ {
		if c != 444 {
			codes = append(codes, c)
		}
	}
	codes = append(codes, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 599)
	var locs strings.Builder
	for _, c := range codes {
		fmt.Fprintf(&locs, "location = /%d { return %d; }\n", c, c)
	}
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf("server_tokens off; large_client_header_buffers 2 1k; server { listen 127.0.0.1:%d; %s }", port, locs.String())
	})
	// The status line, the type and length fields, and the body with
	// NGINX's name in the tail made mosaic's.
	answer := func(port int, req string) string {
		raw := sendUntilClosed(t, port, req)
		head, body, _ := strings.Cut(raw, "\r\n\r\n")
		lines := strings.Split(head, "\r\n")
		out := []string{lines[0]}
		for _, l := range lines[1:] {
			if name, _, _ := strings.Cut(l, ":"); name == "Content-Type" || name == "Content-Length" {
				out = append(out, l)
			}
		}
		body = strings.Replace(body, "<hr><center>nginx</center>", "<hr><center>mosaic</center>", 1)
		return strings.Join(out, "\r\n") + "\r\n\r\n" + body
	}
	tail := len("<hr><center>mosaic</center>") - len("<hr><center>nginx</center>")
	requests := map[string]string{
		"too long":       "GET /" + strings.Repeat("a", 1300) + " HTTP/1.1\r\nHost: x\r\n\r\n",
		"too large":      "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("b", 1300) + "\r\n\r\n",
		"garbage":        "GARBAGE\r\n\r\n",
		"HTTP/2.0":       "GET / HTTP/2.0\r\nHost: x\r\n\r\n",
		"gzip body":      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
		"no Host":        "GET / HTTP/1.1\r\n\r\n",
		"lower method":   "get / HTTP/1.1\r\nHost: x\r\n\r\n",
		"not found HEAD": "HEAD /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	}
	for _, c := range codes {
		requests[fmt.Sprintf("return %d", c)] = fmt.Sprintf("GET /%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", c)
	}
	for name, req := range requests {
		m, n := answer(mport, req), answer(nport, req)
		// A page's length differs by the tail's name (a HEAD's too).
		var size int
		if i := strings.Index(n, "Content-Length: "); i >= 0 && strings.Contains(n, "Content-Type: text/html") {
			fmt.Sscanf(n[i:], "Content-Length: %d", &size)
			n = strings.Replace(n, fmt.Sprintf("Content-Length: %d", size), fmt.Sprintf("Content-Length: %d", size+tail), 1)
		}
		if m != n {
			t.Errorf("%s:\nmosaic %q\nnginx  %q", name, m, n)
		}
	}
}

// A proxied response goes out with the status line's phrase as the
// upstream wrote it, as NGINX passes it on ("200 Fine", "302 Found"),
// while a page that error_page puts in its place (proxy_intercept_errors)
// has NGINX's own.
func TestUpstreamReasonPassedAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		line := map[string]string{"/fine": "200 Fine", "/found": "302 Found", "/unprocessable": "422 Unprocessable Entity",
			"/nope": "404 Nope", "/caught": "404 Nope", "/bare": "200", "/empty": "200 ", "/two": "200  two"}[req.URL.Path]
		fmt.Fprintf(c, "HTTP/1.1 %s\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc", line)
	})
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location / { proxy_pass http://%s; }
			location /caught { proxy_pass http://%[2]s; proxy_intercept_errors on; error_page 404 /page; }
			location = /page { return 200 "page\n"; } }`, port, origin.Addr())
	})
	for _, path := range []string{"/fine", "/found", "/unprocessable", "/nope", "/caught", "/bare", "/empty", "/two"} {
		req := "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
		m, _, _ := strings.Cut(sendUntilClosed(t, mport, req), "\r\n")
		n, _, _ := strings.Cut(sendUntilClosed(t, nport, req), "\r\n")
		if m != n {
			t.Errorf("%s: mosaic %q, nginx %q", path, m, n)
		}
	}
}

// A FastCGI application's Status field is NGINX's status line as it
// came, phrase or none ("Status: 302" goes out as "HTTP/1.1 302"); a
// head without one is "200 OK", or "302 Moved Temporarily" with a
// Location.
func TestFastCGIStatusLineAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "s.php"), `<?php
$s = $_GET['s'] ?? '';
if ($s === 'loc') { header('Location: http://example.com/'); exit; }
if ($s !== '') { header('Status: ' . $s); }
echo "ok\n";
`)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), filepath.Join(dir, "php.sock"), 1)
	shipFastCGIFile(t, dir, "fastcgi_params")
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/www;
			location / { include %s/fastcgi_params; fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
				fastcgi_pass %s; } }`, port, dir, dir, fpm.addr)
	})
	for _, s := range []string{"", "loc", "302", "404", "404%20Not%20here", "200", "201%20Made"} {
		req := "GET /s.php?s=" + s + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
		m, _, _ := strings.Cut(sendUntilClosed(t, mport, req), "\r\n")
		n, _, _ := strings.Cut(sendUntilClosed(t, nport, req), "\r\n")
		if m != n {
			t.Errorf("Status %q: mosaic %q, nginx %q", s, m, n)
		}
	}
}

// A page that error_page serves from an upstream keeps that upstream's
// phrase only when it keeps its own status ("error_page 404 = @x"): a
// status error_page sets (the caught one, or "=200") goes out with
// NGINX's phrase, as NGINX clears the status line of a response whose
// status error_page chose.
func TestErrorPageUpstreamReasonAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		line := "404 Nope"
		switch req.Header.Get("X-Which") {
		case "other":
			line = "404 Other"
		case "ok":
			line = "200 PageOK"
		case "201":
			line = "201 Made It"
		}
		fmt.Fprintf(c, "HTTP/1.1 %s\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc", line)
	})
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			proxy_intercept_errors on;
			location /n1 { proxy_pass http://%[2]s; error_page 404 @other; }
			location /n2 { proxy_pass http://%[2]s; error_page 404 = @other; }
			location /n3 { proxy_pass http://%[2]s; error_page 404 =200 @ok; }
			location /n4 { proxy_pass http://%[2]s; error_page 404 /page; }
			location /n5 { proxy_pass http://%[2]s; error_page 404 = /page; }
			location /n6 { proxy_pass http://%[2]s; error_page 404 = @made; }
			location /n7 { proxy_pass http://%[2]s; error_page 404 =201 /page; }
			location /n8 { proxy_pass http://%[2]s; error_page 404 @ok; }
			location = /page { proxy_pass http://%[2]s; proxy_set_header X-Which ok; }
			location @other { proxy_pass http://%[2]s; proxy_set_header X-Which other; }
			location @ok { proxy_pass http://%[2]s; proxy_set_header X-Which ok; }
			location @made { proxy_pass http://%[2]s; proxy_set_header X-Which 201; } }`, port, origin.Addr())
	})
	for _, path := range []string{"/n1", "/n2", "/n3", "/n4", "/n5", "/n6", "/n7", "/n8"} {
		req := "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
		m, _, _ := strings.Cut(sendUntilClosed(t, mport, req), "\r\n")
		n, _, _ := strings.Cut(sendUntilClosed(t, nport, req), "\r\n")
		if m != n {
			t.Errorf("%s: mosaic %q, nginx %q", path, m, n)
		}
	}
}
