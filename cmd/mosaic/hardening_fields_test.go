package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// TestManyHeaderFieldsAsNGINX: a request with a thousand header fields is
// served, one with a thousand and one is refused with NGINX's 400
// "Request Header Or Cookie Too Large" page and its connection closed,
// the request pipelined behind it unanswered, on a plain and a TLS
// listener, as Debian's NGINX 1.22.1 (max_headers, 1000 by default)
// does. The fields are tiny, so that ten thousand stay within the 32 KB
// of large_client_header_buffers, which bounded nothing else.
func TestManyHeaderFieldsAsNGINX(t *testing.T) {
	ports := startPlainTLS(t, "server_tokens off;")
	// A field of three bytes, "X:" and LF (NGINX takes a bare LF): ten
	// thousand of them, 30 KB, fit the header buffers.
	ask := func(fields int) string {
		return "GET /first HTTP/1.1\r\nHost: a.test\r\n" + strings.Repeat("X:\n", fields-1) +
			"\r\nGET /second HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
	}
	for _, fields := range []int{1000, 1001, 5000, 10000} {
		sameOverPlainTLS(t, ports, ask(fields), fmt.Sprintf("%d fields", fields))
	}
}

// startPlainTLS starts NGINX and mosaic each with one server on a plain
// and a TLS listener, answering "ok $uri" with the directives extra
// added, and returns their ports by who ("m", "n"): plain, TLS.
func startPlainTLS(t *testing.T, extra string) map[string][2]int {
	t.Helper()
	nginxPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	ports := map[string][2]int{}
	startBoth(t, dir, func(who string, port int) string {
		tp := freePort(t)
		ports[who] = [2]int{port, tp}
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; listen 127.0.0.1:%d ssl;
			ssl_certificate %s; ssl_certificate_key %s; %s
			location / { return 200 "ok $uri\n"; } }`, port, tp, cert, key, extra)
	})
	return ports
}

// sameOverPlainTLS sends req on a new connection to each server over each
// listener of startPlainTLS and reports where mosaic's answers
// (connAnswers) differ from NGINX's.
func sameOverPlainTLS(t *testing.T, ports map[string][2]int, req, what string) {
	t.Helper()
	for i, name := range []string{"plain", "TLS"} {
		m, n := connAnswers(t, ports["m"][i], i == 1, req), connAnswers(t, ports["n"][i], i == 1, req)
		if m != n {
			t.Errorf("%s over %s: mosaic %s, nginx %s", what, name, m, n)
		}
	}
}

// answerParts picks what connAnswers reports of a connection's answers.
var answerParts = regexp.MustCompile(`HTTP/1\.1 \d+|<title>[^<]*</title>|ok /\w+`)

// connAnswers writes req on a new connection to port, over TLS or not, and
// returns the status lines, error page titles and "ok /path" bodies that
// came back before the server closed the connection, and the error that
// ended the read where the server did not close it within 5 s.
func connAnswers(t *testing.T, port int, useTLS bool, req string) string {
	t.Helper()
	if useTLS {
		return connAnswersSNI(t, port, "", req)
	}
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	return headerAnswers(t, c, req)
}

// connAnswersSNI is connAnswers over TLS with sni as the server name
// ("" sends none).
func connAnswersSNI(t *testing.T, port int, sni, req string) string {
	t.Helper()
	c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{InsecureSkipVerify: true, ServerName: sni})
	if err != nil {
		t.Fatal(err)
	}
	return headerAnswers(t, c, req)
}

// headerAnswers is connAnswers on a connection made.
func headerAnswers(t *testing.T, c net.Conn, req string) string {
	t.Helper()
	defer c.Close()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil {
		return fmt.Sprintf("%q, then %v", answerParts.FindAllString(string(got), -1), err)
	}
	return fmt.Sprintf("%q", answerParts.FindAllString(string(got), -1))
}

// TestFramingFieldTabsAsNGINX: NGINX trims the spaces around a field's
// value but keeps a tab, so a Content-Length, Transfer-Encoding or Host
// with a tab before or after its value is refused (400, 501, 400) and
// the connection closed; mosaic, which took the tab for whitespace, read
// "Transfer-Encoding:\tchunked" as chunked and swallowed, as the body, a
// request that a front end reading the field as NGINX does sends as the
// next one. Spaces alone are trimmed by both. On plain and TLS listeners.
func TestFramingFieldTabsAsNGINX(t *testing.T) {
	ports := startPlainTLS(t, "")
	next := "GET /next HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
	chunked := "POST /first HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding:%s\r\n\r\n" +
		"5\r\nhello\r\n0\r\n\r\n" + next
	length := "POST /first HTTP/1.1\r\nHost: a.test\r\nContent-Length:%s\r\n\r\nhello" + next
	host := "GET /first HTTP/1.1\r\nHost:%s\r\n\r\n" + next
	for _, req := range []string{
		fmt.Sprintf(chunked, "\tchunked"), fmt.Sprintf(chunked, " chunked\t"), fmt.Sprintf(chunked, " \tchunked"),
		fmt.Sprintf(chunked, " chunked  "),
		fmt.Sprintf(length, "\t5"), fmt.Sprintf(length, " 5\t"), fmt.Sprintf(length, "  5 "),
		fmt.Sprintf(host, "\ta.test"), fmt.Sprintf(host, " a.test\t"), fmt.Sprintf(host, " a.test "),
	} {
		sameOverPlainTLS(t, ports, req, fmt.Sprintf("%q", req))
	}
}

// TestAbsoluteTargetUserinfoAsNGINX: an absolute-form target with
// userinfo is refused with 400, as NGINX refuses it, whatever server the
// part after the '@' names; without userinfo, and with an '@' in the
// path, it is served.
func TestAbsoluteTargetUserinfoAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; server_name a.test other.test;
			location / { return 200 "$host $request_uri\n"; } }`, port)
	})
	for _, target := range []string{"http://u@other.test/x", "http://u:pw@other.test:80/x",
		"http://@other.test/x", "http://other.test/x", "http://other.test/x@y"} {
		sameAnswer(t, mport, nport, "GET "+target+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// TestHeaderCountIgnoredNamesAsNGINX: NGINX counts toward max_headers
// only the fields it keeps. With ignore_invalid_headers on and
// underscores_in_headers off (the defaults) a name with a byte other
// than a letter, a digit or '-' is ignored and not counted, so a
// thousand fields and such names beside them are served; a thousand and
// one plain ones are still refused. (With the settings changed see
// TestHeaderCountNameSettingsAsNGINX.)
func TestHeaderCountIgnoredNamesAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; location / { return 200 "ok $uri\n"; } }`, port)
	})
	next := "GET /second HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
	// The 1001st field is counted once it has parsed well, before what
	// it means is looked at: a second Host there is 494, a NUL 400.
	for _, extra := range []string{"X_Y: 1\r\n", "X_Y: 1\r\nX.Z: 2\r\n", "X_Y: 1\r\nX: 2\r\n",
		"Host: b.test\r\n", "X: a\x00b\r\n", "X_Y: 1\r\nHost: b.test\r\n", "X: 1\r\nHost: b.test\r\n"} {
		req := "GET /first HTTP/1.1\r\nHost: a.test\r\n" + strings.Repeat("X:\n", 999) + extra + "\r\n" + next
		if m, n := connAnswers(t, mport, false, req), connAnswers(t, nport, false, req); m != n {
			t.Errorf("1000 fields and %q: mosaic %s, nginx %s", extra, m, n)
		}
	}
}

// TestMaxHeadersAsNGINX: max_headers, which Debian's NGINX 1.22.1 has
// from a security update, in http (2000) and overridden in the default
// server (5). NGINX checks each field against the server in force when
// it reads it: the default server's until a Host field (or an
// absolute-form target) chooses another, that one's after. Over HTTP/2
// :authority comes first, so the chosen server's value holds for every
// field; cookie crumbs do not count. Plain, TLS and HTTP/2 listeners.
func TestMaxHeadersAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	ports := map[string][3]int{} // who: plain, TLS, HTTP/2
	startBoth(t, dir, func(who string, port int) string {
		tp, hp := freePort(t), freePort(t)
		ports[who] = [3]int{port, tp, hp}
		return fmt.Sprintf(`max_headers 2000; server_tokens off;
			ssl_certificate %[4]s; ssl_certificate_key %[5]s;
			server { listen 127.0.0.1:%[1]d default_server; listen 127.0.0.1:%[2]d ssl default_server;
				listen 127.0.0.1:%[3]d http2 default_server;
				server_name def.test; max_headers 5; location / { return 200 "ok $uri\n"; } }
			server { listen 127.0.0.1:%[1]d; listen 127.0.0.1:%[2]d ssl; listen 127.0.0.1:%[3]d http2;
				server_name big.test; location / { return 200 "ok $uri\n"; } }`, port, tp, hp, cert, key)
	})
	xs := func(n int) string { return strings.Repeat("X:\n", n) }
	second := "\r\nGET /second HTTP/1.1\r\nHost: def.test\r\nConnection: close\r\n\r\n"
	for _, c := range []struct{ what, head string }{
		{"5 in def", "GET /first HTTP/1.1\r\nHost: def.test\r\n" + xs(4)},
		{"6 in def", "GET /first HTTP/1.1\r\nHost: def.test\r\n" + xs(5)},
		{"2000 in big", "GET /first HTTP/1.1\r\nHost: big.test\r\n" + xs(1999)},
		{"2001 in big", "GET /first HTTP/1.1\r\nHost: big.test\r\n" + xs(2000)},
		{"Host big 5th", "GET /first HTTP/1.1\r\n" + xs(4) + "Host: big.test\r\n" + xs(1000)},
		{"Host big 7th", "GET /first HTTP/1.1\r\n" + xs(6) + "Host: big.test\r\n"},
		{"absolute big", "GET http://big.test/first HTTP/1.1\r\n" + xs(10) + "Host: def.test\r\n"},
		{"Host def after 10", "GET /first HTTP/1.1\r\n" + xs(10) + "Host: def.test\r\n"},
	} {
		for i, name := range []string{"plain", "TLS"} {
			m := connAnswers(t, ports["m"][i], i == 1, c.head+second)
			n := connAnswers(t, ports["n"][i], i == 1, c.head+second)
			if m != n {
				t.Errorf("%s over %s: mosaic %s, nginx %s", c.what, name, m, n)
			}
		}
	}
	// TLS's server name chooses the server the fields before Host count
	// against: big.test's 2000, then def.test's 5 for the fields after.
	for _, c := range []struct{ what, head string }{
		{"SNI big, 10 before Host", "GET /first HTTP/1.1\r\n" + xs(10) + "Host: big.test\r\n"},
		{"SNI big, 10 then Host def", "GET /first HTTP/1.1\r\n" + xs(10) + "Host: def.test\r\n"},
		{"SNI big, Host def then 10", "GET /first HTTP/1.1\r\nHost: def.test\r\n" + xs(10)},
	} {
		m := connAnswersSNI(t, ports["m"][1], "big.test", c.head+second)
		n := connAnswersSNI(t, ports["n"][1], "big.test", c.head+second)
		if m != n {
			t.Errorf("%s: mosaic %s, nginx %s", c.what, m, n)
		}
	}
	h2 := &http2.Transport{AllowHTTP: true, DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
		return new(net.Dialer).DialContext(ctx, network, addr)
	}}
	defer h2.CloseIdleConnections()
	// Go's client adds User-Agent and Accept-Encoding, which count. Go's
	// server, whose header list counts 32 bytes a field beside its name
	// and value, is given room for the fields max_headers lets through:
	// it refused 1000 tiny fields with 431 before.
	for _, c := range []struct {
		host           string
		fields, crumbs int
	}{{"def.test", 3, 0}, {"def.test", 4, 0}, {"def.test", 3, 5}, {"big.test", 500, 0},
		{"big.test", 1998, 0}, {"big.test", 1999, 0}, {"big.test", 1998, 50}} {
		var got [2]string
		for i, who := range []string{"m", "n"} {
			req, err := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/h2", ports[who][2]), nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = c.host
			for j := range c.fields {
				req.Header.Set(fmt.Sprintf("X-%d", j), "a")
			}
			for j := range c.crumbs {
				req.Header.Add("Cookie", fmt.Sprintf("c%d=a", j))
			}
			resp, err := h2.RoundTrip(req)
			if err != nil {
				t.Fatalf("%s: %v", who, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got[i] = fmt.Sprintf("%d %q", resp.StatusCode, answerParts.FindAllString(string(b), -1))
		}
		if got[0] != got[1] {
			t.Errorf("HTTP/2, %s with %d fields and %d crumbs: mosaic %s, nginx %s", c.host, c.fields, c.crumbs, got[0], got[1])
		}
	}
}

// TestHeaderCountNameSettingsAsNGINX: NGINX counts toward max_headers the
// fields it keeps, so with underscores_in_headers on a name with '_'
// counts, and with ignore_invalid_headers off every name it takes (X.Z,
// X@Z, a name without a colon); each line against the settings of the
// server in force when it is read: the default server's until Host
// chooses another. Here the default server, u.test, keeps '_' names, and
// i.test keeps invalid ones; the others count neither.
func TestHeaderCountNameSettingsAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server_tokens off;
			server { listen 127.0.0.1:%[1]d default_server; server_name u.test; underscores_in_headers on;
				location / { return 200 "ok $uri\n"; } }
			server { listen 127.0.0.1:%[1]d; server_name i.test; ignore_invalid_headers off;
				location / { return 200 "ok $uri\n"; } }
			server { listen 127.0.0.1:%[1]d; server_name d.test; location / { return 200 "ok $uri\n"; } }`, port)
	})
	next := "GET /second HTTP/1.1\r\nHost: d.test\r\nConnection: close\r\n\r\n"
	xs := strings.Repeat("X:\n", 998)
	for _, c := range []struct{ host, extra string }{
		{"u.test", "X_Y: 1\r\nX_Z: 2\r\n"},
		{"u.test", "X.Y: 1\r\nX@Z: 2\r\n"},
		{"i.test", "X_Y: 1\r\nX_Z: 2\r\n"},
		{"i.test", "X.Y: 1\r\nX@Z\r\n"},
		{"d.test", "X_Y: 1\r\nX.Z: 2\r\n"},
		{"d.test", "X_Y: 1\r\nX-Z: 2\r\n"},
	} {
		// Host first: its server's settings count every line.
		req := "GET /first HTTP/1.1\r\nHost: " + c.host + "\r\n" + xs + c.extra + "\r\n" + next
		if m, n := connAnswers(t, mport, false, req), connAnswers(t, nport, false, req); m != n {
			t.Errorf("Host %s, 999 fields and %q: mosaic %s, nginx %s", c.host, c.extra, m, n)
		}
		// Host last: the default server's settings count the lines before it.
		req = "GET /first HTTP/1.1\r\n" + xs + c.extra + "Host: " + c.host + "\r\n\r\n" + next
		if m, n := connAnswers(t, mport, false, req), connAnswers(t, nport, false, req); m != n {
			t.Errorf("999 fields, %q, then Host %s: mosaic %s, nginx %s", c.extra, c.host, m, n)
		}
	}
}
