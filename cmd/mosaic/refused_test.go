package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// refusedInputs are requests refused before any location, each with the
// access log fields NGINX 1.22 writes for it: "$request" $status
// $body_bytes_sent (0 for a header timeout, something for an error page).
// A connection that sends nothing is not logged.
var refusedInputs = []struct {
	name, send string
	request    string
	status     string
	page       bool
}{
	{"bad host", "GET / HTTP/1.1\r\nHost: ..\r\n\r\n", `"GET / HTTP/1.1"`, "400", true},
	{"garbage", "GARBAGE\r\n\r\n", `"GARBAGE"`, "400", true},
	{"header cut short", "GET /x HTTP/1.1\r\nHost: a", `"GET /x HTTP/1.1"`, "408", false},
	{"request line cut short", "GET /y", `"GET /y"`, "408", false},
	{"nothing", "", "", "", false},
}

// sendRefused sends each input on its own connection and waits for the
// server to close it (after the header timeout for the cut ones).
func sendRefused(t *testing.T, port int) {
	t.Helper()
	for _, in := range refusedInputs {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if in.send != "" {
			if _, err := c.Write([]byte(in.send)); err != nil {
				t.Fatal(err)
			}
		}
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				break
			}
		}
		c.Close()
	}
}

// refusedLines reads the access log, in the format "$request" $status
// $body_bytes_sent, waiting for n lines.
func refusedLines(t *testing.T, path string, n int) []string {
	t.Helper()
	var lines []string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		lines = strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) >= n && lines[0] != "" {
			break
		}
	}
	return lines
}

// Requests refused before a location (by the request rules, or by the
// HTTP/1 reader: malformed, or a header not whole within
// client_header_timeout) are written to the access log as NGINX writes
// them: 400 with the page sent, 408 with nothing, $request the line as
// received; a connection that sent nothing leaves no line. Checked
// against Debian's NGINX on the same inputs when it is installed.
func TestRefusedRequestsLogged(t *testing.T) {
	t.Parallel()
	const format = `log_format refused '$request|$status|$body_bytes_sent';`
	check := func(t *testing.T, name string, lines []string) {
		t.Helper()
		want := 0
		for _, in := range refusedInputs {
			if in.status == "" {
				continue
			}
			if want >= len(lines) {
				t.Fatalf("%s: %d access log lines, want a line for %q: %q", name, len(lines), in.name, lines)
			}
			f := strings.Split(lines[want], "|")
			if len(f) != 3 || `"`+f[0]+`"` != in.request || f[1] != in.status || (f[2] != "0") != in.page {
				t.Errorf("%s: %s logged as %q, want %s %s (page sent: %v)", name, in.name, lines[want], in.request, in.status, in.page)
			}
			want++
		}
		if len(lines) != want {
			t.Errorf("%s: %d access log lines, want %d: %q", name, len(lines), want, lines)
		}
	}

	dir := t.TempDir()
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`error_log %[1]s/error.log info;
		http { %[2]s access_log %[1]s/access.log refused; client_header_timeout 1s;
			server { listen 127.0.0.1:{port}; root %[1]s; } }`, dir, format), port)
	sendRefused(t, port)
	check(t, "mosaic", refusedLines(t, filepath.Join(dir, "access.log"), 4))

	if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
		t.Log("no /usr/sbin/nginx: not compared with NGINX")
		return
	}
	ndir := t.TempDir()
	nport := freePort(t)
	startNGINX(t, ndir, fmt.Sprintf(`%[2]s access_log %[1]s/access.log refused; client_header_timeout 1s;
		server { listen 127.0.0.1:%[3]d; root %[1]s; }`, ndir, format, nport), nport)
	sendRefused(t, nport)
	check(t, "nginx", refusedLines(t, filepath.Join(ndir, "access.log"), 4))
}

