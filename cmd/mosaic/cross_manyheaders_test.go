package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Requests with many header fields, some names repeated both among the
// first eight names and after them, in other cases, names NGINX ignores
// (an underscore, a dot), and more names than the sorts' and the
// parser's small paths hold: pipelined on one HTTP/1.1
// connection over TLS and as concurrent HTTP/2 streams over TLS, to
// php-fpm (the HTTP_* parameters PHP is given), to an SCGI application
// (those it is given) and to a proxied upstream (the header lines it is
// sent), the answers are NGINX's.
func TestManyHeadersGatewaysOverTLSAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	writeFile(t, filepath.Join(dir, "www", "h.php"), `<?php $a = [];
foreach ($_SERVER as $k => $v) { if (strncmp($k, 'HTTP_', 5) == 0) { $a[$k] = $v; } }
ksort($a); foreach ($a as $k => $v) { echo $k, '=', $v, "\n"; }`)
	port := freePort(t)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(port), 2)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	origin := rawEcho(t)
	app := scgiApp(t, new(atomic.Int32))
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%[1]d ssl http2;
			ssl_certificate %[3]s; ssl_certificate_key %[4]s; root %[2]s/www; access_log off;
			location ~ \.php$ { include %[2]s/fastcgi.conf; fastcgi_pass %[5]s; }
			location /p/ { proxy_pass http://%[6]s; }
			location = /echo { scgi_param DOCUMENT_URI /echo; scgi_pass %[7]s; } }`,
			port, dir, cert, key, fpm.addr, origin, app)
	})
	// fields are the request's lines after Host, in the order sent.
	fields := func(i int) []string {
		f := []string{"User-Agent: t", "Accept: */*", "X-A: 1", "X-B: 2", "Accept: again",
			"X-C: 3", "X-D: 4", "X-E: 5", "X-F: 6", "X-G: 7", "x-a: late", "X-B: late",
			"Cookie: a=1", "X-H: 8", "Cookie: b=2", "X-N: " + strconv.Itoa(i), "X_Under: u", "X.Dot: d"}
		for j := range 20 {
			f = append(f, fmt.Sprintf("X-Many-%02d: %d", 20-j, j))
		}
		return append(f, "X-G: late")
	}
	paths := []string{"/h.php", "/p/a", "/h.php?x", "/p/b", "/echo"}
	h1 := func(port int) (out []string) {
		c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var reqs []string // HTTP/1.1: the upstreams get the client's order and case
		for i, p := range paths {
			reqs = append(reqs, fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a\r\n%s\r\n\r\n", p, strings.Join(fields(i), "\r\n")))
		}
		return pipelineOn(t, c, reqs)
	}
	// h2's client sends the fields in no set order.
	h2 := func(port int) []string {
		tr := &http.Transport{ForceAttemptHTTP2: true, DialTLSContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}}}
			return d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(port))
		}}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr, Timeout: 20 * time.Second}
		out := make([]string, len(paths))
		done := make(chan struct{})
		for i, p := range paths {
			go func() {
				defer func() { done <- struct{}{} }()
				req, _ := http.NewRequest("GET", "https://a"+p, nil)
				for _, f := range fields(i) {
					name, value, _ := strings.Cut(f, ": ")
					req.Header.Add(name, value)
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Errorf("port %d: %v", port, err)
					return
				}
				defer resp.Body.Close()
				if resp.ProtoMajor != 2 {
					t.Errorf("port %d: %s", port, resp.Proto)
				}
				body, _ := io.ReadAll(resp.Body)
				out[i] = resp.Status + "\n" + byName(string(body))
			}()
		}
		for range paths {
			<-done
		}
		return out
	}
	for _, c := range []struct {
		name string
		run  func(int) []string
	}{{"h1 pipelined", h1}, {"h2", h2}} {
		m, n := c.run(mport), c.run(nport)
		if !strings.Contains(n[0], "HTTP_X_MANY_01=19") || !strings.Contains(n[4], "HTTP_X_MANY_01=19") || !strings.Contains(strings.ToLower(n[1]), "x-many-01: 19") {
			t.Fatalf("%s: NGINX's answers are not as expected: %q", c.name, n)
		}
		for i := range n {
			if m[i] != n[i] {
				t.Errorf("%s, %s: mosaic\n%s\nnginx\n%s", c.name, paths[i], m[i], n[i])
			}
		}
	}
}

// byName puts the lines "name: value" of s in the order of their names,
// lowercased, keeping the order of the values of a name: over HTTP/2,
// mosaic sends a client's fields upstream sorted by name, in Go's
// canonical case, Go's server handing them over in a map only
// (proxy/README.md), where NGINX keeps the client's order, its names in
// lower case.
func byName(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if name, value, ok := strings.Cut(l, ": "); ok {
			lines[i] = strings.ToLower(name) + ": " + value
		}
	}
	slices.SortStableFunc(lines, func(a, b string) int {
		an, _, _ := strings.Cut(a, ":")
		bn, _, _ := strings.Cut(b, ":")
		return strings.Compare(an, bn)
	})
	return strings.Join(lines, "\n")
}
