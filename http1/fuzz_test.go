package http1

import (
	"bufio"
	"errors"
	"net/http"
	"net/textproto"
	"reflect"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/header"
)

var fuzzSeeds = []string{
	// Accepted.
	"GET / HTTP/1.1\r\nHost: example.com\r\n",
	"GET /a/b?x=1&y=2 HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: curl/8.0\r\nAccept: */*\r\n",
	"GET / HTTP/1.1\nHost: a\nX-One: 1\n",
	"GET http://origin.example/p?q HTTP/1.1\r\nHost: other\r\n",
	"OPTIONS * HTTP/1.1\r\nHost: a\r\n",
	"CONNECT proxy.example:443 HTTP/1.1\r\nHost: proxy.example:443\r\n",
	"POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\nContent-Type: text/plain\r\n",
	"POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\nContent-Length: 12\r\n",
	"POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n",
	"GET / HTTP/1.0\r\n",
	"GET / HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\nX-F: 1\r\nx-f:  2 \t\r\n",
	"GET / HTTP/1.1\r\nHost: [::1]:80\r\nX-Name: caf\xc3\xa9\r\n",
	"PURGE /x HTTP/1.1\r\nHost:\r\nPragma: no-cache\r\n",
	// Refused.
	"GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n  folded\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nX-A : 1\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nX(A): 1\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nX-A: a\x00b\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nX-A: a\rb\r\n",
	"GET / HTTP/1.1\r\nX-A: 1\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nAuthorization: a\r\nAuthorization: b\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n",
	"POST / HTTP/1.0\r\nHost: a\r\nTransfer-Encoding: chunked\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n",
	"GET / HTTP/2.0\r\nHost: a\r\n",
	"GET /\r\nHost: a\r\n",
	"GET /a\x00b HTTP/1.1\r\nHost: a\r\n",
	"GET http://a|b/ HTTP/1.1\r\nHost: a\r\n",
	"",
	"\r\n",
}

func FuzzParseHead(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, head string) {
		var r http.Request
		err := parseHead(head, &r, new(reqMem), fieldCap{})
		if err != nil {
			var re *requestError
			if !errors.As(err, &re) {
				t.Fatalf("parseHead(%q) = %v, not a *requestError", head, err)
			}
			switch re.status {
			case 400, 501, 505:
			default:
				t.Fatalf("parseHead(%q) status %d", head, re.status)
			}
			// What a refusal hands over: a host that chose a server is
			// a valid one, and a line refused hands over no field.
			if r.Host != "" && !validHost(r.Host) && !nginxHost(r.Host) {
				t.Fatalf("parseHead(%q) refused with host %q", head, r.Host)
			}
			if r.Method == "" && (r.Header != nil || r.Host != "") {
				t.Fatalf("parseHead(%q) refused its line with fields %q, host %q", head, r.Header, r.Host)
			}
			knownFields(head, fieldCap{})
			return
		}
		checkAccepted(t, head, &r)
		compareWithNetHTTP(t, head, &r)
	})
}

// checkAccepted checks what every request that parseHead accepts must
// satisfy.
func checkAccepted(t *testing.T, head string, r *http.Request) {
	t.Helper()
	if !header.IsToken(r.Method) {
		t.Errorf("parseHead(%q): method %q is not a token", head, r.Method)
	}
	if r.RequestURI == "" || strings.ContainsAny(r.RequestURI, " \r\n\x00") {
		t.Errorf("parseHead(%q): RequestURI %q", head, r.RequestURI)
	}
	if r.URL == nil {
		t.Fatalf("parseHead(%q): nil URL", head)
	}
	if r.ProtoMajor != 1 {
		t.Errorf("parseHead(%q): ProtoMajor %d", head, r.ProtoMajor)
	}
	for k, vs := range r.Header {
		// A name that is no token is one NGINX takes (and
		// ignore_invalid_headers may drop), kept as sent.
		if header.IsToken(k) && textproto.CanonicalMIMEHeaderKey(k) != k || !header.IsToken(k) && !nginxName(k) {
			t.Errorf("parseHead(%q): header name %q is not a canonical token", head, k)
		}
		if k == "Host" && r.URL.Host == "" {
			t.Errorf("parseHead(%q): Host left in Header of an origin-form request", head)
		}
		for _, v := range vs {
			if strings.ContainsAny(v, "\r\n\x00") {
				t.Errorf("parseHead(%q): header %s value %q has CR, LF or NUL", head, k, v)
			}
		}
	}
	if strings.ContainsAny(r.Host, " /\t\r\n\x00") {
		t.Errorf("parseHead(%q): Host %q has a space, slash or control", head, r.Host)
	}
	switch {
	case r.ContentLength == -1:
		if !reflect.DeepEqual(r.TransferEncoding, []string{"chunked"}) {
			t.Errorf("parseHead(%q): chunked body with TransferEncoding %q", head, r.TransferEncoding)
		}
		if _, ok := r.Header["Transfer-Encoding"]; ok {
			t.Errorf("parseHead(%q): Transfer-Encoding left in Header", head)
		}
		if _, ok := r.Header["Content-Length"]; ok {
			t.Errorf("parseHead(%q): chunked body with Content-Length", head)
		}
	case r.ContentLength < -1:
		t.Errorf("parseHead(%q): ContentLength %d", head, r.ContentLength)
	case r.TransferEncoding != nil:
		t.Errorf("parseHead(%q): TransferEncoding %q with ContentLength %d", head, r.TransferEncoding, r.ContentLength)
	}
	if r.ProtoMinor == 0 && r.TransferEncoding != nil {
		t.Errorf("parseHead(%q): Transfer-Encoding accepted in HTTP/1.0", head)
	}
}

