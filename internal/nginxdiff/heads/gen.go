package main

import (
	"math/rand"
	"strings"
)

// The generator draws from math/rand in a fixed order: a seed gives the
// same cases as in the runs that server/README.md cites. Change the
// draws and those seeds no longer reproduce them.

func pick(r *rand.Rand, xs []string) string { return xs[r.Intn(len(xs))] }

var methods = []string{"GET", "GET", "GET", "POST", "POST", "PUT", "HEAD", "DELETE", "OPTIONS", "get", "Get", "G@T", "GET_X", "M-SEARCH", "PROPFIND", "CONNECT", "TRACE", "PATCH", strings.Repeat("A", 40), "G\x80T", "GET1", "", "GE T"}

var segs = []string{"a", "b", "p", "u", "x", "re", "r", "p/", "u/", "%2F", "%2f", "%2E", "%2e", "%2e%2e", "..", ".", "/", "//", "/./", "/../", "\\", "\\..\\", "?", "?a=1", "?a=1?b", "&", ";x", ";", "%00", "%41", "%zz", "%", "%4", "\x80", "\xff", "\xc3\xa9", "\x01", "\x7f", "\t", "*", "~", "+", "%20", "%25", "%3F", "%23", "%0D%0A", "\"", "{", "|", "<", "'", "=", "@", ":", "%5C", "%u0041"}

func target(r *rand.Rand) string {
	switch r.Intn(20) {
	case 0:
		return pick(r, []string{"*", "a.test:443", "a.test", "", "p/x", "//a.test/p/x", "/\x00", "%2Fp/x", "http://a.test", "?x", "*/x"})
	case 1, 2:
		pre := pick(r, []string{"http://a.test", "http://a.test:80", "http://u:p@a.test", "http://u@a.test:8080", "HTTP://A.TEST", "https://a.test", "http://a.test:99999", "http://[::1]:80", "http://a_b.test", "http://", "ftp://a.test", "http://a.test:", "http://a..test", "http://a.test?q", "http://-a.test", "http://a.test.", "http://a%41.test"})
		return pre + origForm(r)
	}
	return origForm(r)
}

func origForm(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(pick(r, []string{"/", "/", "/p/", "/u/", "/r/", "/re/", "/x", "//", "/p", "/./p/", "/p/../", "/.", "/.."}))
	for k := r.Intn(6); k > 0; k-- {
		b.WriteString(pick(r, segs))
	}
	return b.String()
}

var versions = []string{"HTTP/1.1", "HTTP/1.1", "HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/1.0", "HTTP/0.9", "HTTP/2.0", "HTTP/1.10", "http/1.1", "HTTP/01.1", "HTTP/1", "HTTP/1.1x", "HTTP/1.2", "HTTP/3.0", "HTTP/1.01", "HTTP/10.0", "HTTP/1.1 ", "HTTP/1.1\t", "HTTP/ 1.1", "HTTP/1 .1", "HTTP/1.9"}

var hosts = []string{"a.test", "a.test", "A.Test.", "a.test:80", "a.test:", "[::1]", "[::1]:8", "a..test", "a/b", "", "a test", "a.test:x", "a.test.", "a%41", "[::1", "a:b:c", "\x80.test", "a.test ", "-"}