// A request the HTTP/1 reader refuses (a malformed request line, a line
// over large_client_header_buffers, a header over them: NGINX's 494) is
// answered in the address's default server as NGINX answers it: its
// "add_header ... always" fields go out (HSTS on a bad request), its
// error_page for 400 or 414 applies, a header too large goes out as 400
// with NGINX's explanation and only "error_page 494" replaces it, and the
// access log has the status the client got, with no method for a line
// refused and GET for a request an error page answered.
func TestRefusalAnsweredInServerAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "www/e400.html"), "page for 400\n")
		writeFile(t, filepath.Join(dir, who, "www/e494.html"), "page for 494\n")
	}
	second := map[string]int{"m": freePort(t), "n": freePort(t)}
	third := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`log_format st '$status|$request_method';
			access_log %[1]s/%[2]s/access.log st;
			large_client_header_buffers 2 1k;
			server { listen 127.0.0.1:%[3]d; root %[1]s/%[2]s/www;
				add_header X-Server srv always; add_header Strict-Transport-Security max-age=60 always;
				add_header X-Plain plain;
				location / { add_header X-Location loc always; } }
			server { listen 127.0.0.1:%[4]d; root %[1]s/%[2]s/www; add_header X-Server srv always;
				error_page 400 404 414 /e400.html; }
			server { listen 127.0.0.1:%[5]d; root %[1]s/%[2]s/www; error_page 494 /e494.html; error_page 400 /e400.html; }`,
			dir, sub, port, second[who], third[who])
	})
	long := "/" + strings.Repeat("a", 1300)
	big := "X-Big: " + strings.Repeat("b", 1300) + "\r\n"
	requests := []string{
		"GET /a b HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET " + long + " HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\n" + big + "\r\n",
		"HEAD / HTTP/1.1\r\nHost: x\r\n" + big + "\r\n",
		"GET / HTTP/2.0\r\nHost: x\r\n\r\n",
		// Not refused: an error page asked for with GET, which the log
		// says too.
		"POST /missing HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
	}
	answer := func(port int, req string) string {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: strings.Fields(req)[0]})
		if err != nil {
			return "no answer: " + err.Error()
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := "error page"
		if strings.HasPrefix(string(b), "page for") {
			body = strings.TrimSpace(string(b))
		}
		if len(b) == 0 {
			body = "no body"
		}
		return fmt.Sprintf("%d close=%v X-Server=%q HSTS=%q X-Plain=%q X-Location=%q %s", resp.StatusCode, resp.Close,
			resp.Header.Get("X-Server"), resp.Header.Get("Strict-Transport-Security"), resp.Header.Get("X-Plain"),
			resp.Header.Get("X-Location"), body)
	}
	n := 0
	for i, ports := range [][2]int{{mport, nport}, {second["m"], second["n"]}, {third["m"], third["n"]}} {
		for _, req := range requests {
			m, ng := answer(ports[0], req), answer(ports[1], req)
			if m != ng {
				t.Errorf("server %d, %.40q: mosaic %s, nginx %s", i+1, req, m, ng)
			}
			n++
		}
	}
	sameAccessLogs(t, dir, n)
}

// An error_page to a named location cannot take a request whose line was
// refused: it has no URI, and NGINX answers 500 ("empty URI in redirect
// to named location") where mosaic ran the location with neither method
// nor URI, and a proxy there sent the upstream a request line without
// them. A header refused after a valid line keeps its URI and goes there.
func TestRefusalToNamedLocationAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "origin %s %s\n", r.Method, r.RequestURI)
	}))
	defer origin.Close()
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`log_format st '$status|$request_method';
			access_log %[1]s/%[2]s/access.log st;
			large_client_header_buffers 2 1k;
			server { listen 127.0.0.1:%[3]d; error_page 400 414 494 @up;
				location @up { proxy_pass http://%[4]s; } }`,
			dir, sub, port, strings.TrimPrefix(origin.URL, "http://"))
	})
	requests := []string{
		"GARBAGE\r\n\r\n",
		"GET /a b HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /" + strings.Repeat("a", 1300) + " HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /q HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n",
	}
	answer := func(port int, req string) string {
		resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
		return fmt.Sprintf("%d %s", resp.StatusCode, strings.ReplaceAll(body, "nginx/1.22.1", "mosaic"))
	}
	for _, req := range requests {
		if m, n := answer(mport, req), answer(nport, req); m != n {
			t.Errorf("%.30q: mosaic %q, nginx %q", req, m, n)
		}
	}
	sameAccessLogs(t, dir, len(requests))
}

