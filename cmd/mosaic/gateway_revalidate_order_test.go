package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/fastcgi"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/scgi"
	"github.com/mosaic-edge/mosaic/uwsgi"
)

// revalidAnswer is what the recording applications answer: cacheable for
// a second, with validators, the HTTP_* parameters they got in order as
// the body.
func revalidAnswer(names []string, values []string) string {
	var body strings.Builder
	for i, n := range names {
		if strings.HasPrefix(n, "HTTP_") {
			body.WriteString(n + "=" + values[i] + "\n")
		}
	}
	// Under /f850 the entry's Last-Modified is in RFC 850's obsolete
	// form: NGINX sends the time it read, as an IMF-fixdate.
	lm := "Sat, 01 Jan 2022 00:00:00 GMT"
	if i := slices.Index(names, "REQUEST_URI"); i >= 0 && values[i] == "/f850" {
		lm = "Saturday, 01-Jan-22 00:00:00 GMT"
	}
	return fmt.Sprintf("Cache-Control: max-age=1\r\nETag: \"e1\"\r\nLast-Modified: %s\r\n"+
		"Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", lm, body.Len(), body.String())
}

// fastcgiApp is a FastCGI application that answers one request a
// connection with answer (a CGI-style head and body) of the parameters
// it got, names and values in order.
func fastcgiApp(t *testing.T, answer func(names, values []string) string) string {
	t.Helper()
	return fastcgiSteps(t, func(names, values []string, stdout func(string)) {
		stdout(answer(names, values))
	})
}

// fastcgiSteps is fastcgiApp whose respond writes the answer in as many
// STDOUT records as it likes (stdout), when it likes.
func fastcgiSteps(t *testing.T, respond func(names, values []string, stdout func(string))) string {
	t.Helper()
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		c.SetDeadline(time.Now().Add(20 * time.Second))
		var params []byte
		var id uint16
		for {
			h, content, err := fastcgi.ReadRecord(br)
			if err != nil {
				return
			}
			id = h.RequestID
			if h.Type == 4 { // FCGI_PARAMS
				params = append(params, content...)
			}
			if h.Type == 5 && len(content) == 0 { // the end of FCGI_STDIN
				break
			}
		}
		pairs, err := fastcgi.ParsePairs(params)
		if err != nil {
			t.Errorf("FastCGI params: %v", err)
			return
		}
		var names, values []string
		for _, p := range pairs {
			names, values = append(names, p[0]), append(values, p[1])
		}
		record := func(typ byte, content []byte) {
			h := []byte{1, typ, 0, 0, 0, 0, 0, 0}
			binary.BigEndian.PutUint16(h[2:], id)
			binary.BigEndian.PutUint16(h[4:], uint16(len(content)))
			c.Write(append(h, content...))
		}
		respond(names, values, func(s string) { record(6, []byte(s)) }) // FCGI_STDOUT
		record(6, nil)
		record(3, make([]byte, 8)) // FCGI_END_REQUEST, complete
	}).Addr()
}

// uwsgiRecorder and scgiRecorder are fastcgiApp with revalidAnswer for
// uwsgi and SCGI.
func uwsgiRecorder(t *testing.T) string {
	t.Helper()
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		c.SetDeadline(time.Now().Add(20 * time.Second))
		p, err := uwsgi.ReadRequest(br)
		if err != nil {
			t.Errorf("uwsgi request: %v", err)
			return
		}
		var names, values []string
		for _, v := range p.Vars {
			names, values = append(names, v.Name), append(values, v.Value)
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\n"+revalidAnswer(names, values))
	}).Addr()
}

func scgiRecorder(t *testing.T) string {
	t.Helper()
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		c.SetDeadline(time.Now().Add(20 * time.Second))
		req, err := scgi.ReadRequest(br, 0)
		if err != nil {
			t.Errorf("SCGI request: %v", err)
			return
		}
		var names, values []string
		for _, v := range req.Vars {
			names, values = append(names, v.Name), append(values, v.Value)
		}
		io.WriteString(c, "Status: 200 OK\r\n"+revalidAnswer(names, values))
	}).Addr()
}