// compareWithNetHTTP checks that net/http's http.ReadRequest reads a head
// that parseHead accepted the same way, where both are meant to agree: a
// head with CRLF line endings, no empty line and no Transfer-Encoding.
// Known differences that are not compared: net/http keeps Host in Header
// and adds Cache-Control for "Pragma: no-cache".
func compareWithNetHTTP(t *testing.T, head string, r *http.Request) {
	t.Helper()
	if !crlfOnly(head) || r.TransferEncoding != nil {
		return
	}
	if !strings.HasSuffix(head, "\r\n") {
		head += "\r\n"
	}
	if strings.HasPrefix(head, "\r\n") || strings.Contains(head, "\r\n\r\n") {
		return
	}
	for k := range r.Header {
		if strings.EqualFold(k, "Transfer-Encoding") {
			return
		}
	}
	nr, err := http.ReadRequest(bufio.NewReader(strings.NewReader(head + "\r\n")))
	if err != nil {
		return
	}
	if _, ok := nr.Header["Transfer-Encoding"]; ok {
		return
	}
	if nr.Method != r.Method || nr.RequestURI != r.RequestURI {
		t.Errorf("head %q: net/http reads %q %q, parseHead %q %q", head, nr.Method, nr.RequestURI, r.Method, r.RequestURI)
	}
	if nr.Proto != r.Proto || nr.ProtoMajor != r.ProtoMajor || nr.ProtoMinor != r.ProtoMinor {
		t.Errorf("head %q: net/http reads %q, parseHead %q", head, nr.Proto, r.Proto)
	}
	if nr.Host != r.Host {
		t.Errorf("head %q: net/http reads Host %q, parseHead %q", head, nr.Host, r.Host)
	}
	if nr.ContentLength != r.ContentLength {
		t.Errorf("head %q: net/http reads ContentLength %d, parseHead %d", head, nr.ContentLength, r.ContentLength)
	}
	for k, vs := range r.Header {
		nvs := nr.Header[k]
		if k == "Host" {
			continue // an absolute-form request's field (checkAccepted)
		}
		if !reflect.DeepEqual(nvs, trimmedTabs(vs)) {
			t.Errorf("head %q: net/http reads %s %q, parseHead %q", head, k, nvs, vs)
		}
	}
	for k, nvs := range nr.Header {
		if _, ok := r.Header[k]; ok {
			continue
		}
		switch k {
		case "Host":
			if len(nvs) == 1 && r.URL.Host == "" && nvs[0] != r.Host {
				t.Errorf("head %q: net/http reads Host field %q, parseHead Host %q", head, nvs, r.Host)
			}
		case "Cache-Control":
			if !reflect.DeepEqual(nvs, []string{"no-cache"}) || r.Header.Get("Pragma") != "no-cache" {
				t.Errorf("head %q: net/http reads Cache-Control %q, parseHead none", head, nvs)
			}
		default:
			t.Errorf("head %q: net/http reads %s %q, parseHead none", head, k, nvs)
		}
	}
}

// crlfOnly reports whether every CR and LF in s is part of a CRLF.
func crlfOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				return false
			}
			i++
		case '\n':
			return false
		}
	}
	return true
}

// trimmedTabs is vs with the tabs around each value dropped, as net/http
// drops them: parseHead keeps them, as NGINX does (see trimSpaces).
func trimmedTabs(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = header.TrimOWS(v)
	}
	return out
}