// $request_length of a refused request counts, as NGINX's, the lines
// that came whole before the one refused: none for a request line
// refused, and never the header of the connection's previous request.
func TestRefusedRequestLengthAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "www/index.html"), "index\n")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`log_format st '$status $request_length';
			access_log %[1]s/%[2]s/access.log st;
			large_client_header_buffers 2 1k;
			server { listen 127.0.0.1:%[3]d; root %[1]s/%[2]s/www; }`, dir, sub, port)
	})
	big := "X-Big: " + strings.Repeat("b", 1300) + "\r\n"
	requests := []string{
		"GARBAGE\r\n\r\n",
		"GET / HTTP/2.0\r\nHost: x\r\n\r\n",
		"GET /a b HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /q?x=1 HTTP/1.1\r\nHost: x\r\n" + big + "\r\n",
		"GET /q HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
		// The second request's header is too large after the first's,
		// longer, went whole.
		"GET /?" + strings.Repeat("a", 500) + " HTTP/1.1\r\nHost: x\r\n\r\nGET /q HTTP/1.1\r\nHost: x\r\n" + big + "\r\n",
	}
	for _, req := range requests {
		sendUntilClosed(t, mport, req)
		sendUntilClosed(t, nport, req)
	}
	sameAccessLogs(t, dir, len(requests)+1)
}

// A request that gets no answer (its header not whole in time: 408; its
// client gone in the middle of it: 400) is logged as NGINX logs it, with
// nothing sent, even where error_page names a page for its status: NGINX
// closes such a request without running the page, which could proxy or
// redirect for a client that is not there.
func TestUnansweredRefusalRunsNoErrorPage(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "www/e.html"), "page\n")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`log_format st '$request|$status|$body_bytes_sent|$uri';
			access_log %[1]s/%[2]s/access.log st; client_header_timeout 1s;
			server { listen 127.0.0.1:%[3]d; root %[1]s/%[2]s/www; error_page 400 408 =200 /e.html; }`,
			dir, sub, port)
	})
	for _, port := range []int{mport, nport} {
		timedOut, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer timedOut.Close()
		_, _ = timedOut.Write([]byte("GET /slow HTTP/1.1\r\nHost: a\r\n"))
		gone, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = gone.Write([]byte("GET /gone HTTP/1.1\r\nHo"))
		time.Sleep(100 * time.Millisecond)
		gone.Close()
	}
	want := []string{"GET /gone HTTP/1.1|400|0|/gone", "GET /slow HTTP/1.1|408|0|/slow"}
	mlog := refusedLines(t, filepath.Join(dir, "mosaic/access.log"), len(want))
	nlog := refusedLines(t, filepath.Join(dir, "nginx/access.log"), len(want))
	if m, n := strings.Join(mlog, "\n"), strings.Join(nlog, "\n"); m != n || m != strings.Join(want, "\n") {
		t.Errorf("access log: mosaic %q, nginx %q, want %q", mlog, nlog, want)
	}
}

