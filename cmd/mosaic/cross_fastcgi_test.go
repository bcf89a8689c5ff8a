package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFastCGIFiltersKeepAliveAsNGINX: PHP answers without a length on
// one kept-alive connection, among a static file's: a gzip-encoded one
// that gunzip decodes before sub_filter or SSI, plain ones, ones with a
// Status line of NGINX's phrase or another (fastcgi_intercept_errors'
// pages too), ones whose $args "set" or a rewrite changed before
// fastcgi_pass, in a request or an SSI include, and HEADs. Each has NGINX's status line, body and
// framing (chunked, filtered or not: PHP sends no length), whatever the
// answer before it was. The status lines are NGINX's on the wire. HTTP/1.0 clients
// keeping the connection alive, and HTTP/1.1 ones where chunking is off,
// have it closed after a filtered body, as from NGINX.
func TestFastCGIFiltersKeepAliveAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	writeFile(t, filepath.Join(www, "gz.php"), `<?php
header('Content-Type: text/html');
header('Content-Encoding: gzip');
echo gzencode("<p>hello <!--# echo var=\"uri\" --></p>\n");
`)
	writeFile(t, filepath.Join(www, "lower.php"), `<?php
header('content-type: text/html');
header('CONTENT-ENCODING: gzip');
header('status: 404 Gone Away');
header('x-Odd-CASE: 1');
header('Keep-Alive: timeout=99');
header('Connection: close');
echo gzencode("<p>hello lower</p>\n");
`)
	writeFile(t, filepath.Join(www, "big.php"), `<?php
header('Content-Type: text/html');
header('Content-Encoding: gzip');
$s = '';
for ($i = 0; $i < 20000; $i++) { $s .= "hello " . dechex($i * 2654435761 % 4294967296) . "\n"; }
$g = gzencode($s);
foreach (str_split($g, 7000) as $part) { echo $part; flush(); }
`)
	writeFile(t, filepath.Join(www, "plain.php"), `<?php echo "hello plain\n";`)
	writeFile(t, filepath.Join(www, "status.php"), `<?php
header('Status: ' . $_GET['s']);
echo "status ", $_GET['s'], "\n";
`)
	writeFile(t, filepath.Join(www, "qs.php"), `<?php echo "QS=[", $_SERVER['QUERY_STRING'], "] RU=[", $_SERVER['REQUEST_URI'], "]\n";`)
	writeFile(t, filepath.Join(www, "inc.html"), `[<!--# include virtual="/qs/x?sub=1" -->|<!--# include virtual="/setargs/y?sub=2" -->|<!--# include virtual="/noargs/z" -->]`+"\n")
	writeFile(t, filepath.Join(www, "static.html"), "<p>static hello</p>\n")
	fpm := startFPM(t, filepath.Join(dir, "fpm"), filepath.Join(dir, "php.sock"), 2)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%[1]d; root %[2]s/www; server_tokens off;
			location /sub/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/gz.php;
				gunzip on; sub_filter hello HI; fastcgi_pass %[3]s; }
			location /ssi/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/gz.php;
				gunzip on; ssi on; fastcgi_pass %[3]s; }
			location /gz/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/gz.php;
				gunzip on; fastcgi_pass %[3]s; }
			location /plain/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/plain.php;
				fastcgi_pass %[3]s; }
			location /status/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/status.php;
				fastcgi_pass %[3]s; }
			location /setargs/ { set $args "a=1&b=2"; include %[2]s/fastcgi.conf;
				fastcgi_param SCRIPT_FILENAME $document_root/qs.php; fastcgi_pass %[3]s; }
			location /noargs/ { set $args ""; include %[2]s/fastcgi.conf;
				fastcgi_param SCRIPT_FILENAME $document_root/qs.php; fastcgi_pass %[3]s; }
			location /rwargs/ { rewrite ^ /qs/x?c=3? break; include %[2]s/fastcgi.conf;
				fastcgi_param SCRIPT_FILENAME $document_root/qs.php; fastcgi_pass %[3]s; }
			location /ic/ { fastcgi_intercept_errors on; error_page 404 = /status/x?s=404%%20Not%%20Found;
				include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/status.php; fastcgi_pass %[3]s; }
			location /ic2/ { fastcgi_intercept_errors on; error_page 404 /status/x?s=200%%20OK;
				include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/status.php; fastcgi_pass %[3]s; }
			location /ic3/ { fastcgi_intercept_errors on; error_page 404 = /status/x?s=200%%20OK;
				include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/status.php; fastcgi_pass %[3]s; }
			location /lower/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/lower.php;
				gunzip on; sub_filter hello HI; fastcgi_pass %[3]s; }
			location /qs/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/qs.php; fastcgi_pass %[3]s; }
			location /incl/ { alias %[2]s/www/; ssi on; }
			location /big/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/big.php;
				gunzip on; sub_filter hello HI; sub_filter_once off; gzip on; gzip_vary on; gzip_min_length 1; fastcgi_pass %[3]s; }
			location /subx/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/gz.php;
				gunzip on; sub_filter hello HI; limit_rate 1m; gzip on; gzip_vary on; add_header X-A 1; userid on;
				fastcgi_pass %[3]s; }
			location /gzx/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/gz.php;
				gunzip on; limit_rate 1m; gzip on; gzip_vary on; gzip_types text/plain; add_header X-A 1; userid on;
				fastcgi_pass %[3]s; }
			location /icsub/ { fastcgi_intercept_errors on; sub_filter hello HI; gunzip on; error_page 404 /file/static.html;
				include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/status.php; fastcgi_pass %[3]s; }
			location /icfile/ { fastcgi_intercept_errors on; error_page 404 /static/static.html;
				include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/status.php; fastcgi_pass %[3]s; }
			location /nochunk/ { chunked_transfer_encoding off; include %[2]s/fastcgi.conf;
				fastcgi_param SCRIPT_FILENAME $document_root/gz.php; gunzip on; fastcgi_pass %[3]s; }
			location /static/ { alias %[2]s/www/; sub_filter hello HI; }
			location /file/ { alias %[2]s/www/; }
		}`, port, dir, fpm.addr)
	})
	reqs := []string{
		"GET /file/static.html", "GET /sub/x", "GET /status/x?s=404%20Gone%20Away", "GET /file/static.html",
		"GET /status/x?s=404%20Not%20Found", "GET /ssi/x", "GET /plain/x", "HEAD /sub/x", "GET /gz/x",
		"GET /status/x?s=200%20Fine", "GET /status/x?s=200%20OK", "GET /static/static.html",
		"GET /setargs/x?z=9", "GET /noargs/x?z=9", "GET /rwargs/x?z=9", "GET /status/x?s=302",
		"GET /status/x?s=418", "GET /file/static.html", "GET /sub/x",
		"GET /ic/x?s=404%20Custom", "GET /ic/x?s=404%20Not%20Found", "GET /ic2/x?s=404%20Custom", "GET /ic3/x?s=404%20Custom",
		"GET /status/x?s=200%20OK", "HEAD /static/static.html", "HEAD /ssi/x", "HEAD /gz/x", "HEAD /plain/x",
		"HEAD /file/static.html", "HEAD /status/x?s=404%20Gone", "GET /lower/x", "GET /gz/x", "GET /incl/inc.html?top=1", "GET /subx/x", "GET /gzx/x", "GET /icsub/x?s=404", "GET /icfile/x?s=404", "GET /icsub/x?s=404",
	}
	for i := range reqs {
		reqs[i] += " HTTP/1.1"
	}
	m := keepAliveAnswers(t, mport, reqs, "")
	n := keepAliveAnswers(t, nport, reqs, "")
	if len(m) != len(reqs) || len(n) != len(reqs) {
		t.Fatalf("answers: mosaic %d, nginx %d of %d", len(m), len(n), len(reqs))
	}
	// Pipelined, the answers are the same as one at a time.
	if p := answersOn(t, mport, reqs, "", true); fmt.Sprint(p) != fmt.Sprint(m) {
		t.Errorf("pipelined:\n%q\none at a time:\n%q", p, m)
	}
	for i, rq := range reqs {
		mf, nf := m[i].framing, n[i].framing
		mb, nb := m[i].body, n[i].body
		if strings.Contains(rq, "/incl/") {
			// An include's $request_uri is its own URI in mosaic, the
			// page's in NGINX (vars/README.md).
			mb, nb = requestURIs.ReplaceAllString(mb, ""), requestURIs.ReplaceAllString(nb, "")
		}
		if m[i].head != n[i].head || mf != nf || mb != nb {
			t.Errorf("%s:\nmosaic %q\n nginx %q", rq, m[i], n[i])
		}
	}
	// Clients that take gzip, or take it and not gzip: the body
	// decoded, sub_filter's and gzip's work, the fields that say so.
	// A Via makes gzip_proxied (off) refuse gzip: decoded as well.
	for _, ae := range []string{"Accept-Encoding: gzip\r\n", "Accept-Encoding: br\r\n", "Accept-Encoding: gzip\r\nVia: 1.1 p\r\n"} {
		reqs = []string{"GET /big/x HTTP/1.1", "GET /gz/x HTTP/1.1", "GET /big/x HTTP/1.1", "GET /sub/x HTTP/1.1", "GET /plain/x HTTP/1.1"}
		m = keepAliveAnswers(t, mport, reqs, ae)
		n = keepAliveAnswers(t, nport, reqs, ae)
		for i := range m {
			if m[i] != n[i] {
				t.Errorf("%s %q:\nmosaic %q\n nginx %q", reqs[i], ae, clip(fmt.Sprint(m[i])), clip(fmt.Sprint(n[i])))
			}
		}
	}
	// The status lines as they are on the wire: a phrase of NGINX's is
	// not passed on, and none is added to a Status without one.
	for _, q := range []string{"200%20OK", "200", "302", "404%20Not%20Found", "404%20Not%20found", "418", "599%20X", "200%20OK%20", "503%20Service%20Temporarily%20Unavailable"} {
		raw := "GET /status/x?s=" + q + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		mw, _, _ := strings.Cut(wireBytes(t, mport, raw), "\n")
		nw, _, _ := strings.Cut(wireBytes(t, nport, raw), "\n")
		if mw != nw {
			t.Errorf("Status: %s: mosaic %q, nginx %q", q, mw, nw)
		}
	}
	// HTTP/1.0 kept alive: a filtered body of unknown length ends with
	// the connection, after answers that kept it open.
	m, n = nil, nil
	for _, last := range []string{"/gz/x", "/ssi/x", "/sub/x", "/lower/x"} {
		reqs = []string{"GET /file/static.html HTTP/1.0", "GET " + last + " HTTP/1.0"}
		m = append(m, keepAliveAnswers(t, mport, reqs, "Connection: keep-alive\r\n")...)
		n = append(n, keepAliveAnswers(t, nport, reqs, "Connection: keep-alive\r\n")...)
	}
	// So does HTTP/1.1's with chunked_transfer_encoding off.
	reqs = []string{"GET /file/static.html HTTP/1.1", "GET /nochunk/x HTTP/1.1"}
	m = append(m, keepAliveAnswers(t, mport, reqs, "")...)
	n = append(n, keepAliveAnswers(t, nport, reqs, "")...)
	if fmt.Sprint(m) != fmt.Sprint(n) {
		t.Errorf("closed after a body of unknown length:\nmosaic %q\n nginx %q", m, n)
	}
}

var requestURIs = regexp.MustCompile(` RU=\[[^]]*\]`)

// answer is one response's status line, framing and body.
type answer struct{ head, framing, body string }

// keepAliveAnswers sends reqs one after the other on one connection and
// returns each answer's status line, framing and body.
func keepAliveAnswers(t *testing.T, port int, reqs []string, extra string) []answer {
	return answersOn(t, port, reqs, extra, false)
}

// answersOn is keepAliveAnswers, with the requests all sent at once
// when pipelined.
func answersOn(t *testing.T, port int, reqs []string, extra string, pipelined bool) []answer {
	t.Helper()
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	var out []answer
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if pipelined {
		var all strings.Builder
		for _, rq := range reqs {
			fmt.Fprintf(&all, "%s\r\nHost: a.test\r\n%s\r\n", rq, extra)
		}
		io.WriteString(c, all.String())
	}
	for _, rq := range reqs {
		if !pipelined {
			fmt.Fprintf(c, "%s\r\nHost: a.test\r\n%s\r\n", rq, extra)
		}
		method, _, _ := strings.Cut(rq, " ")
		req, _ := http.NewRequest(method, "/", nil)
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Errorf("%s on port %d: %v", rq, port, err)
			return out
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Errorf("%s on port %d: body: %v", rq, port, err)
		}
		head := resp.Proto + " " + resp.Status + " CE " + resp.Header.Get("Content-Encoding") + " X " + resp.Header.Get("X-Odd-Case") +
			" Vary " + strings.Join(resp.Header.Values("Vary"), ",") + " KA " + resp.Header.Get("Keep-Alive")
		if strings.HasSuffix(rq, "HTTP/1.0") {
			// NGINX says keep-alive to HTTP/1.1 as well; mosaic only
			// where the client asked for it.
			head += " Connection " + resp.Header.Get("Connection")
		}
		out = append(out, answer{head,
			fmt.Sprintf("TE %v CL %q", resp.TransferEncoding, resp.Header.Get("Content-Length")), decodedBody(resp, string(body))})
	}
	return out
}