// TestGatewayRevalidationParamOrderAsNGINX: revalidating an expired
// entry (fastcgi_cache_revalidate and uwsgi_, scgi_), NGINX sends the
// entry's validators as HTTP_IF_MODIFIED_SINCE and HTTP_IF_NONE_MATCH
// parameters where its cache's parameters go, and the client's own
// conditionals not at all; the applications record the HTTP_*
// parameters in the order they came. An entry's Last-Modified in an
// obsolete form goes as the time NGINX read from it ($upstream_cache_
// last_modified), written again as an IMF-fixdate.
func TestGatewayRevalidationParamOrderAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	fcgi, uw, sc := fastcgiApp(t, revalidAnswer), uwsgiRecorder(t), scgiRecorder(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`fastcgi_cache_path %[1]s/%[2]s-f keys_zone=f:1m;
			uwsgi_cache_path %[1]s/%[2]s-u keys_zone=u:1m;
			scgi_cache_path %[1]s/%[2]s-s keys_zone=s:1m;
			server { listen 127.0.0.1:%[3]d; access_log off;
			location /f { include /etc/nginx/fastcgi_params; fastcgi_param HTTP_X_SET 1; fastcgi_pass %[4]s;
				fastcgi_cache f; fastcgi_cache_key $uri; fastcgi_cache_revalidate on; }
			location /u { include /etc/nginx/uwsgi_params; uwsgi_param HTTP_X_SET 1; uwsgi_pass %[5]s;
				uwsgi_cache u; uwsgi_cache_key $uri; uwsgi_cache_revalidate on; }
			location /s { include /etc/nginx/scgi_params; scgi_param HTTP_X_SET 1; scgi_pass %[6]s;
				scgi_cache s; scgi_cache_key $uri; scgi_cache_revalidate on; } }`, dir, who, port, fcgi, uw, sc)
	})
	ask := func(port int, path string) string {
		req := "GET " + path + " HTTP/1.1\r\nHost: a\r\nX-First: 1\r\nIf-None-Match: \"client\"\r\n" +
			"If-Modified-Since: Sun, 02 Jan 2022 00:00:00 GMT\r\nX-Last: 2\r\nConnection: close\r\n\r\n"
		resp, body, _ := rawResponse(t, port, req)
		return resp.Status + "\n" + body
	}
	paths := []string{"/f", "/f850", "/u", "/s"}
	var m1, n1 []string
	for _, p := range paths {
		m1, n1 = append(m1, ask(mport, p)), append(n1, ask(nport, p))
	}
	// The entries expire (as in TestCacheRevalidationHeaderOrderAsNGINX).
	time.Sleep(2100 * time.Millisecond)
	for i, p := range paths {
		m2, n2 := ask(mport, p), ask(nport, p)
		if !strings.Contains(n2, "HTTP_IF_NONE_MATCH=\"e1\"") {
			t.Fatalf("%s: NGINX did not revalidate:\n%s", p, n2)
		}
		if m1[i] != n1[i] || m2 != n2 {
			t.Errorf("%s: mosaic\n%s\n%s\nnginx\n%s\n%s", p, m1[i], m2, n1[i], n2)
		}
	}
}

// TestFastCGIHideHeaderAsNGINX: the fields FastCGI keeps from the client
// by default (Status, X-Accel-*) and with fastcgi_hide_header (Laravel's
// and Nextcloud's X-Powered-By), against NGINX, and what passes.
func TestFastCGIHideHeaderAsNGINX(t *testing.T) {
	nginxPath(t)
	app := fastcgiApp(t, func([]string, []string) string {
		return "Status: 201 Made\r\nX-Powered-By: PHP/8.2\r\nX-Accel-Charset: koi8-r\r\nX-Accel-Expires: 5\r\n" +
			"X-Accel-Other: o\r\nX-Pad: p\r\nServer: app\r\nDate: Sat, 01 Jan 2022 00:00:00 GMT\r\nX-Other: x\r\n" +
			"Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"
	})
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; access_log off;
			location / { fastcgi_pass %[2]s; }
			location /h { fastcgi_pass %[2]s; fastcgi_hide_header X-Powered-By; }
			location /p { fastcgi_pass %[2]s; fastcgi_pass_header X-Accel-Expires; } }`, port, app)
	})
	for _, path := range []string{"/a", "/h", "/p"} {
		req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		m, mb, _ := rawResponse(t, mport, req)
		n, nb, _ := rawResponse(t, nport, req)
		if ms, ns := m.Status+"\n"+shownHeader(m.Header)+"\n"+mb, n.Status+"\n"+shownHeader(n.Header)+"\n"+nb; ms != ns {
			t.Errorf("%s: mosaic\n%s\nnginx\n%s", path, ms, ns)
		}
		// The application's own Server and Date are not hidden for FastCGI.
		for _, k := range []string{"Server", "Date"} {
			if m.Header.Get(k) != n.Header.Get(k) {
				t.Errorf("%s: %s: mosaic %q, nginx %q", path, k, m.Header.Get(k), n.Header.Get(k))
			}
		}
	}
}