// NGINX has read a request's method once a space ends it, before it
// refuses the rest of the line (malformed, too long, HTTP/2.0): a HEAD
// then gets the page's header alone, though $request_method stays empty
// as for any line refused. A line that never got past its method gets
// the whole page.
func TestRefusedHeadLineAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`log_format st '$status|$body_bytes_sent|$request_method';
			access_log %[1]s/%[2]s/access.log st;
			large_client_header_buffers 2 1k;
			server { listen 127.0.0.1:%[3]d; }`, dir, sub, port)
	})
	requests := []string{
		"HEAD /a b HTTP/1.1\r\nHost: x\r\n\r\n",
		"HEAD / HTTP/2.0\r\nHost: x\r\n\r\n",
		"HEAD /" + strings.Repeat("a", 1300) + " HTTP/1.1\r\nHost: x\r\n\r\n",
		"HEAD\r\n\r\n",
	}
	answer := func(port int, req string) string {
		status, rest, _ := strings.Cut(sendUntilClosed(t, port, req), "\r\n")
		if _, body, _ := strings.Cut(rest, "\r\n\r\n"); body != "" {
			return status[:12] + " page"
		}
		return status[:12] + " header alone"
	}
	// The page's size differs by NGINX's Server line in it.
	sized := func(lines []string) string {
		for i, l := range lines {
			f := strings.Split(l, "|")
			if len(f) == 3 && f[1] != "0" {
				f[1] = "page"
			}
			lines[i] = strings.Join(f, "|")
		}
		return strings.Join(lines, "\n")
	}
	for _, req := range requests {
		if m, n := answer(mport, req), answer(nport, req); m != n {
			t.Errorf("%.30q: mosaic %s, nginx %s", req, m, n)
		}
	}
	mlog := refusedLines(t, filepath.Join(dir, "mosaic/access.log"), len(requests))
	nlog := refusedLines(t, filepath.Join(dir, "nginx/access.log"), len(requests))
	if sized(mlog) != sized(nlog) {
		t.Errorf("access log: mosaic %q, nginx %q", mlog, nlog)
	}
}

// sameAccessLogs waits for lines lines in the access logs that startBoth's
// servers write in dir (mosaic/access.log, nginx/access.log) and reports
// where they differ.
func sameAccessLogs(t *testing.T, dir string, lines int) {
	t.Helper()
	mlog := refusedLines(t, filepath.Join(dir, "mosaic/access.log"), lines)
	nlog := refusedLines(t, filepath.Join(dir, "nginx/access.log"), lines)
	if strings.Join(mlog, "\n") != strings.Join(nlog, "\n") {
		t.Errorf("access log: mosaic %q, nginx %q", mlog, nlog)
	}
}

// sendUntilClosed sends req on a connection of its own to port and
// returns what the server sent until it closed the connection (within 5
// seconds).
func sendUntilClosed(t *testing.T, port int, req string) string {
	t.Helper()
	return sendUntilClosedOn(t, req, func() (net.Conn, error) { return net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)) })
}

// sendUntilClosedOn is sendUntilClosed on a connection that dial makes
// (a TLS one, with the server name it sends).
func sendUntilClosedOn(t *testing.T, req string, dial func() (net.Conn, error)) string {
	t.Helper()
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	return string(b)
}

