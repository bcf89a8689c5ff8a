package http1

import (
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
)

// parseOK parses head and fails the test if parseHead refuses it.
func parseOK(t *testing.T, head string) *http.Request {
	t.Helper()
	var r http.Request
	if err := parseHead(head, &r, new(reqMem), fieldCap{}); err != nil {
		t.Fatalf("parseHead(%q) = %v, want success", head, err)
	}
	return &r
}

func TestParseHeadValid(t *testing.T) {
	tests := []struct {
		name  string
		head  string
		check func(t *testing.T, r *http.Request)
	}{
		{
			name: "origin form",
			head: "GET /a/b?x=1&y=2 HTTP/1.1\r\nHost: example.com\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Method != "GET" || r.RequestURI != "/a/b?x=1&y=2" {
					t.Errorf("Method, RequestURI = %q, %q", r.Method, r.RequestURI)
				}
				if r.URL.Path != "/a/b" || r.URL.RawQuery != "x=1&y=2" || r.URL.Host != "" {
					t.Errorf("URL = %#v", r.URL)
				}
				if r.Proto != "HTTP/1.1" || r.ProtoMajor != 1 || r.ProtoMinor != 1 {
					t.Errorf("Proto = %q %d.%d", r.Proto, r.ProtoMajor, r.ProtoMinor)
				}
				if r.Host != "example.com" {
					t.Errorf("Host = %q", r.Host)
				}
				if _, ok := r.Header["Host"]; ok {
					t.Errorf("Host left in Header: %v", r.Header)
				}
				if r.ContentLength != 0 || r.TransferEncoding != nil || r.Close {
					t.Errorf("ContentLength, TransferEncoding, Close = %d, %v, %v", r.ContentLength, r.TransferEncoding, r.Close)
				}
			},
		},
		{
			// NGINX reads the version's numbers, not one digit each:
			// HTTP/1.01 is 1.1, HTTP/1.10 is 1.10, kept as sent.
			name: "minor version of two digits",
			head: "GET / HTTP/1.01\r\nHost: a\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Proto != "HTTP/1.01" || r.ProtoMajor != 1 || r.ProtoMinor != 1 || r.Close {
					t.Errorf("Proto = %q %d.%d, Close = %v", r.Proto, r.ProtoMajor, r.ProtoMinor, r.Close)
				}
			},
		},
		{
			name: "minor version 10",
			head: "GET / HTTP/1.10\r\nHost: a\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Proto != "HTTP/1.10" || r.ProtoMajor != 1 || r.ProtoMinor != 10 || r.Close {
					t.Errorf("Proto = %q %d.%d, Close = %v", r.Proto, r.ProtoMajor, r.ProtoMinor, r.Close)
				}
			},
		},
		{
			name: "bare LF line endings",
			head: "GET / HTTP/1.1\nHost: a\nX-One: 1\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Host != "a" || r.Header.Get("X-One") != "1" || r.URL.Path != "/" {
					t.Errorf("Host, X-One, Path = %q, %q, %q", r.Host, r.Header.Get("X-One"), r.URL.Path)
				}
			},
		},
		{
			name: "last line without line ending",
			head: "GET / HTTP/1.1\r\nHost: a\r\nAccept: */*",
			check: func(t *testing.T, r *http.Request) {
				if got := r.Header["Accept"]; !reflect.DeepEqual(got, []string{"*/*"}) {
					t.Errorf("Accept = %q", got)
				}
			},
		},
		{
			name: "absolute form host wins",
			head: "GET http://origin.example:8080/p?q=1 HTTP/1.1\r\nHost: other.example\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Host != "origin.example:8080" {
					t.Errorf("Host = %q, want origin.example:8080", r.Host)
				}
				if r.URL.Scheme != "http" || r.URL.Host != "origin.example:8080" || r.URL.Path != "/p" || r.URL.RawQuery != "q=1" {
					t.Errorf("URL = %#v", r.URL)
				}
				if r.RequestURI != "http://origin.example:8080/p?q=1" {
					t.Errorf("RequestURI = %q", r.RequestURI)
				}
			},
		},
		{
			name: "IPv6 host",
			head: "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Host != "[::1]:8080" {
					t.Errorf("Host = %q", r.Host)
				}
			},
		},
		{
			name: "asterisk form",
			head: "OPTIONS * HTTP/1.1\r\nHost: a\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Method != "OPTIONS" || r.RequestURI != "*" || r.URL.Path != "*" {
					t.Errorf("Method, RequestURI, Path = %q, %q, %q", r.Method, r.RequestURI, r.URL.Path)
				}
			},
		},
		{
			name: "CONNECT authority form",
			head: "CONNECT proxy.example:443 HTTP/1.1\r\nHost: proxy.example:443\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Method != "CONNECT" || r.RequestURI != "proxy.example:443" {
					t.Errorf("Method, RequestURI = %q, %q", r.Method, r.RequestURI)
				}
				if r.URL.Host != "proxy.example:443" || r.URL.Path != "" || r.URL.Scheme != "" {
					t.Errorf("URL = %#v", r.URL)
				}
				if r.Host != "proxy.example:443" {
					t.Errorf("Host = %q", r.Host)
				}
			},
		},
		{
			name: "CONNECT to IP addresses",
			head: "CONNECT [2001:db8::1]:443 HTTP/1.1\r\nHost: a\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Host != "[2001:db8::1]:443" || r.URL.Host != r.Host {
					t.Errorf("Host, URL.Host = %q, %q", r.Host, r.URL.Host)
				}
				if r := parseOK(t, "CONNECT 192.0.2.1:443 HTTP/1.1\r\nHost: a\r\n"); r.Host != "192.0.2.1:443" {
					t.Errorf("IPv4: Host = %q", r.Host)
				}
			},
		},
		{
			name: "CONNECT with a path",
			head: "CONNECT /_goRPC_ HTTP/1.1\r\nHost: a\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.URL.Path != "/_goRPC_" || r.URL.Host != "" {
					t.Errorf("URL = %#v", r.URL)
				}
			},
		},
		{
			name: "canonical names, repeated headers, OWS",
			head: "GET / HTTP/1.1\r\nhost: a\r\nx-forwarded-for: 1.1.1.1\r\naccept-ENCODING:  \tgzip \t\r\nX-Forwarded-For:2.2.2.2\r\nx-empty:\r\nX-Inner: a  b\r\n",
			check: func(t *testing.T, r *http.Request) {
				want := http.Header{
					"X-Forwarded-For": {"1.1.1.1", "2.2.2.2"},
					"Accept-Encoding": {"\tgzip \t"}, // NGINX trims spaces, not tabs
					"X-Empty":         {""},
					"X-Inner":         {"a  b"},
				}
				if !reflect.DeepEqual(r.Header, want) {
					t.Errorf("Header = %q, want %q", r.Header, want)
				}
				if r.Host != "a" {
					t.Errorf("Host = %q", r.Host)
				}
			},
		},
		{
			name: "a name NGINX takes as invalid, kept as sent",
			head: "GET / HTTP/1.1\r\nHost: a\r\nx(A): 1\r\nX@a\xc3\xa9: 2\r\n",
			check: func(t *testing.T, r *http.Request) {
				want := http.Header{"x(A)": {"1"}, "X@a\xc3\xa9": {"2"}}
				if !reflect.DeepEqual(r.Header, want) {
					t.Errorf("Header = %q, want %q", r.Header, want)
				}
			},
		},
		{
			name: "obs-text in value",
			head: "GET / HTTP/1.1\r\nHost: a\r\nX-Name: caf\xc3\xa9\r\n",
			check: func(t *testing.T, r *http.Request) {
				if got := r.Header.Get("X-Name"); got != "caf\xc3\xa9" {
					t.Errorf("X-Name = %q", got)
				}
			},
		},
		{
			name: "Content-Length",
			head: "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 1234\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.ContentLength != 1234 || r.TransferEncoding != nil {
					t.Errorf("ContentLength, TransferEncoding = %d, %v", r.ContentLength, r.TransferEncoding)
				}
				if r.Header.Get("Content-Length") != "1234" {
					t.Errorf("Content-Length header = %q", r.Header["Content-Length"])
				}
			},
		},
		{
			name: "Content-Length zero",
			head: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.ContentLength != 0 {
					t.Errorf("ContentLength = %d", r.ContentLength)
				}
			},
		},
		{
			name: "chunked",
			head: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\nTrailer: X-Sum\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.ContentLength != -1 || !reflect.DeepEqual(r.TransferEncoding, []string{"chunked"}) {
					t.Errorf("ContentLength, TransferEncoding = %d, %q", r.ContentLength, r.TransferEncoding)
				}
				if _, ok := r.Header["Transfer-Encoding"]; ok {
					t.Errorf("Transfer-Encoding left in Header: %v", r.Header)
				}
				if r.Header.Get("Trailer") != "X-Sum" {
					t.Errorf("Trailer = %q", r.Header["Trailer"])
				}
			},
		},
		{
			name: "HTTP/1.0 closes by default",
			head: "GET / HTTP/1.0\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Proto != "HTTP/1.0" || r.ProtoMajor != 1 || r.ProtoMinor != 0 {
					t.Errorf("Proto = %q %d.%d", r.Proto, r.ProtoMajor, r.ProtoMinor)
				}
				if !r.Close || r.Host != "" {
					t.Errorf("Close, Host = %v, %q", r.Close, r.Host)
				}
			},
		},
		{
			name: "HTTP/1.0 keep-alive",
			head: "GET / HTTP/1.0\r\nHost: a\r\nConnection: Keep-Alive\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Close {
					t.Error("Close = true, want false")
				}
			},
		},
		{
			name: "HTTP/1.1 Connection close",
			head: "GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade, close\r\n",
			check: func(t *testing.T, r *http.Request) {
				if !r.Close {
					t.Error("Close = false, want true")
				}
			},
		},
		{
			name: "HTTP/1.1 other Connection options keep alive",
			head: "GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Close {
					t.Error("Close = true, want false")
				}
			},
		},
		{
			name: "later HTTP/1.x minor version",
			head: "GET / HTTP/1.2\r\nHost: a\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Proto != "HTTP/1.2" || r.ProtoMajor != 1 || r.ProtoMinor != 2 {
					t.Errorf("Proto = %q %d.%d", r.Proto, r.ProtoMajor, r.ProtoMinor)
				}
			},
		},
		{
			name: "extension method",
			head: "PURGE /x HTTP/1.1\r\nHost: a\r\n",
			check: func(t *testing.T, r *http.Request) {
				if r.Method != "PURGE" || r.Host != "a" {
					t.Errorf("Method, Host = %q, %q", r.Method, r.Host)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, parseOK(t, tt.head))
		})
	}
}