var headerPieces = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return "Host: " + pick(r, hosts) },
	func(r *rand.Rand) string { return "Host: " + pick(r, hosts) },
	func(r *rand.Rand) string {
		return "X: " + pick(r, []string{"v", "", "  sp  ", "a\x00b", "a\rb", "\x80\xff", "a\x01b", "a\tb", "a\x7f"})
	},
	func(r *rand.Rand) string {
		return pick(r, []string{"X : v", "X\t: v", "x_y: u", "X-Y: v", "X_Y: v", ": empty", "X:", "Bad Name: v", "X@: v", "X\x7f: v", "X-Y:v", "x\x00y: v", "\x80: v", "X.Y: v", "nocolon", "  leading: v", " X: v", "X:v\r", "_: v", "-: v"})
	},
	func(r *rand.Rand) string { return pick(r, []string{" folded", "\tfolded", " "}) },
	func(r *rand.Rand) string {
		return "Content-Length: " + pick(r, []string{"0", "3", "5", "+5", "-1", "05", "5, 5", "5,5", "5, 6", " 5 ", "5 a", "", "0x5", "99999999999999999999", "1e1", "5\t", "00"})
	},
	func(r *rand.Rand) string {
		return pick(r, []string{"Transfer-Encoding", "transfer-encoding", "Transfer-Encoding ", "Transfer_Encoding"}) + ": " +
			pick(r, []string{"chunked", "chunked", "Chunked", "CHUNKED", "gzip, chunked", "chunked, gzip", "chunked, chunked", "identity", "chunked ", " chunked", "chunked;x", "xchunked", "", "chunked,", ",chunked", "identity, chunked"})
	},
	func(r *rand.Rand) string {
		return "Expect: " + pick(r, []string{"100-continue", "100-Continue", "foo", "", "100-continue, x"})
	},
	func(r *rand.Rand) string {
		return "Connection: " + pick(r, []string{"close", "keep-alive", "Close", "upgrade", "close, te", "keep-alive, close", "", "x"})
	},
	func(r *rand.Rand) string {
		return pick(r, []string{"Upgrade: websocket", "TE: trailers", "Cookie: a=b", "If-None-Match: *", "Range: bytes=0-1", "Accept-Encoding: gzip"})
	},
}

var bodies = []string{"", "", "abc", "hello", "5\r\nhello\r\n0\r\n\r\n", "5;e=1\r\nhello\r\n0\r\n\r\n", "0x5\r\nhello\r\n0\r\n\r\n", "-5\r\nhello\r\n0\r\n\r\n", "5 \r\nhello\r\n0\r\n\r\n", "5\nhello\n0\n\n", "fffffffffffffffff\r\n", "0\r\n\r\n", "0\r\nX-T: 1\r\n\r\n", "3\r\nhello\r\n0\r\n\r\n", "5\r\nhelloXX0\r\n\r\n", "05\r\nhello\r\n0\r\n\r\n", "+5\r\nhello\r\n0\r\n\r\n", "5\r\nhello\r\n", "0\r\n\r\nGET /p/smug HTTP/1.1\r\nHost: a.test\r\n\r\n"}

func gen(r *rand.Rand) tcase {
	var b strings.Builder
	m := pick(r, methods)
	eol := "\r\n"
	switch r.Intn(14) {
	case 0:
		eol = "\n"
	case 1:
		eol = "\r"
	}
	sp := " "
	if r.Intn(15) == 0 {
		sp = pick(r, []string{"  ", "\t", " \t"})
	}
	v := pick(r, versions)
	b.WriteString(m + sp + target(r))
	b.WriteString(sp + v)
	b.WriteString(eol)
	nh := r.Intn(5)
	hasHost := false
	for i := 0; i < nh; i++ {
		h := headerPieces[r.Intn(len(headerPieces))](r)
		if strings.HasPrefix(h, "Host") {
			hasHost = true
		}
		b.WriteString(h)
		le := "\r\n"
		switch r.Intn(20) {
		case 0:
			le = "\n"
		case 1:
			le = "\r"
		}
		b.WriteString(le)
	}
	if !hasHost && r.Intn(6) != 0 {
		// most requests have a plain Host, placed first or last
		b.WriteString("Host: a.test\r\n")
	}
	b.WriteString(eol)
	b.WriteString(pick(r, bodies))
	ms := []string{m}
	if r.Intn(2) == 0 {
		b.WriteString("GET /p/second?n HTTP/1.1\r\nHost: a.test\r\n\r\n")
		ms = append(ms, "GET")
	}
	return tcase{port: r.Intn(2), raw: b.String(), methods: ms}
}