// A request refused in its header is answered, as NGINX answers it, in
// the server chosen when the refusal came: by a valid Host read before
// the refused line (or an absolute-form target's host), which a second
// Host, a bad field, a header too large, a bad Content-Length do not
// change; else, over TLS, by the server name of the handshake; else the
// default server. Its add_header, error_page and access log apply, with
// $host and the fields that came before the refused one.
func TestRefusalServerChosenAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	for _, who := range []string{"nginx", "mosaic"} {
		for _, name := range []string{"a", "b"} {
			writeFile(t, filepath.Join(dir, who, name, "e.html"), "page of "+name+"\n")
		}
	}
	tlsPort := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		srv := func(name string) string {
			return fmt.Sprintf(`server { listen 127.0.0.1:%[3]d; listen 127.0.0.1:%[4]d ssl; server_name %[5]s;
				ssl_certificate %[6]s; ssl_certificate_key %[7]s; root %[1]s/%[2]s/%[5]s;
				add_header X-Server %[5]s always; error_page 400 /e.html; }`,
				dir, sub, port, tlsPort[who], name, cert, key)
		}
		return fmt.Sprintf(`log_format st '$server_name|$host|$http_host|$http_x_a|$status|$request_method|$scheme';
			access_log %[1]s/%[2]s/access.log st;
			large_client_header_buffers 2 1k;
			%[3]s %[4]s`, dir, sub, srv("a"), srv("b"))
	})
	big := "X-Big: " + strings.Repeat("b", 1300) + "\r\n"
	requests := []string{
		"GET / HTTP/1.1\r\nHost: b\r\nX-A: 1\r\nBad Name: y\r\n\r\n",
		"GET / HTTP/1.1\r\nX-A: 1\r\nBad Name: y\r\nHost: b\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: b\r\nHost: a\r\n\r\n",
		"GET http://b/ HTTP/1.1\r\nHost: a\r\nBad Name: y\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: b\r\nContent-Length: x\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: b\r\n" + big + "\r\n",
		"GET / HTTP/1.1\r\nHost: B:80\r\nX-A: 2\r\nIf-Match: 1\r\nIf-Match: 2\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: b..\r\nBad Name: y\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: c\r\nBad Name: y\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nBad Name: y\r\n\r\n",
		"GET / HTTP/1.1\r\nX-A: 3\r\n\r\n",
		"get / HTTP/1.1\r\nHost: b\r\n\r\n",
		"GARBAGE\r\n\r\n",
		"GET /" + strings.Repeat("a", 1300) + " HTTP/1.1\r\nHost: b\r\n\r\n",
		"GET /../x HTTP/1.1\r\nHost: b\r\nX-A: 4\r\n\r\n",
	}
	// The status line, the server's field and its page, or the built-in
	// page's title.
	answer := func(raw string) string {
		head, body, _ := strings.Cut(raw, "\r\n\r\n")
		status, fields, _ := strings.Cut(head, "\r\n")
		server := ""
		for _, f := range strings.Split(fields, "\r\n") {
			if strings.HasPrefix(f, "X-Server:") {
				server = f
			}
		}
		if !strings.HasPrefix(body, "page of") {
			body, _, _ = strings.Cut(body, "</title>")
		}
		return status + " " + server + " " + strings.TrimSpace(body)
	}
	dials := []struct {
		name string
		dial func(port int) (net.Conn, error)
	}{
		{"plain", func(port int) (net.Conn, error) { return net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)) }},
		{"TLS without a name", func(port int) (net.Conn, error) {
			return tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true})
		}},
		{"TLS for b", func(port int) (net.Conn, error) {
			return tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true, ServerName: "b"})
		}},
	}
	n := 0
	for _, d := range dials {
		ports := [2]int{mport, nport}
		if d.name != "plain" {
			ports = [2]int{tlsPort["m"], tlsPort["n"]}
		}
		for _, req := range requests {
			var got [2]string
			for i, port := range ports {
				got[i] = answer(sendUntilClosedOn(t, req, func() (net.Conn, error) { return d.dial(port) }))
			}
			if got[0] != got[1] {
				t.Errorf("%s, %.50q: mosaic %q, nginx %q", d.name, req, got[0], got[1])
			}
			n++
		}
	}
	sameAccessLogs(t, dir, n)
}

// TestRefusedHeaderFieldsCapAsNGINX: a header refused while read (a line
// too long) is logged with the fields that came before, which NGINX has
// counted against its server's max_headers (here 2000), not the default
// 1000: the 1202nd field, X-Z, is in $http_x_z.
func TestRefusedHeaderFieldsCapAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`log_format st '$status|$host|$http_x_a|$http_x_z';
			access_log %[1]s/%[2]s/access.log st;
			server { listen 127.0.0.1:%[3]d; server_name a.test; max_headers 2000; }`, dir, sub, port)
	})
	req := "GET / HTTP/1.1\r\nHost: a.test\r\nX-A: 1\r\n" + strings.Repeat("X:\n", 1199) + "X-Z: 2\r\n" +
		"X-Long: " + strings.Repeat("l", 9000) + "\r\n\r\n"
	for _, port := range []int{mport, nport} {
		if got, _, _ := strings.Cut(sendUntilClosed(t, port, req), "\r\n"); got != "HTTP/1.1 400 Bad Request" {
			t.Errorf("port %d: %q, want 400 (494)", port, got)
		}
	}
	sameAccessLogs(t, dir, 1)
}