func TestParseHeadInvalid(t *testing.T) {
	const host = "Host: a\r\n"
	tests := []struct {
		name   string
		head   string
		status int
	}{
		{"obs-fold", "GET / HTTP/1.1\r\n" + host + "X-A: 1\r\n  continued\r\n", 400},
		{"obs-fold with tab", "GET / HTTP/1.1\r\n" + host + "X-A: 1\r\n\tcontinued\r\n", 400},
		{"space before colon", "GET / HTTP/1.1\r\n" + host + "X-A : 1\r\n", 400},
		{"space before colon on Host", "GET / HTTP/1.1\r\nHost : a\r\n", 400},
		{"space in name", "GET / HTTP/1.1\r\n" + host + "X A: 1\r\n", 400},
		{"control byte in name", "GET / HTTP/1.1\r\n" + host + "X\x01A: 1\r\n", 400},
		{"DEL in name", "GET / HTTP/1.1\r\n" + host + "X\x7fA: 1\r\n", 400},
		{"empty name", "GET / HTTP/1.1\r\n" + host + ": 1\r\n", 400},
		// Without a colon the line is a name (NGINX's parse): with a
		// space in it, refused; as Host or a framing field, empty.
		{"no colon, a space in the name", "GET / HTTP/1.1\r\n" + host + "X-A 1\r\n", 400},
		{"no colon, a tab in the name", "GET / HTTP/1.1\r\n" + host + "X-A\t1\r\n", 400},
		{"no colon on Host", "GET / HTTP/1.1\r\nHost\r\n", 400},
		{"no colon on Host in HTTP/1.0", "GET / HTTP/1.0\r\nHost\r\n", 400},
		{"empty Host in HTTP/1.0", "GET / HTTP/1.0\r\nHost:  \r\n", 400},
		{"no colon on a second Host", "GET / HTTP/1.1\r\n" + host + "Host\r\n", 400},
		{"no colon on Content-Length", "POST / HTTP/1.1\r\n" + host + "Content-Length\r\n", 400},
		{"no colon on Transfer-Encoding", "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding\r\n", 501},
		{"NUL in value", "GET / HTTP/1.1\r\n" + host + "X-A: a\x00b\r\n", 400},
		{"CR in value", "GET / HTTP/1.1\r\n" + host + "X-A: a\rb\r\n", 400},
		{"missing Host in 1.1", "GET / HTTP/1.1\r\nX-A: 1\r\n", 400},
		{"two Host headers", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n", 400},
		{"two equal Host headers", "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n", 400},
		{"Host with slash", "GET / HTTP/1.1\r\nHost: a/b\r\n", 400},
		{"Host with space", "GET / HTTP/1.1\r\nHost: a b\r\n", 400},
		// Hosts and CONNECT targets that FuzzParserMatchesNetHTTP found
		// http1 accepting and net/http refusing.
		// NGINX's ngx_http_validate_host: '@', '#' and bytes above 0x7f
		// pass (TestHostFieldBytesAsNGINX in cmd/mosaic), these do not
		// ("a..b" and ":80" the server's reqrule.Host refuses).
		{"Host with a slash", "GET / HTTP/1.1\r\nHost: a.example/b\r\n", 400},
		{"Host with a space", "GET / HTTP/1.1\r\nHost: a@b c\r\n", 400},
		{"Host with DEL", "GET / HTTP/1.1\r\nHost: a@b\x7f\r\n", 400},
		{"CONNECT with percent-encoding", "CONNECT a%41.example:443 HTTP/1.1\r\nHost: a\r\n", 400},
		{"CONNECT with an IPv6 zone", "CONNECT [fe80::1%25en0]:443 HTTP/1.1\r\nHost: a\r\n", 400},
		{"CONNECT without a host", "CONNECT :A HTTP/1.0\r\n", 400},
		{"CONNECT with a port that is not a number", "CONNECT a.example:https HTTP/1.1\r\nHost: a\r\n", 400},
		{"CONNECT without a port", "CONNECT a.example HTTP/1.1\r\nHost: a\r\n", 400},
		{"CONNECT to an IPv4 address in brackets", "CONNECT [0]:443 HTTP/1.1\r\nHost: a\r\n", 400},
		{"CONNECT with a bracket in a name", "CONNECT a]b:443 HTTP/1.1\r\nHost: a\r\n", 400},
		{"conflicting Content-Length", "POST / HTTP/1.1\r\n" + host + "Content-Length: 5\r\nContent-Length: 6\r\n", 400},
		// NGINX refuses a second framing line even when it agrees.
		{"repeated equal Content-Length", "POST / HTTP/1.1\r\n" + host + "Content-Length: 5\r\nContent-Length: 5\r\n", 400},
		{"Content-Length list", "POST / HTTP/1.1\r\n" + host + "Content-Length: 5, 5\r\n", 400},
		{"negative Content-Length", "POST / HTTP/1.1\r\n" + host + "Content-Length: -1\r\n", 400},
		{"signed Content-Length", "POST / HTTP/1.1\r\n" + host + "Content-Length: +5\r\n", 400},
		{"hex Content-Length", "POST / HTTP/1.1\r\n" + host + "Content-Length: 0x10\r\n", 400},
		{"empty Content-Length", "POST / HTTP/1.1\r\n" + host + "Content-Length:\r\n", 400},
		{"huge Content-Length", "POST / HTTP/1.1\r\n" + host + "Content-Length: 99999999999999999999\r\n", 400},
		{"Content-Length and Transfer-Encoding", "POST / HTTP/1.1\r\n" + host + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", 400},
		{"Transfer-Encoding and Content-Length", "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", 400},
		{"Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\n" + host + "Transfer-Encoding: chunked\r\n", 400},
		{"Transfer-Encoding gzip", "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip\r\n", 501},
		// NGINX answers the coding it does not know before it looks at
		// Content-Length, but an invalid Content-Length before either.
		{"Transfer-Encoding gzip and Content-Length", "POST / HTTP/1.1\r\n" + host + "Content-Length: 5\r\nTransfer-Encoding: gzip\r\n", 501},
		{"Transfer-Encoding gzip and invalid Content-Length", "POST / HTTP/1.1\r\n" + host + "Content-Length: x\r\nTransfer-Encoding: gzip\r\n", 400},
		{"Transfer-Encoding gzip, chunked", "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip, chunked\r\n", 501},
		{"Transfer-Encoding twice", "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", 400},
		{"empty line", "\r\n", 400},
		{"request line without version", "GET /\r\n" + host, 400},
		{"request line with one word", "GET\r\n" + host, 400},
		{"request line with extra word", "GET / HTTP/1.1 x\r\n" + host, 400},
		// Spaces NGINX takes (TestParseLineSpaces), but no other blank,
		// nor anything after the version's spaces.
		{"tab in request line", "GET\t/ HTTP/1.1\r\n" + host, 400},
		{"tab after version", "GET / HTTP/1.1\t\r\n" + host, 400},
		{"space before method", " GET / HTTP/1.1\r\n" + host, 400},
		{"word after version's spaces", "GET / HTTP/1.1  x\r\n" + host, 400},
		{"CR after version's space", "GET / HTTP/1.1 \r\r\n" + host, 400},
		{"spaces, no version", "GET /  \r\n" + host, 400},
		{"spaces, HTTP/10.0", "GET  /  HTTP/10.0\r\n" + host, 505},
		// NGINX refuses a version it does not support before it reads
		// on: a bare CR or a word after it does not make that a 400.
		{"HTTP/2.0 then a bare CR", "GET / HTTP/2.0\rHost: a\r\n", 505},
		{"HTTP/10.0 then a word", "GET / HTTP/10.0\r x\r\n" + host, 505},
		{"HTTP/2.0 then a word, bad method", "get / HTTP/2.0 x\r\n" + host, 400},
		{"HTTP/1.1 then a bare CR", "GET / HTTP/1.1\rHost: a\r\n", 400},
		{"HTTP/2.0 then a word, bad target", "GET /\x01 HTTP/2.0\rHost: a\r\n", 400},
		{"bad method token", "G(T / HTTP/1.1\r\n" + host, 400},
		{"bad version", "GET / HTTX/1.1\r\n" + host, 400},
		{"lower-case version", "GET / http/1.1\r\n" + host, 400},
		{"tab in target", "GET /a\tb HTTP/1.1\r\n" + host, 400},
		{"NUL in target", "GET /a\x00b HTTP/1.1\r\n" + host, 400},
		{"DEL in target", "GET /a\x7fb HTTP/1.1\r\n" + host, 400},
		{"unparsable target", "GET %zz HTTP/1.1\r\n" + host, 400},
		{"absolute form with bad host", "GET http://a|b/ HTTP/1.1\r\n" + host, 400},
		// NGINX's request line takes letters, digits, '.' and '-' in a
		// host, where its Host field takes more.
		{"absolute form with underscore in host", "GET http://a_b/ HTTP/1.1\r\n" + host, 400},
		{"absolute form with escape in host", "GET http://a%41/ HTTP/1.1\r\n" + host, 400},
		{"absolute form with port not decimal", "GET http://a:8a/ HTTP/1.1\r\n" + host, 400},
		{"absolute form with underscore and HTTP/3.0", "GET http://a_b/ HTTP/3.0\r\n" + host, 400},
		{"HTTP/2.0", "GET / HTTP/2.0\r\n" + host, 505},
		// NGINX's parser: a major version starting with 0 is malformed,
		// and 10 is over 1 as soon as its second digit is read.
		{"HTTP/0.9", "GET / HTTP/0.9\r\n" + host, 400},
		{"HTTP/10.0", "GET / HTTP/10.0\r\n" + host, 505},
		{"HTTP/1", "GET / HTTP/1\r\n" + host, 400},
		{"HTTP/1.1000", "GET / HTTP/1.1000\r\n" + host, 400},
		// A method or target NGINX refuses is read before the version.
		{"HTTP/3.0 lowercase method", "get / HTTP/3.0\r\n" + host, 400},
		{"HTTP/3.0 asterisk", "GET * HTTP/3.0\r\n" + host, 400},
		// HTTP/2's preface, where Limits.PriorKnowledge is off: NGINX's
		// listen without http2 refuses its target first.
		{"HTTP/2 preface", "PRI * HTTP/2.0\r\n", 400},
		{"HTTP/3.0", "GET / HTTP/3.0\r\n" + host, 505},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r http.Request
			err := parseHead(tt.head, &r, new(reqMem), fieldCap{})
			var re *requestError
			if !errors.As(err, &re) {
				t.Fatalf("parseHead(%q) = %v, want a *requestError", tt.head, err)
			}
			if re.status != tt.status {
				t.Errorf("parseHead(%q) status = %d (%s), want %d", tt.head, re.status, re.msg, tt.status)
			}
			if re.Error() == "" || strings.ContainsAny(re.Error(), "\r\n") {
				t.Errorf("error text = %q", re.Error())
			}
		})
	}
}

