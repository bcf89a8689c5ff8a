package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http/httputil"
	"net/textproto"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/scgi"
)

// A client's header lines in an unusual order and case, names repeated
// (Cookie, a custom one) apart from each other, a proxy_set_header or a
// fastcgi_param/scgi_param naming one of them, a body of known length
// and a chunked one: the upstream gets them in the client's order and
// case, as from NGINX. The proxied upstream records the raw request
// bytes; php-fpm's script writes $_SERVER's HTTP_* keys in the order PHP
// has them reversed (php-fpm registers the parameters last first: the
// order sent, a repeated name where its last line came), the SCGI
// application its variables in the order sent.
func TestHeaderOrderAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "h.php"), `<?php
foreach (array_reverse($_SERVER) as $k => $v) { if (strncmp($k, 'HTTP_', 5) == 0) { echo $k, '=', $v, "\n"; } }
echo 'body=', file_get_contents('php://input'), "\n";`)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(freePort(t)), 2)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	origin := rawEcho(t)
	app := scgiOrderApp(t)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%[1]d; root %[2]s/www; access_log off;
			location ~ \.php$ { include %[2]s/fastcgi.conf; fastcgi_param HTTP_X_OVER fcgi; fastcgi_pass %[3]s; }
			location /p/ { proxy_set_header X-Over proxied; proxy_set_header X-Empty ""; proxy_pass http://%[4]s; }
			location /s { include /etc/nginx/scgi_params; scgi_param HTTP_X_OVER scgi; scgi_pass %[5]s; } }`,
			port, dir, fpm.addr, origin, app)
	})
	lines := "X-b: 1\r\nx-A: 2\r\nCookie: c=1\r\nX-Rep: r1\r\nx-over: client\r\nCOOKIE: c=2\r\nuser-agent: t\r\n" +
		"x-rep: r2\r\nX-Empty: e\r\nContent-Type: text/plain\r\naccept:  */* \r\n"
	var reqs []string
	for _, path := range []string{"/h.php", "/p/a", "/s"} {
		reqs = append(reqs,
			"GET "+path+" HTTP/1.1\r\nx-first: 0\r\nHost: a\r\n"+lines+"\r\n",
			"POST "+path+" HTTP/1.1\r\nHost: a\r\n"+lines+"Content-Length: 4\r\nx-last: 9\r\n\r\nbody",
			"POST "+path+" HTTP/1.1\r\nHost: a\r\n"+lines+"transfer-encoding: chunked\r\nx-last: 9\r\n\r\n4\r\nbody\r\n0\r\n\r\n")
	}
	// An absolute-form target: its host chooses the server, the Host
	// line's value goes as sent; without a Host line (HTTP/1.0), none
	// goes, as NGINX passes only the lines the client sent. Last: the
	// HTTP/1.0 request ends the connection.
	reqs = append(reqs, "GET http://b/h.php HTTP/1.1\r\nx-b: 1\r\nhost: a\r\n\r\n",
		"GET http://a/p/x HTTP/1.1\r\nx-b: 1\r\nhost: a\r\n\r\n",
		"GET http://a/h.php HTTP/1.0\r\nx-b: 1\r\n\r\n")
	m, n := pipelined(t, mport, reqs), pipelined(t, nport, reqs)
	// NGINX's answers show what the test is about: the client's order
	// and case, its overridden line left out.
	for i, want := range []string{"HTTP_X_OVER=fcgi\nHTTP_X_FIRST=0\nHTTP_HOST=a\nHTTP_X_B=1\nHTTP_X_A=2\nHTTP_COOKIE=c=2\nHTTP_X_REP=r2\nHTTP_USER_AGENT=t\n",
		"Host: " + origin + "\nConnection: close\nContent-Length: 4\nX-b: 1\nx-A: 2\nCookie: c=1\nX-Rep: r1\nCOOKIE: c=2\nuser-agent: t\nx-rep: r2\n",
		"HTTP_X_B=1\nHTTP_X_A=2\nHTTP_COOKIE=c=1\nHTTP_X_REP=r1\nHTTP_COOKIE=c=2\nHTTP_USER_AGENT=t\nHTTP_X_REP=r2\n"} {
		if !strings.Contains(n[[]int{0, 4, 7}[i]], want) {
			t.Fatalf("NGINX's answer is not as expected:\n%s\nwant in it\n%s", n[[]int{0, 4, 7}[i]], want)
		}
	}
	if last := n[len(n)-1]; strings.Contains(last, "HTTP_HOST") || !strings.Contains(last, "HTTP_X_B=1") {
		t.Fatalf("NGINX's answer to an HTTP/1.0 request without Host:\n%s", last)
	}
	for i := range n {
		if m[i] != n[i] {
			t.Errorf("%q:\nmosaic\n%s\nnginx\n%s", reqs[i], m[i], n[i])
		}
	}
}

// rawEcho is an upstream that answers each request with its header lines
// after the request line as they came, then its body (of Content-Length
// or chunked, as read), and closes.
func rawEcho(t *testing.T) string {
	t.Helper()
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		c.SetDeadline(time.Now().Add(20 * time.Second))
		head, length, chunked, ok := readHead(br)
		if !ok {
			return
		}
		var body []byte
		if chunked {
			b, err := io.ReadAll(httputil.NewChunkedReader(br))
			if err != nil {
				return
			}
			body = b
		} else {
			body = make([]byte, length)
			if _, err := io.ReadFull(br, body); err != nil {
				return
			}
		}
		out := head + "body=" + string(body) + "\n"
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(out), out)
	}).Addr()
}

// readHead reads a request's line and header from br and returns the
// header lines after the request line as they came, one a line ("\n"
// for "\r\n"), its Content-Length and whether its body is chunked; ok is
// false when not even the request line came. A header cut short ends
// where it was cut.
func readHead(br *bufio.Reader) (head string, length int, chunked, ok bool) {
	if _, err := br.ReadString('\n'); err != nil {
		return "", 0, false, false
	}
	var b strings.Builder
	for {
		l, err := br.ReadString('\n')
		if err != nil || l == "\r\n" {
			break
		}
		b.WriteString(strings.TrimSuffix(l, "\r\n") + "\n")
		name, value, _ := strings.Cut(strings.TrimSpace(l), ":")
		switch textproto.CanonicalMIMEHeaderKey(name) {
		case "Content-Length":
			length, _ = strconv.Atoi(strings.TrimSpace(value))
		case "Transfer-Encoding":
			chunked = true
		}
	}
	return b.String(), length, chunked, true
}

// scgiOrderApp is an SCGI application that answers with the HTTP_*
// variables it was sent, in their order, and the body.
func scgiOrderApp(t *testing.T) string {
	t.Helper()
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := scgi.ReadRequest(br, 0)
		if err != nil {
			t.Errorf("a malformed SCGI request: %v", err)
			return
		}
		body := make([]byte, req.ContentLength)
		if _, err := io.ReadFull(br, body); err != nil {
			t.Errorf("the body: %v", err)
			return
		}
		var out strings.Builder
		for _, v := range req.Vars {
			if strings.HasPrefix(v.Name, "HTTP_") {
				out.WriteString(v.Name + "=" + v.Value + "\n")
			}
		}
		fmt.Fprintf(c, "Content-Type: text/plain\r\n\r\n%sbody=%s\n", out.String(), body)
	}).Addr()
}

// rawHead reads a request's head as it came, up to the empty line, with
// a deadline for the whole exchange.
func rawHead(c net.Conn, br *bufio.Reader) string {
	c.SetDeadline(time.Now().Add(20 * time.Second))
	var head strings.Builder
	for {
		l, err := br.ReadString('\n')
		if err != nil || l == "\r\n" {
			return head.String()
		}
		head.WriteString(l)
	}
}

// A client's two Accept-Encoding lines of one value, which the cache
// makes one value, go upstream once, and the cache's If-None-Match of a
// revalidation goes beside them: walking the lines must neither repeat
// the name nor, counting it twice, take the map's added field for none.
func TestHeaderLinesCacheRevalidation(t *testing.T) {
	heads := make(chan string, 4)
	origin := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		head := rawHead(c, br)
		heads <- head
		if strings.Contains(head, "\r\nIf-None-Match: \"e1\"\r\n") {
			io.WriteString(c, "HTTP/1.1 304 Not Modified\r\nETag: \"e1\"\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n")
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nETag: \"e1\"\r\nCache-Control: no-cache\r\nContent-Length: 2\r\nConnection: close\r\n\r\nv1")
	}).Addr()
	port := freePort(t)
	startMosaic(t, t.TempDir(), `http {
    access_log off;
    proxy_cache_path memory keys_zone=z:16m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location / { proxy_pass http://`+origin+`; proxy_cache z; proxy_cache_revalidate on; }
    }
}`, port)
	ask := func() string {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		out := pipelineOn(t, c, []string{"GET /r HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\nX-A: 1\r\nAccept-Encoding: gzip\r\n\r\n"})
		return out[0]
	}
	for i, want := range []string{"MISS", "REVALIDATED"} {
		answer := ask()
		var head string
		select {
		case head = <-heads:
		case <-time.After(10 * time.Second):
			t.Fatalf("request %d: the upstream got nothing", i)
		}
		if n := strings.Count(head, "Accept-Encoding:"); n != 1 {
			t.Errorf("request %d: %d Accept-Encoding lines upstream:\n%s", i, n, head)
		}
		if inm := strings.Contains(head, "If-None-Match: \"e1\"\r\n"); inm != (i == 1) {
			t.Errorf("request %d: If-None-Match upstream %v:\n%s", i, inm, head)
		}
		if !strings.Contains(answer, "v1") {
			t.Errorf("request %d (%s): answer\n%s", i, want, answer)
		}
	}
}

// The header lines a mirror's subrequest and a cache's background update
// walk are their request's, however late they walk them: the text stays
// with the request while the connection reads the next pipelined ones
// (each of another length, its lines marked with its number). Run with
// -race, the binary is built with the race detector too.
func TestHeaderLinesOutliveTheirRequest(t *testing.T) {
	t.Parallel()
	heads := make(chan string, 16)
	origin := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		head := rawHead(c, br)
		if strings.HasPrefix(head, "GET /slow") {
			time.Sleep(300 * time.Millisecond)
		}
		heads <- head
		io.WriteString(c, "HTTP/1.1 200 OK\r\nCache-Control: max-age=1\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
	}).Addr()
	port := freePort(t)
	p := startMosaic(t, t.TempDir(), `http {
    access_log off;
    proxy_cache_path memory keys_zone=z:16m;
    server {
        listen 127.0.0.1:{port};
        location /b { proxy_pass http://`+origin+`; proxy_cache z;
            proxy_cache_use_stale updating; proxy_cache_background_update on; }
        location /m { mirror /mm; proxy_pass http://`+origin+`; }
        location = /mm { internal; proxy_pass http://`+origin+`/slow; }
    }
}`, port)
	req := func(path string, n int) string {
		return fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a\r\nx-n: %d\r\nX-Pad-%d: %s\r\nCookie: n=%d\r\n\r\n",
			path, n, n, strings.Repeat("p", 10*n), n)
	}
	ask := func(reqs ...string) {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for i, a := range pipelineOn(t, c, reqs) {
			if !strings.HasPrefix(a, "200") {
				t.Errorf("request %d: %s", i, a)
			}
		}
	}
	ask(req("/b", 0))
	<-heads
	time.Sleep(1100 * time.Millisecond) // the entry is stale: the next /b updates it after answering
	ask(req("/b", 1), req("/m", 2), req("/m", 3), req("/m", 4))
	seen := map[int]int{}
	for range 7 { // /b's update; /m's and its mirror's for 2, 3 and 4
		var head string
		select {
		case head = <-heads:
		case <-time.After(10 * time.Second):
			t.Fatalf("the upstream got %d of the requests: %v", len(seen), seen)
		}
		var n int
		// The background update goes without the request's State: its
		// lines go sorted, in canonical case (X-N).
		at := strings.Index(strings.ToLower(head), "\r\nx-n: ")
		if _, err := fmt.Sscanf(head[at+len("\r\nx-n: "):], "%d", &n); at < 0 || err != nil {
			t.Fatalf("no x-n line upstream:\n%s", head)
		}
		seen[n]++
		if !strings.HasPrefix(head, "GET /b") && !(strings.Index(head, "\r\nx-n:") < strings.Index(head, "\r\nX-Pad-") &&
			strings.Index(head, "\r\nX-Pad-") < strings.Index(head, "\r\nCookie:")) {
			t.Errorf("request %d's lines upstream are not in its order:\n%s", n, head)
		}
		for _, want := range []string{fmt.Sprintf("\r\nX-Pad-%d: %s\r\n", n, strings.Repeat("p", 10*n)), fmt.Sprintf("\r\nCookie: n=%d\r\n", n)} {
			if strings.Count(head, want) != 1 || strings.Count(head, "X-Pad-") != 1 || strings.Count(head, "Cookie:") != 1 {
				t.Errorf("request %d's lines upstream are not its own:\n%s", n, head)
			}
		}
	}
	if !reflect.DeepEqual(seen, map[int]int{1: 1, 2: 2, 3: 2, 4: 2}) {
		t.Errorf("requests upstream by number: %v", seen)
	}
	time.Sleep(100 * time.Millisecond)
	if out := p.out.String(); strings.Contains(out, "DATA RACE") {
		t.Errorf("a race:\n%s", out)
	}
}