// A request refused in its header after a valid request line keeps the
// line's version, read as NGINX reads it: HTTP/1.01 is 1.1 and HTTP/1.10
// is 1.10, so gzip_http_version 1.1 compresses the page that
// "error_page 400 =200" gives it. mosaic read a refused line's version
// with net/http's parser, one digit each, which took both for 0.0 and
// sent that page uncompressed; and split a line with spaces NGINX takes
// around its version at each space, which left the version unread.
func TestRefusedLineVersionAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; gzip on; gzip_min_length 1; gzip_types text/plain;
			error_page 400 =200 /e; location = /e { return 200 "refused $server_protocol\n"; } }`, port)
	})
	gzipped := func(port int, req string) string {
		head, _, _ := strings.Cut(sendUntilClosed(t, port, req), "\r\n\r\n")
		status, _, _ := strings.Cut(head, "\r\n")
		return fmt.Sprintf("%s, gzip %v", status, strings.Contains(strings.ToLower(head), "\r\ncontent-encoding: gzip"))
	}
	for _, version := range []string{"HTTP/1.1", "HTTP/1.01", "HTTP/1.10", "HTTP/1.00", " HTTP/1.1  "} {
		req := "GET / " + version + "\r\nHost: a\r\nAccept-Encoding: gzip\r\nContent-Length: x\r\n\r\n"
		if m, n := gzipped(mport, req), gzipped(nport, req); m != n {
			t.Errorf("%s: mosaic %s, nginx %s", version, m, n)
		}
	}
}

// TestSpacedLineRequestAsNGINX: NGINX's $request is the request line as
// it came, several spaces between its parts included, in the request and
// in its subrequests (add_after_body here). mosaic, which serves such a
// line since it takes its spaces, joined its parts with one space each.
func TestSpacedLineRequestAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; default_type text/html;
			location = /x { add_after_body /after; return 200 "[$request] [$server_protocol]\n"; }
			location = /after { return 200 "after [$request]\n"; } }`, port)
	})
	for _, line := range []string{
		"GET /x?a=1 HTTP/1.1",
		"GET  /x?a=1  HTTP/1.1",
		"GET /x?a=1   HTTP/1.1  ",
		"GET   http://a/x?a=1 HTTP/1.0 ",
	} {
		req := line + "\r\nHost: a\r\nConnection: close\r\n\r\n"
		m, n := sendUntilClosed(t, mport, req), sendUntilClosed(t, nport, req)
		// The lines of the two bodies, whatever their chunks.
		mv, nv := bracketed(m), bracketed(n)
		if mv != nv || !strings.Contains(nv, "["+line+"]") {
			t.Errorf("%q: mosaic %q, nginx %q", line, m, n)
		}
	}
}

// bracketed is the lines of answer that hold a "[", one after another.
func bracketed(answer string) string {
	var out []string
	for l := range strings.Lines(answer) {
		if strings.Contains(l, "[") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// TestRefusedSpacedLineAsNGINX: a request line with several spaces
// between its parts, or spaces after its version, is one NGINX takes; a
// request refused later in its header keeps that line's target and
// version, as $request_uri and $server_protocol on its error page. mosaic
// split such a refused line at each single space, which left the target
// empty and the version unread (0.0).
func TestRefusedSpacedLineAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; error_page 400 =200 /e;
			location = /e { return 200 "[$request_uri] [$server_protocol] [$request_method] [$args]\n"; } }`, port)
	})
	for _, line := range []string{
		"GET /x?a=1 HTTP/1.1",
		"GET  /x?a=1  HTTP/1.1",
		"GET /x?a=1 HTTP/1.1  ",
		"GET   http://a/x?a=1   HTTP/1.0 ",
	} {
		req := line + "\r\nHost: a\r\nContent-Length: x\r\n\r\n"
		m, n := sendUntilClosed(t, mport, req), sendUntilClosed(t, nport, req)
		_, mb, _ := strings.Cut(m, "\r\n\r\n")
		_, nb, _ := strings.Cut(n, "\r\n\r\n")
		if mb != nb || !strings.HasPrefix(m, "HTTP/1.1 200") || !strings.HasPrefix(n, "HTTP/1.1 200") {
			t.Errorf("%q: mosaic %q, nginx %q", line, m, n)
		}
	}
}