// TestParseLineSpaces: NGINX's request line takes several spaces before
// the target and before the version, and spaces after the version, which
// its $server_protocol keeps; mosaic refused them with 400. spaced: the
// parts joined by a space each are not the line, which spacedLine keeps
// for $request (NGINX logs the line as it came; mosaic joined the parts).
func TestParseLineSpaces(t *testing.T) {
	for _, c := range []struct {
		line, target, proto string
		spaced              bool
	}{
		{"GET  /a  HTTP/1.1", "/a", "HTTP/1.1", true},
		{"GET /a HTTP/1.1 ", "/a", "HTTP/1.1 ", false},
		{"POST   /a?b   HTTP/1.0   ", "/a?b", "HTTP/1.0   ", true},
		{"GET  http://a.test/x HTTP/1.01 ", "http://a.test/x", "HTTP/1.01 ", true},
		{"GET /a HTTP/1.1", "/a", "HTTP/1.1", false},
	} {
		var r http.Request
		head := c.line + "\r\nHost: a\r\nX: y\r\n"
		if err := parseHead(head, &r, new(reqMem), fieldCap{}); err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if r.RequestURI != c.target || r.Proto != c.proto || r.ProtoMajor != 1 || r.Header.Get("X") != "y" {
			t.Errorf("%q: target %q, proto %q %d.%d, X %q", c.line, r.RequestURI, r.Proto, r.ProtoMajor, r.ProtoMinor, r.Header.Get("X"))
		}
		if got := fieldsOf(head); got != "Host: a\r\nX: y\r\n" {
			t.Errorf("%q: fields %q", c.line, got)
		}
		want := ""
		if c.spaced {
			want = c.line
		}
		if got := spacedLine(head, &r); got != want {
			t.Errorf("%q: spacedLine %q, want %q", c.line, got, want)
		}
	}
}

