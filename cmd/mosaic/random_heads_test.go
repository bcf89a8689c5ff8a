package main

import (
	"fmt"
	"testing"
)

// TestRandomHeadFindingsAsNGINX pins what random request heads, sent to
// Debian's NGINX and to mosaic side by side (server/README.md, "Random
// request heads"), found, on a plain and a TLS listener. A TRACE or
// CONNECT refused with 405 left mosaic's connection open, and the request
// pipelined behind it (or a body NGINX never reads) was answered: NGINX
// sets keepalive only for a request that passed its header's checks, so
// it closes. NGINX parses the path with the request line, so a TRACE to
// a path it refuses is a 400 before it is a 405. An absolute-form target
// without a host ("http:///x") is a 400 in NGINX, which finds no host in
// the line to check; mosaic served it, choosing the server by Host.
// NGINX reads a version's numbers (HTTP/1.01 is served as 1.1, HTTP/1.10
// as 1.10), refuses HTTP/0.9 with a header as malformed (400) and
// HTTP/10.0 as unsupported (505), and reads the method and target first:
// "GET1 / HTTP/3.0" is a 400. mosaic took one digit each (400, or 505
// for HTTP/0.9) and read the version first. NGINX's request line takes a
// host of letters, digits, '.' and '-' and a decimal port: mosaic served
// "http://a_b.test/", choosing a server by a name NGINX refuses (400).
// NGINX's line takes several spaces between its parts and spaces after
// the version, where mosaic answered 400; and a version NGINX does not
// support is a 505 whatever follows it on the line (a bare CR, a word).
// NGINX skips the CRs before a field line's CR LF, which mosaic refused.
func TestRandomHeadFindingsAsNGINX(t *testing.T) {
	ports := startPlainTLS(t, "")
	next := "GET /next HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
	for _, req := range []string{
		"TRACE /first HTTP/1.1\r\nHost: a.test\r\n\r\n" + next,
		"TRACE /first HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\n\r\nhello" + next,
		"CONNECT /first HTTP/1.1\r\nHost: a.test\r\n\r\n" + next,
		"TRACE /%2e%2e/first HTTP/1.1\r\nHost: a.test\r\n\r\n" + next,
		"GET http:///first HTTP/1.1\r\nHost: a.test\r\n\r\n" + next,
		"GET http://?q HTTP/1.1\r\nHost: a.test\r\n\r\n" + next,
		// NGINX's version grammar: numbers, not one digit each; a major
		// version over 1 is a 505 once the method and target passed.
		"GET /first HTTP/1.01\r\nHost: a.test\r\n\r\n" + next,
		"GET /first HTTP/1.10\r\nHost: a.test\r\n\r\n" + next,
		"GET /first HTTP/10.0\r\nHost: a.test\r\n\r\n" + next,
		"GET /first HTTP/0.9\r\nHost: a.test\r\n\r\n" + next,
		"GET1 /first HTTP/3.0\r\nHost: a.test\r\n\r\n" + next,
		"GET * HTTP/3.0\r\nHost: a.test\r\n\r\n" + next,
		"GET http://a_b.test/first HTTP/1.1\r\nHost: a.test\r\n\r\n" + next,
		"GET http://a.test:8a/first HTTP/1.1\r\nHost: a.test\r\n\r\n" + next,
		"GET http://a_b.test/first HTTP/2.0\r\nHost: a.test\r\n\r\n" + next,
		// Spaces NGINX's line takes: several between the parts, and
		// after the version (heads48); not a tab, nor a word after them.
		"GET  /first  HTTP/1.1\r\nHost: a.test\r\n\r\n" + next,
		"GET /first HTTP/1.1   \r\nHost: a.test\r\n\r\n" + next,
		"POST  http://a.test/first  HTTP/1.0 \r\nContent-Length: 1\r\n\r\nx",
		"GET  /first  HTTP/10.0\r\nHost: a.test\r\n\r\n" + next,
		"GET /first HTTP/1.1 x\r\nHost: a.test\r\n\r\n" + next,
		"GET /first HTTP/1.1\t\r\nHost: a.test\r\n\r\n" + next,
		// A version NGINX does not support is refused (505) before a
		// bare CR or a word after it is read (heads48).
		"GET /first HTTP/2.0\rHost: a.test\r\n\r\n" + next,
		"GET /first HTTP/10.0\r x\r\nHost: a.test\r\n\r\n" + next,
		"GET /first HTTP/1.1\rHost: a.test\r\n\r\n" + next,
		"GET /first\x01 HTTP/2.0\rHost: a.test\r\n\r\n" + next,
		// CRs before a field line's CR LF are skipped; a line of CRs
		// where the empty line comes is refused (heads48).
		"GET /first HTTP/1.1\r\nHost: a.test\r\r\nX: v\r\r\r\nY\r\r\n\r\n" + next,
		"GET /first HTTP/1.1\r\nHost: a.test\r\n\r\r\n" + next,
		"GET /first HTTP/1.1\r\nHost: a.test\r\nX: a\rb\r\n\r\n" + next,
		// Served by both, the target's host choosing the server.
		"GET http://a.test/first HTTP/1.1\r\nHost: a.test\r\n\r\n" + next,
	} {
		sameOverPlainTLS(t, ports, req, fmt.Sprintf("%q", req))
	}
}