// TestParseHeadCRsBeforeLineEnd: NGINX's header parse skips CRs before
// a field line's CR LF ("X: v\r\r\n" is "X: v"), where mosaic refused
// the CR as a value's control byte; a CR elsewhere, and after the
// request line or as the empty line, is still refused. The header lines
// kept for the proxy hold no CR either.
func TestParseHeadCRsBeforeLineEnd(t *testing.T) {
	var r http.Request
	head := "GET / HTTP/1.1\r\nHost: a\r\r\nX: v \r\r\r\nY\r\r\n"
	if err := parseHead(head, &r, new(reqMem), fieldCap{}); err != nil {
		t.Fatalf("%q: %v", head, err)
	}
	if r.Host != "a" || r.Header.Get("X") != "v" || len(r.Header["Y"]) != 1 || r.Header["Y"][0] != "" {
		t.Errorf("%q: Host %q, header %q", head, r.Host, r.Header)
	}
	lines := header.NewLines(fieldsOf(head), r.Header)
	for {
		name, _, value, _, ok := lines.Next()
		if !ok {
			break
		}
		if strings.ContainsRune(name+value, '\r') {
			t.Errorf("%q: line %q: %q", head, name, value)
		}
	}
	for _, bad := range []string{
		"GET / HTTP/1.1\r\r\nHost: a\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\n\r\r\n",
		// obs-fold stays refused when CRs end the line folded.
		"GET / HTTP/1.1\r\nHost: a\r\nX: a\r\r\n b\r\n",
	} {
		if err := parseHead(bad, new(http.Request), new(reqMem), fieldCap{}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// The lines the parse takes are the lines the fields cap counts:
	// CRs before CR LF do not take a line past it.
	fc := fieldCap{min: 1, of: func(string, *tls.ConnectionState) FieldRule { return FieldRule{Max: 2} }}
	if err := parseHead(head, new(http.Request), new(reqMem), fc); err != errTooManyFields {
		t.Errorf("%q, cap 2: %v, want %v", head, err, errTooManyFields)
	}
}

// TestParseHeadFieldWithoutColon: a field line without a colon is, as
// NGINX takes it, a name with an empty value, counted toward max_headers;
// an invalid name among them marks the header's names odd.
func TestParseHeadFieldWithoutColon(t *testing.T) {
	r := parseOK(t, "GET / HTTP/1.1\r\nHost: a\r\nX-A\r\nx-b\nX-A: 2\r\n")
	if got := r.Header["X-A"]; !reflect.DeepEqual(got, []string{"", "2"}) {
		t.Errorf("X-A = %q, want \"\" then \"2\"", got)
	}
	if got, ok := r.Header["X-B"]; !ok || len(got) != 1 || got[0] != "" {
		t.Errorf("X-B = %q (present %v), want one empty value", got, ok)
	}
	var odd http.Request
	mem := new(reqMem)
	if err := parseHead("GET / HTTP/1.1\r\nHost: a\r\nX@A\r\n", &odd, mem, fieldCap{}); err != nil || !mem.oddNames {
		t.Errorf("X@A without a colon: err %v, odd names %v; want served, odd", err, mem.oddNames)
	}
	// Five fields, two without a colon, pass a cap of 5; a sixth does not.
	head := "GET / HTTP/1.1\r\nHost: a\r\nX\r\nY\r\nZ: 1\r\nW\r\n"
	if err := parseHead(head, new(http.Request), new(reqMem), fieldCap{min: 5}); err != nil {
		t.Errorf("5 fields, cap 5: %v", err)
	}
	if err := parseHead(head+"V\r\n", new(http.Request), new(reqMem), fieldCap{min: 5}); err != errTooManyFields {
		t.Errorf("6 fields, cap 5: %v, want %v", err, errTooManyFields)
	}
}

// TestFieldsCountedAsKept: a field counts toward the cap when the rule's
// names keep it, as NGINX counts what ignore_invalid_headers and
// underscores_in_headers let through, under the rule of the server a
// Host field chose for the lines after it.
func TestFieldsCountedAsKept(t *testing.T) {
	const head = "GET / HTTP/1.1\r\nX_A: 1\r\nX.B: 2\r\nX-C\r\nHost: a\r\nX_D: 4\r\n"
	plain := reqrule.HeaderNames{IgnoreInvalid: true}
	under := reqrule.HeaderNames{IgnoreInvalid: true, Underscores: true}
	for _, c := range []struct {
		first, host reqrule.HeaderNames
		max         int
		refused     bool
	}{
		{plain, plain, 2, false},                // X-C, Host
		{under, plain, 2, true},                 // X_A, X-C, Host
		{plain, under, 2, true},                 // X-C, Host, X_D
		{plain, under, 3, false},                // the same
		{reqrule.HeaderNames{}, plain, 3, true}, // X_A, X.B, X-C
		{reqrule.HeaderNames{}, plain, 4, false},
	} {
		fc := fieldCap{min: 1, of: func(host string, _ *tls.ConnectionState) FieldRule {
			if host == "a" {
				return FieldRule{Max: c.max, Names: c.host}
			}
			return FieldRule{Max: c.max, Names: c.first}
		}}
		err := parseHead(head, new(http.Request), new(reqMem), fc)
		if refused := err == errTooManyFields; refused != c.refused || err != nil && !refused {
			t.Errorf("%+v then %+v, cap %d: %v, want refused %v", c.first, c.host, c.max, err, c.refused)
		}
	}
}

// BenchmarkParseHead parses a browser-like request header.
func BenchmarkParseHead(b *testing.B) {
	head := "GET /static/app.js?v=3 HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\n" +
		"Accept: */*\r\nAccept-Language: en-GB,en;q=0.9\r\nAccept-Encoding: gzip, deflate, br, zstd\r\n" +
		"Referer: https://www.example.com/\r\nConnection: keep-alive\r\nCookie: session=abc123; theme=dark"
	b.ReportAllocs()
	for b.Loop() {
		var r http.Request
		if err := parseHead(head, &r, new(reqMem), fieldCap{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The fast path for plain targets gives the URL url.ParseRequestURI
// gives, or declines.
func TestPlainTarget(t *testing.T) {
	targets := []string{"/", "/a/b.js", "/a?", "/a?b=c&d", "/a?b?c", "//x/y", "/a%20b", "/a b", "/é", "/a#f",
		"/a;b=c", "/~u/$&+,:;=@", "/a'b", "/(x)", "/*", "/a!b", "/a?%zz"}
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "/aZ09-._~!$&'()*+,;=:@%?#[]<>\"{}|\\^` \x7f\x80"
	for range 20000 {
		b := []byte{'/'}
		for n := r.IntN(12); n > 0; n-- {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		targets = append(targets, string(b))
	}
	for _, target := range targets {
		refused := strings.ContainsFunc(target, func(c rune) bool { return c <= ' ' || c == 0x7f })
		shape, ok := scanTarget(target)
		if ok == refused {
			t.Errorf("%q: scanTarget ok %v, want %v", target, ok, !refused)
		}
		if refused {
			continue // parseHead refuses these before it parses the target
		}
		var got url.URL
		if !plainTarget(target, shape, &got) {
			continue
		}
		want, err := url.ParseRequestURI(target)
		if err != nil {
			t.Errorf("%q: fast path accepts, url.ParseRequestURI: %v", target, err)
			continue
		}
		if got != *want {
			t.Errorf("%q: fast path %#v, url.ParseRequestURI %#v", target, got, *want)
		}
	}
}

// TestValidValue checks validValue against its definition: a value
// holds no NUL, CR or LF, the bytes NGINX refuses in one. Every byte goes at each place of
// values that the word test reads in one, two and three words and a
// tail, alone and after a tab (which sends the rest to the byte loop),
// among bytes from 0x80 up (which the word test must not take for
// control bytes).
func TestValidValue(t *testing.T) {
	eachPlacedByte(func(c byte, v string) {
		want := c != 0 && c != '\r' && c != '\n'
		if got := validValue(v); got != want {
			t.Errorf("validValue(%q) = %v", v, got)
		}
	})
}

// TestAppendFieldLineBreaks checks appendField against its definition:
// the value as given, but for each CR and LF, which become spaces, so
// that no value starts a line of its own. Its word test lets through the
// values without a byte below 0x0e, among them those with bytes from
// 0x80 up (that the word test must not take for low ones).
func TestAppendFieldLineBreaks(t *testing.T) {
	eachPlacedByte(func(_ byte, v string) { checkAppendField(t, v) })
	for _, v := range []string{"", "\r\n", "a\r\n\r\nX-Injected: 1", "\n\n\n\n\n\n\n\n\r"} {
		checkAppendField(t, v)
	}
}

// FuzzAppendField compares appendField and its word test with their
// definitions on any value: a CR or LF the word test let through would
// start a header line of the handler's choosing (response splitting).
func FuzzAppendField(f *testing.F) {
	for _, v := range []string{"", "text/html", "a\rb", "0123456789abcdef\n", "0123456789abcde\r", "\x80\xff\x8d\x8a\x0e\x0d"} {
		f.Add(v)
	}
	f.Fuzz(checkAppendField)
}

// checkAppendField checks appendField's line for v against its
// definition, and mayBreakLine against its own: exactly the values with
// a byte below 0x0e, so that no value without one pays for the byte loop
// (the output alone would not tell such a miss).
func checkAppendField(t *testing.T, v string) {
	want := "X: " + strings.NewReplacer("\r", " ", "\n", " ").Replace(v) + "\r\n"
	if got := string(appendField(nil, "X", v)); got != want {
		t.Errorf("appendField(%q) = %q, want %q", v, got, want)
	}
	low := strings.ContainsFunc(v, func(r rune) bool { return r < 0x0e })
	if got := mayBreakLine(v); got != low {
		t.Errorf("mayBreakLine(%q) = %v, want %v", v, got, low)
	}
}

// BenchmarkAppendField writes the fields of a usual static answer, the
// values appendField's word test lets through without the byte loop
// (cachegrind of -test.benchtime 100000x less 1x: its instructions).
func BenchmarkAppendField(b *testing.B) {
	fields := [][2]string{{"Server", "mosaic"}, {"Date", "Mon, 07 Dec 2026 01:33:30 GMT"},
		{"Content-Type", "application/json"}, {"Content-Length", "2048"},
		{"Last-Modified", "Sun, 06 Dec 2026 06:25:00 GMT"}, {"Connection", "keep-alive"},
		{"ETag", `"6933c0a4-800"`}, {"Accept-Ranges", "bytes"}}
	h := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		h = h[:0]
		for _, f := range fields {
			h = appendField(h, f[0], f[1])
		}
	}
}

// eachPlacedByte calls f with every byte c at each place of values that
// a test of eight bytes at a time reads in one, two and three words and a
// tail, among bytes of each kind such a test must tell apart ('a', from
// 0x80 up, a tab), and after a tab and a word.
func eachPlacedByte(f func(c byte, v string)) {
	for c := range 256 {
		for _, fill := range []byte{'a', 0x80, 0xff, '\t'} {
			for n := range 20 {
				for at := range n {
					v := []byte(strings.Repeat(string([]byte{fill}), n))
					v[at] = byte(c)
					f(byte(c), string(v))
				}
			}
		}
		f(byte(c), "\tabcdefgh"+string([]byte{byte(c)})+"ijklmnop")
	}
}

// A repeated field is found whether its name is among the first eight
// (compared with the names noted on the stack) or after them (looked up
// in the map): its values are kept in order, and a second line of a
// field that may appear once is refused.
func TestParseHeadRepeatedFields(t *testing.T) {
	for _, distinct := range []int{2, 7, 8, 9, 12} {
		head := "GET / HTTP/1.1\r\nHost: a\r\n"
		for i := range distinct {
			head += fmt.Sprintf("X-F%d: %d\r\n", i, i)
		}
		last := fmt.Sprintf("X-F%d", distinct-1)
		r := parseOK(t, head+"X-F0: again\r\n"+last+": again\r\n")
		if got := r.Header["X-F0"]; len(got) != 2 || got[0] != "0" || got[1] != "again" {
			t.Errorf("%d names: X-F0 %q", distinct, got)
		}
		if got := r.Header[last]; len(got) != 2 || got[1] != "again" {
			t.Errorf("%d names: %s %q", distinct, last, got)
		}
		if len(r.Header) != distinct {
			t.Errorf("%d names: %d in the map", distinct, len(r.Header))
		}
		var r2 http.Request
		err := parseHead(head+"Authorization: a\r\nAuthorization: b\r\n", &r2, new(reqMem), fieldCap{})
		var re *requestError
		if !errors.As(err, &re) || re.status != http.StatusBadRequest {
			t.Errorf("%d names: a second Authorization gave %v", distinct, err)
		}
	}
}

// TestParseLength checks the digit loop against strconv.ParseUint(s, 10,
// 63), which it stands for: signs, spaces, underscores, prefixes and
// empty values refused, leading zeros taken, and the values around 18
// digits (the loop's limit) and 2^63 (ParseUint's).
func TestParseLength(t *testing.T) {
	values := []string{"", "0", "00", "7", "2048", "0002048", "+1", "-1", " 1", "1 ", "1_000", "0x10", "1e3", "١",
		"999999999999999999", "1000000000000000000", "000000000000000000001",
		"9223372036854775807", "9223372036854775808", "18446744073709551616", "99999999999999999999"}
	for c := range 256 {
		values = append(values, "12"+string([]byte{byte(c)})+"4")
	}
	for _, s := range values {
		n, ok := parseLength(s)
		want, err := strconv.ParseUint(s, 10, 63)
		if ok != (err == nil) || ok && n != int64(want) {
			t.Errorf("parseLength(%q) = %d, %v; ParseUint gives %d, %v", s, n, ok, want, err)
		}
	}
}

// TestTargetEveryByte puts every byte at every place of a target of each
// form, in place of the byte there and before it, and checks parseHead's
// verdict and URL against their definitions: a control byte, or a space
// inside the target (at its ends, it is one more separator), refuses the
// request; otherwise the URL is
// url.ParseRequestURI's, and the request is refused where that refuses
// the target, or where NGINX's request line refuses an absolute-form
// target's scheme or host. parseLine's refusal and the URL's fast path
// share one scan of the target (scanTarget), which this holds to both.
func TestTargetEveryByte(t *testing.T) {
	for _, tc := range []struct{ method, target string }{
		{"GET", "/a/b.js?x=1&y=%20#f"},
		{"GET", "http://h.example:80/p%2Fq?z#w"},
		{"OPTIONS", "*"},
		{"CONNECT", "h.example:443"},
	} {
		for at := 0; at <= len(tc.target); at++ {
			for c := range 256 {
				b := byte(c)
				targets := []string{tc.target[:at] + string(b) + tc.target[at:]}
				if at < len(tc.target) {
					targets = append(targets, tc.target[:at]+string(b)+tc.target[at+1:])
				}
				for _, target := range targets {
					checkTarget(t, tc.method, target)
				}
			}
		}
	}
}

func checkTarget(t *testing.T, method, target string) {
	t.Helper()
	var r http.Request
	err := parseHead(method+" "+target+" HTTP/1.1\r\nHost: a.example\r\n", &r, &reqMem{}, fieldCap{})
	// Spaces at the target's ends are more of those that separate the
	// line's parts, as NGINX's line takes them: the target is between.
	target = strings.Trim(target, " ")
	if err == nil && r.RequestURI != target {
		t.Errorf("%s %q: target %q", method, target, r.RequestURI)
	}
	refused := strings.ContainsFunc(target, func(c rune) bool { return c <= ' ' || c == 0x7f })
	switch {
	case refused:
		if err == nil {
			t.Errorf("%s %q: accepted, want refused", method, target)
		}
	case method == http.MethodConnect && !strings.HasPrefix(target, "/"):
		if err == nil && (r.URL == nil || r.URL.Host != target) {
			t.Errorf("%s %q: URL %v, want the authority", method, target, r.URL)
		}
	default:
		want, werr := url.ParseRequestURI(target)
		switch {
		case werr != nil:
			if err == nil {
				t.Errorf("%s %q: accepted, url.ParseRequestURI: %v", method, target, werr)
			}
		case !strings.HasPrefix(target, "/") && strings.Contains(target, "://") && !lineAuthority(target):
			// NGINX's request line takes fewer bytes in a scheme and a
			// host than the URL parser (lineAuthority).
			if err == nil {
				t.Errorf("%s %q: accepted, NGINX's request line refuses it", method, target)
			}
		case want.Host != "" && !validHost(want.Host):
			if err == nil {
				t.Errorf("%s %q: accepted with host %q", method, target, want.Host)
			}
		case err != nil:
			t.Errorf("%s %q: %v, url.ParseRequestURI takes it", method, target, err)
		case r.URL.User.String() != want.User.String():
			t.Errorf("%s %q: user %v, want %v", method, target, r.URL.User, want.User)
		default:
			got, exp := *r.URL, *want
			got.User, exp.User = nil, nil
			if got != exp {
				t.Errorf("%s %q: URL %#v, want %#v", method, target, got, exp)
			}
		}
	}
}
