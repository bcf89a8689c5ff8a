package http1

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// FuzzParserMatchesNetHTTP reads the same bytes as a connection's
// requests twice: with http1's own reading path (readRequest, which reads
// the header with readHead and parses it with parseHead, then the body
// that newBody frames) and with net/http's (http.ReadRequest and the
// checks its server adds), request after request as a client pipelining
// them sends them. Where both accept a request they must agree on all of
// it, body included, and on where the next one starts: a disagreement on
// that is request smuggling. Where one refuses what the other accepts,
// the case must be one of the deliberate differences in the table below.
//
//	go test ./http1 -run '^$' -fuzz '^FuzzParserMatchesNetHTTP$'
func FuzzParserMatchesNetHTTP(f *testing.F) {
	for _, s := range smugglingSeeds {
		f.Add(s)
	}
	for _, s := range fuzzSeeds {
		f.Add(s + "\r\n") // FuzzParseHead's heads, ended as requests
	}
	f.Fuzz(func(t *testing.T, in string) {
		compareReadings(t, in, readHTTP1(in), readNetHTTP(in))
	})
}

// maxPipelined is how many requests of one input are read: enough for a
// request smuggled in another's body to be read as a request of its own.
const maxPipelined = 4

// The limits of the server that reads the inputs are small, so that
// short inputs reach them.
const fuzzFirstBuffer, fuzzMaxLine, fuzzMaxHeader = 512, 256, 1 << 10

var fuzzLimits = Limits{HeaderBufferBytes: fuzzFirstBuffer, MaxLineBytes: fuzzMaxLine, MaxHeaderBytes: fuzzMaxHeader}

// next is a request that follows a seed, to be read as the one after it
// if the seed's framing lets it.
const next = "GET /next HTTP/1.1\r\nHost: a\r\n\r\n"

var smugglingSeeds = []string{
	// CL.TE and TE.CL: both framings, the second request in one's body.
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(next), next),
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + next,
	// TE.TE: a Transfer-Encoding that one parser might take for chunked
	// and another not.
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:  chunked\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked \r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\tchunked\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity, chunked\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding\t: chunked\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding\n : chunked\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\n chunked\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nX: 1\r\n Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTrAnSfEr-EnCoDiNg: cHuNkEd\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \"chunked\"\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer_Encoding: chunked\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\x00\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\rX: 1\r\n\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + next,
	// Content-Length: repeated, signed, padded, split, hexadecimal.
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\ncontent-length: 05\r\n\r\nhello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -5\r\n\r\nhello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0005\r\n\r\nhello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 0\r\n\r\nhellohello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length:  5 \t\r\n\r\nhello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x5\r\n\r\nhello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5.0\r\n\r\nhello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551621\r\n\r\nhello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length : 5\r\n\r\nhello" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 33\r\n\r\n" + next,
	// Chunk sizes and extensions.
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1;q=\"a b\"\r\nhello\r\n0;x\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\t;x\r\nhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff1\r\nhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000005\r\nhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000000005\r\nhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\n\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\rhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n" + next,
	// Trailers.
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n5\r\nhello\r\n0\r\nX-Sum: 1\r\nX-Other: 2\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n0\r\nX-Sum: 1\r\n 2\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n0\r\nX-Sum: 1\nX-Sum: 2\n\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTrailer: Content-Length\r\n\r\n0\r\nContent-Length: 40\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 ;x=y\r\nhello\r\n0\t;z\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n000000000000000005\r\nhello\r\n0\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: a\x00b\r\n\r\n" + next,
	// Line endings: bare LF, bare CR, CR in values.
	"GET / HTTP/1.1\nHost: a\n\n" + next,
	"GET / HTTP/1.1\nHost: a\r\n\n" + next,
	"GET / HTTP/1.1\rHost: a\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\rX: 1\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\n\r\r\n" + next,
	"GET / HTTP/1.1\r\r\nHost: a\r\n\r\n" + next,
	// NUL and other controls.
	"GET / HTTP/1.1\r\nHost: a\r\nX: a\x00b\r\n\r\n" + next,
	"GET /\x00 HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHo\x00st: a\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\x00b\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nX: \x01\x7f\r\n\r\n" + next,
	// obs-fold.
	"GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n 2\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n\t2\r\n\r\n" + next,
	"GET / HTTP/1.1\r\n Host: a\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\n b\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nX: 1\r\n Host: a\r\n\r\n" + next,
	// Targets: absolute form, '#', odd forms.
	"GET http://a.example/p?q=1 HTTP/1.1\r\nHost: b.example\r\n\r\n" + next,
	"GET HTTP://A.EXAMPLE:80/p HTTP/1.1\r\nHost: b\r\n\r\n" + next,
	"GET http://u:p@a.example/ HTTP/1.1\r\nHost: b\r\n\r\n" + next,
	"GET http://a.example HTTP/1.1\r\nHost: b\r\n\r\n" + next,
	"GET http://a%41.example/ HTTP/1.1\r\nHost: b\r\n\r\n" + next,
	"GET https://a.example/p HTTP/1.1\r\nHost: b\r\n\r\n" + next,
	"GET http:/p HTTP/1.1\r\nHost: b\r\n\r\n" + next,
	"GET //a.example/p HTTP/1.1\r\nHost: b\r\n\r\n" + next,
	"GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	"GET /#/../x?y#z HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	"GET /a%2fb%zz HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	"GET /caf\xc3\xa9?\xff HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	"GET * HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	"GET ? HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	"CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n",
	"CONNECT a.example:443 HTTP/1.1\r\n\r\n",
	"CONNECT a%41.example:443 HTTP/1.1\r\nHost: a\r\n\r\n",
	"CONNECT [::1%25en0]:443 HTTP/1.1\r\nHost: a\r\n\r\n",
	"CONNECT a.example/p HTTP/1.1\r\nHost: a\r\n\r\n",
	"CONNECT /rpc HTTP/1.1\r\nHost: a\r\n\r\n",
	"CONNECT a.example HTTP/1.1\r\nHost: a\r\n\r\n",
	"CONNECT :443 HTTP/1.1\r\nHost: a\r\n\r\n",
	"CONNECT a.example:x HTTP/1.1\r\nHost: a\r\n\r\n",
	"CONNECT  HTTP/1.1\r\nHost: a\r\n\r\n",
	// Versions.
	"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello" + next,
	"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + next,
	"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" + next,
	"GET / HTTP/1.0\r\nConnection: keep-alive=5\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nConnection: close;x\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nConnection: x, CLOSE\r\n\r\n" + next,
	"GET / HTTP/1.2\r\nHost: a\r\n\r\n" + next,
	"GET / HTTP/1.10\r\nHost: a\r\n\r\n" + next,
	"GET / HTTP/2.0\r\nHost: a\r\n\r\n" + next,
	"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	"GET / HTTP/0.9\r\n\r\n",
	"GET / http/1.1\r\nHost: a\r\n\r\n" + next,
	"GET /\r\n\r\n",
	// Methods.
	"get / HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	"G@T / HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	"M-SEARCH * HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	// Field names: long, underscores and dots, empty, whitespace before
	// the colon.
	"GET / HTTP/1.1\r\nHost: a\r\n" + strings.Repeat("X", fuzzMaxLine) + ": 1\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\n" + strings.Repeat("X-Y: "+strings.Repeat("z", 100)+"\r\n", 10) + "\r\n" + next,
	"GET /" + strings.Repeat("a", fuzzMaxLine) + " HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + strings.Repeat("X-T: "+strings.Repeat("t", 100)+"\r\n", 10) + "\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nX_Forwarded_For: 1\r\nX.Y: 2\r\nx-forwarded-for: 3\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\n: 1\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost : a\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nX-A\t: 1\r\n\r\n" + next,
	// Lines without a colon: NGINX's names with an empty value.
	"GET / HTTP/1.1\r\nHost: a\r\nX-A\r\nX@B\nX-A: 1\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nX-A 1\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding\r\n\r\n0\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nX-A:1\r\nX-A:\r\nX-A: \t\r\n\r\n" + next,
	// Host.
	"GET / HTTP/1.1\r\nHost: a@b\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a#b\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: caf\xc3\xa9\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost:\r\n\r\n" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n" + next,
	// Expect, Pragma, and empty lines before and between requests.
	"POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nExpect: something\r\nContent-Length: 5\r\n\r\nhello" + next,
	"GET / HTTP/1.1\r\nHost: a\r\nPragma: no-cache\r\n\r\n" + next,
	"\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello\r\n" + next,
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n\r\n" + next,
	// Found by the fuzzer.
	"CONNECT  HTTP/1.0\n0000:\n\n",
	"CONNECT :A HTTP/1.0\n0000:\n\n",
	"CONNECT [0]:0 HTTP/1.0\n0000:\n\n",
	"POST * HTTP/1.1\nHost:\nContent-Length:5\n\n00000\r0 * HTTP/1.0\n0000:\n\n",
	"0 * HTTP/1.1\nHost:\nTrAnsfer-EnCoding:Chunked\n\n0\r\n0 :\r\n\r\n",
	"0 * HTTP/1.0\n0000:\n" + strings.Repeat("0", fuzzMaxLine-2) + ":00\r\n\n",
	"0 * HTTP/1.0\n0000:\n" + strings.Repeat("0", fuzzMaxLine-2) + ":00\n\n",
}

// reading is what one side made of one request of the input.
type reading struct {
	req     *http.Request // nil when refused, or when the input ended first
	err     error         // why not
	body    string
	bodyErr error // why reading the body failed
	// headEnd and end are offsets in the input: where the header and the
	// body ended (where the next request starts).
	headEnd, end int
}

// memConn is a connection whose client has sent src and closed its side.
// A 100 Continue the reading path writes is dropped.
type memConn struct {
	net.Conn // nil: the reading path calls only the methods below
	src      *strings.Reader
}

func (c *memConn) Read(p []byte) (int, error)       { return c.src.Read(p) }
func (c *memConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *memConn) RemoteAddr() net.Addr             { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

// readHTTP1 reads the requests of in as a keep-alive connection of
// http1's server does (serveOne), each body to its end.
func readHTTP1(in string) []reading {
	src := strings.NewReader(in)
	c := newConn(&Server{Limits: fuzzLimits}, &memConn{src: src})
	offset := func() int { return len(in) - src.Len() - c.br.Buffered() }
	var out []reading
	for len(out) < maxPipelined {
		var r reading
		_, r.req, r.err = c.readRequest()
		r.headEnd = offset()
		if r.err == nil {
			if b, ok := r.req.Body.(*body); ok {
				b.w = &response{c: c, body: b} // where a 100 Continue goes
			}
			r.body, r.bodyErr = readBody(r.req)
		}
		r.end = offset()
		if out = append(out, r); !keepReading(r) {
			break
		}
	}
	return out
}

// readNetHTTP reads the requests of in as net/http's server does: with
// http.ReadRequest, and the checks that its conn.readRequest and
// conn.serve make after it (server.go).
func readNetHTTP(in string) []reading {
	src := strings.NewReader(in)
	br := bufio.NewReader(src)
	offset := func() int { return len(in) - src.Len() - br.Buffered() }
	var out []reading
	lastMethod := ""
	for len(out) < maxPipelined {
		if lastMethod == "POST" {
			// "RFC 7230 section 3 tolerance for old buggy clients":
			// the CRLF some send after a POST body.
			peek, _ := br.Peek(4)
			_, _ = br.Discard(len(peek) - len(strings.TrimLeft(string(peek), "\r\n")))
		}
		var r reading
		start := offset()
		r.req, r.err = http.ReadRequest(br)
		r.headEnd = offset()
		if r.err == nil {
			r.err = netHTTPServerChecks(r.req, hostFields(in[start:r.headEnd]))
		}
		if r.err != nil {
			r.req = nil
		} else {
			lastMethod = r.req.Method
			r.body, r.bodyErr = readBody(r.req)
		}
		r.end = offset()
		if out = append(out, r); !keepReading(r) {
			break
		}
	}
	return out
}

func readBody(r *http.Request) (string, error) {
	b, err := io.ReadAll(r.Body)
	return string(b), err
}

// keepReading reports whether a connection reads another request after r.
func keepReading(r reading) bool {
	return r.err == nil && r.bodyErr == nil && !r.req.Close
}

// hostFields returns the values of the Host fields of a header that
// http.ReadRequest accepted, which it takes out of the request's Header
// before net/http's server would check them: the server reads the header
// with the same textproto reader.
func hostFields(head string) []string {
	tp := textproto.NewReader(bufio.NewReader(strings.NewReader(head)))
	_, _ = tp.ReadLine() // the request line
	h, _ := tp.ReadMIMEHeader()
	return h["Host"]
}

// netHTTPServerChecks refuses what net/http's server refuses of a request
// that http.ReadRequest accepted, whose Host fields were hosts.
func netHTTPServerChecks(r *http.Request, hosts []string) error {
	h2Preface := r.Method == "PRI" && len(r.Header) == 0 && len(hosts) == 0 && r.URL.Path == "*" && r.Proto == "HTTP/2.0"
	if r.ProtoMajor != 1 && !(r.ProtoMajor == 2 && r.ProtoMinor == 0 && r.Method == "PRI" && r.RequestURI == "*") {
		return errors.New("505: unsupported protocol version")
	}
	if r.ProtoAtLeast(1, 1) && len(hosts) == 0 && !h2Preface && r.Method != "CONNECT" {
		return errors.New("400: missing required Host header")
	}
	if len(hosts) == 1 && !netHTTPValidHost(hosts[0]) {
		return errors.New("400: malformed Host header")
	}
	for k, vs := range r.Header {
		if !rfcToken(k) {
			return errors.New("400: invalid header name")
		}
		for _, v := range vs {
			if strings.ContainsFunc(v, func(c rune) bool { return c < ' ' && c != '\t' || c == 0x7f }) {
				return errors.New("400: invalid header value")
			}
		}
	}
	if e := r.Header.Get("Expect"); e != "" && !netHTTPHasToken(e, "100-continue") {
		return errors.New("417: expectation failed")
	}
	return nil
}

// netHTTPValidHost is httpguts.ValidHostHeader, net/http's check of a
// Host field: the bytes of a host and port.
func netHTTPValidHost(h string) bool {
	return strings.Trim(h, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!$%&'()*+,-.:;=[]_~") == ""
}

// rfcToken reports whether s is a token (RFC 9110, section 5.6.2), written
// from the RFC rather than with the package's isToken, which it checks.
func rfcToken(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(c rune) bool {
		return c <= ' ' || c >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c)
	})
}

// netHTTPHasToken is net/http's hasToken, with which its server decides
// whether a request expects 100-continue: token anywhere in v, bounded by
// spaces, tabs, commas or the ends.
func netHTTPHasToken(v, token string) bool {
	for i := 0; i+len(token) <= len(v); i++ {
		end := i + len(token)
		if strings.EqualFold(v[i:end], token) &&
			(i == 0 || strings.IndexByte(" \t,", v[i-1]) >= 0) &&
			(end == len(v) || strings.IndexByte(" \t,", v[end]) >= 0) {
			return true
		}
	}
	return false
}

// compareReadings fails the test unless the two readings of in agree, but
// for the deliberate differences.
func compareReadings(t *testing.T, in string, ours, theirs []reading) {
	t.Helper()
	start := 0
	for i := 0; i < len(ours) && i < len(theirs); i++ {
		o, n := ours[i], theirs[i]
		d := &disagreement{in: in[start:], req: o.req, headLen: o.headEnd - start}
		switch {
		case o.req == nil && n.req == nil:
			return // neither serves it: a refusal, or the end of the input
		case o.req == nil:
			d.req, d.headLen = n.req, n.headEnd-start
			explain(t, in, i, d, "http1 refuses", o.err.Error())
			return
		case n.req == nil:
			explain(t, in, i, d, "net/http refuses", n.err.Error())
			return
		}
		if diffs := requestDiff(o.req, n.req); len(diffs) > 0 {
			for _, f := range diffs {
				explain(t, in, i, d, f.field+" differs", f.text)
			}
			return // the connection may end on one side only
		}
		if o.headEnd != n.headEnd {
			t.Fatalf("input %s, request %d: the header ends at byte %d in http1, %d in net/http", quoteInput(in), i, o.headEnd, n.headEnd)
		}
		d.inBody = true
		switch {
		case o.bodyErr != nil && n.bodyErr != nil:
			return // the connection ends on both sides
		case o.bodyErr != nil:
			explain(t, in, i, d, "http1 refuses", o.bodyErr.Error())
			return
		case n.bodyErr != nil:
			explain(t, in, i, d, "net/http refuses", n.bodyErr.Error())
			return
		}
		if o.body != n.body {
			t.Fatalf("input %s, request %d: body %q in http1, %q in net/http", quoteInput(in), i, o.body, n.body)
		}
		if o.end != n.end {
			t.Fatalf("input %s, request %d: the next request starts at byte %d in http1, %d in net/http", quoteInput(in), i, o.end, n.end)
		}
		start = o.end
	}
	if len(ours) != len(theirs) {
		t.Fatalf("input %s: http1 reads %d requests, net/http %d", quoteInput(in), len(ours), len(theirs))
	}
}

// A fieldDiff is a part of a request that the two sides read differently.
type fieldDiff struct{ field, text string }

// requestDiff returns how the two readings of a request that both sides
// accepted differ.
func requestDiff(ours, theirs *http.Request) []fieldDiff {
	var diffs []fieldDiff
	check := func(field string, o, n any) {
		if !reflect.DeepEqual(o, n) {
			diffs = append(diffs, fieldDiff{field, fmt.Sprintf("http1 %#v, net/http %#v", o, n)})
		}
	}
	check("method", ours.Method, theirs.Method)
	check("target", ours.RequestURI, theirs.RequestURI)
	check("version", ours.Proto, theirs.Proto)
	check("URL", *ours.URL, *theirs.URL)
	check("Host", ours.Host, theirs.Host)
	check("header", comparableHeader(ours), theirs.Header)
	check("Content-Length", ours.ContentLength, theirs.ContentLength)
	check("Transfer-Encoding", ours.TransferEncoding, theirs.TransferEncoding)
	check("Close", ours.Close, theirs.Close)
	return diffs
}

// comparableHeader returns http1's reading of r's header as net/http
// writes the same fields, a copy: net/http moves a chunked request's
// Trailer field to r.Trailer, adds "Cache-Control: no-cache" for
// "Pragma: no-cache" (an HTTP/1.0 cache's way of saying it), and drops
// the Host field of an absolute-form request, which http1 keeps beside
// the target's host (for $http_host).
func comparableHeader(r *http.Request) http.Header {
	h := r.Header.Clone()
	if r.URL != nil && r.URL.Host != "" {
		delete(h, "Host")
	}
	if r.TransferEncoding != nil {
		delete(h, "Trailer")
	}
	if _, ok := h["Cache-Control"]; !ok && h.Get("Pragma") == "no-cache" {
		h["Cache-Control"] = []string{"no-cache"}
	}
	return h
}

// A difference is a deliberate disagreement with net/http's server. When
// applies holds, outcome may happen: "http1 refuses" or "net/http
// refuses" a request that the other side serves, or a field that both
// serve is read differently ("Close differs").
type difference struct {
	what    string
	outcome string
	why     string
	applies func(d *disagreement) bool
}

// A disagreement is a request the two sides do not read alike.
type disagreement struct {
	in      string        // the input from the request's first byte
	headLen int           // the length of its header section in in
	req     *http.Request // as a side that served it read it (http1 if both did)
	inBody  bool          // the sides part while the body is read
}

// differences are the deliberate differences from net/http's server, as
// the README's table gives them. Each is allowed by RFC 9110 or 9112;
// where the RFC leaves the choice, http1 does what NGINX does.
var differences = []difference{
	{
		what:    "a field line folded onto the next (obs-fold), in the header or the trailer",
		outcome: "http1 refuses",
		why:     "RFC 9112 §5.2: a server must refuse it with 400 or replace it with spaces; NGINX refuses it",
		applies: func(d *disagreement) bool {
			return !d.inBody && folded(fieldLines(d.head())) || d.inBody && folded(lines(d.trailer()))
		},
	},
	{
		what:    "a trailer field whose name is not a token, as with whitespace before the colon (net/http checks only the header's)",
		outcome: "http1 refuses",
		why:     "RFC 9112 §5.1: a server must refuse whitespace between a field's name and the colon; §7.1.2: trailer fields are field lines too",
		applies: func(d *disagreement) bool {
			return d.inBody && slices.ContainsFunc(lines(d.trailer()), func(l string) bool {
				name, _, ok := strings.Cut(l, ":")
				return ok && !rfcToken(name)
			})
		},
	},
	{
		what:    "Transfer-Encoding in an HTTP/1.0 request (net/http ignores the field)",
		outcome: "http1 refuses",
		why:     "RFC 9112 §6.1: the framing of such a message is faulty; NGINX refuses it",
		applies: func(d *disagreement) bool {
			return !d.inBody && d.req.ProtoMinor == 0 && hasField(d.head(), "Transfer-Encoding")
		},
	},
	{
		what:    "both Content-Length and Transfer-Encoding (net/http drops Content-Length)",
		outcome: "http1 refuses",
		why:     "RFC 9112 §6.1 and §6.3: ought to be handled as an error, the shape of request smuggling (§11.2); NGINX refuses it",
		applies: func(d *disagreement) bool {
			return !d.inBody && hasField(d.head(), "Content-Length") && hasField(d.head(), "Transfer-Encoding")
		},
	},
	{
		what:    "a Content-Length, Transfer-Encoding or Host with a tab before or after its value (net/http trims it as whitespace)",
		outcome: "http1 refuses",
		why:     "RFC 9112 §11.2: a framing field that parties read differently is the shape of request smuggling; NGINX keeps the tab in the value and refuses it (400, 501)",
		applies: func(d *disagreement) bool {
			return !d.inBody && slices.ContainsFunc(fieldLines(d.head()), func(l string) bool {
				name, value, ok := strings.Cut(l, ":")
				value = strings.Trim(value, " ")
				return ok && (strings.EqualFold(name, "Content-Length") || strings.EqualFold(name, "Transfer-Encoding") ||
					strings.EqualFold(name, "Host")) && value != "" && (value[0] == '\t' || value[len(value)-1] == '\t')
			})
		},
	},
	{
		what:    "a field value with a tab before or after it, within the spaces around it (net/http trims tabs too)",
		outcome: "header differs",
		why:     "RFC 9110 §5.5 lets a recipient drop the whitespace around a value; NGINX drops only spaces, and its $http_*, proxied lines and FastCGI parameters keep the tabs",
		applies: func(d *disagreement) bool {
			return !d.inBody && slices.ContainsFunc(fieldLines(d.head()), func(l string) bool {
				_, value, ok := strings.Cut(l, ":")
				value = strings.Trim(value, " ")
				return ok && value != "" && (value[0] == '\t' || value[len(value)-1] == '\t')
			})
		},
	},
	{
		what:    "a field name that is not a token but holds no space, control byte or DEL, such as X(A) or X@A",
		outcome: "net/http refuses",
		why:     "RFC 9110 §5.1 makes it invalid; NGINX takes it as an invalid name, which ignore_invalid_headers (on by default) drops and the request is served (the server's name filter does the same)",
		applies: func(d *disagreement) bool {
			return !d.inBody && slices.ContainsFunc(fieldLines(d.head()), func(l string) bool {
				name, _, ok := strings.Cut(l, ":")
				return ok && !rfcToken(name) && nginxName(name)
			})
		},
	},
	{
		what:    "a field line without a colon that NGINX takes as a name, such as X-A or X@A",
		outcome: "net/http refuses",
		why: "RFC 9112 §5 makes it invalid; NGINX takes the line as a name with an empty value, which it serves, or refuses " +
			"as any empty Content-Length (400) or Transfer-Encoding (501)",
		applies: func(d *disagreement) bool {
			return !d.inBody && slices.ContainsFunc(fieldLines(d.head()), func(l string) bool {
				return !strings.Contains(l, ":") && nginxName(l)
			})
		},
	},
	{
		what:    "a field value with a control byte other than NUL, CR and LF, or a DEL",
		outcome: "net/http refuses",
		why: "RFC 9110 §5.5 leaves them out of field-vchar; NGINX refuses only NUL and a CR or LF inside a value " +
			"(ngx_http_parse_header_line) and serves the rest, a DEL in a browser's Cookie among them",
		applies: func(d *disagreement) bool {
			return !d.inBody && slices.ContainsFunc(fieldLines(d.head()), func(l string) bool {
				_, value, ok := strings.Cut(l, ":")
				return ok && strings.ContainsFunc(value, func(c rune) bool { return c < ' ' && c != '\t' || c == 0x7f })
			})
		},
	},
	{
		what:    "a Host with a byte outside a host and port's that NGINX takes, such as '@', '#' or one above 0x7f",
		outcome: "net/http refuses",
		why:     "RFC 9112 §3.2 asks a server to refuse an invalid Host; NGINX refuses only two dots in a row, '/', spaces, control bytes and DEL, and serves the rest",
		applies: func(d *disagreement) bool {
			return !d.inBody && slices.ContainsFunc(fieldLines(d.head()), func(l string) bool {
				name, value, ok := strings.Cut(l, ":")
				value = strings.Trim(value, " ")
				return ok && strings.EqualFold(name, "Host") && !validHost(value) && nginxHost(value)
			})
		},
	},
	{
		what:    "an empty Host field, or one of spaces (net/http takes it as no Host)",
		outcome: "http1 refuses",
		why: "RFC 9112 §3.2 has a client send it empty for a target without an authority, which no origin-form request is; " +
			"NGINX's ngx_http_validate_host refuses an empty host at its line, in HTTP/1.0 too",
		applies: func(d *disagreement) bool {
			return !d.inBody && slices.ContainsFunc(fieldLines(d.head()), func(l string) bool {
				name, value, _ := strings.Cut(l, ":")
				return strings.EqualFold(name, "Host") && strings.Trim(value, " ") == ""
			})
		},
	},
	{
		what:    "an HTTP/1.1 CONNECT request without Host",
		outcome: "http1 refuses",
		why:     "RFC 9112 §3.2: a server must answer 400 to any HTTP/1.1 request without Host",
		applies: func(d *disagreement) bool {
			return !d.inBody && d.req.Method == http.MethodConnect && d.req.ProtoAtLeast(1, 1) && !hasField(d.head(), "Host")
		},
	},
	{
		what:    "an absolute-form target whose host is not a valid Host (net/http does not check it)",
		outcome: "http1 refuses",
		why:     "RFC 9112 §3.2.2: the target's host replaces Host, and §3.2 refuses an invalid Host with 400",
		applies: func(d *disagreement) bool {
			return !d.inBody && d.req.Method != http.MethodConnect && d.req.URL.Host != "" && !netHTTPValidHost(d.req.URL.Host)
		},
	},
	{
		what:    "an absolute-form target whose host holds a byte other than a letter, digit, '.' or '-' (http://a_b/), or whose port is not decimal",
		outcome: "http1 refuses",
		why:     "RFC 9112 §3.2.2 takes any reg-name; NGINX's request-line parser takes only these bytes, and a server is not to be chosen by a name NGINX refuses",
		applies: func(d *disagreement) bool {
			t := d.req.RequestURI
			return !d.inBody && d.req.Method != http.MethodConnect && t != "" && t[0] != '/' && strings.Contains(t, "://") && !lineAuthority(t)
		},
	},
	{
		what:    "a CONNECT target that is not a host and port: empty, without a port, with a path, userinfo or percent-encoding, or an invalid host",
		outcome: "http1 refuses",
		why:     "RFC 9112 §3.2.3: a CONNECT target is uri-host:port, the endpoint of a tunnel",
		applies: func(d *disagreement) bool {
			target, host := d.req.RequestURI, d.req.URL.Host
			name, port, err := net.SplitHostPort(target)
			return !d.inBody && d.req.Method == http.MethodConnect && !strings.HasPrefix(target, "/") &&
				(err != nil || name == "" || port == "" || strings.Trim(port, "0123456789") != "" ||
					host != target || !netHTTPValidHost(host))
		},
	},
	{
		what:    "the HTTP/2 connection preface, PRI * HTTP/2.0 (net/http hands it to the handler)",
		outcome: "http1 refuses",
		why:     "RFC 9110 §15.6.6: http1 serves HTTP/1.x only; as NGINX, it refuses the target * before the version (400)",
		applies: func(d *disagreement) bool { return !d.inBody && d.req.ProtoMajor == 2 },
	},
	{
		what:    "a version whose minor number has more than one digit (HTTP/1.01, HTTP/1.10; net/http takes one digit each)",
		outcome: "net/http refuses",
		why:     "RFC 9112 §2.3 writes one digit each; NGINX reads the numbers, HTTP/1.01 as 1.1, and serves the request",
		applies: func(d *disagreement) bool {
			return !d.inBody && d.req.ProtoMajor == 1 && len(d.req.Proto) > len("HTTP/1.1")
		},
	},
	{
		what: "a header that NGINX's buffers cannot hold (a line that does not fit the first buffer and is longer than a large one, " +
			"or more large buffers than there are, lines packed whole): 414 for the request line, 400 (NGINX's 494) for a field; " +
			"a trailer over MaxHeaderBytes; net/http allows 1 MB",
		outcome: "http1 refuses",
		why:     "RFC 9112 §3 and RFC 6585 §5 allow the limits; they are NGINX's client_header_buffer_size and large_client_header_buffers",
		applies: func(d *disagreement) bool {
			if d.inBody {
				return len(section(d.trailer())) > fuzzMaxHeader
			}
			return overBuffers(d.head())
		},
	},
	{
		what:    "empty lines before the request line (net/http skips up to 4 bytes of CR and LF, and only after a POST)",
		outcome: "net/http refuses",
		why:     "RFC 9112 §2.2: a server should ignore at least one empty line before the request line; NGINX skips them",
		applies: func(d *disagreement) bool {
			return !d.inBody && (strings.HasPrefix(d.in, "\n") || strings.HasPrefix(d.in, "\r\n"))
		},
	},
	{
		what:    "a bare CR before the request line (net/http drops up to 4 bytes of CR and LF after a POST)",
		outcome: "http1 refuses",
		why:     "RFC 9112 §2.2: what a server should ignore is empty lines; a bare CR is no line end",
		applies: func(d *disagreement) bool {
			lead := d.in[:len(d.in)-len(strings.TrimLeft(d.in, "\r\n"))]
			return !d.inBody && strings.Contains(strings.ReplaceAll(lead, "\r\n", ""), "\r")
		},
	},
	{
		what:    "a second line of a field that comes once: Authorization, If-Modified-Since, If-Unmodified-Since, If-Match, If-None-Match, If-Range, Content-Range, Expect, Content-Length (net/http keeps equal ones)",
		outcome: "http1 refuses",
		why:     "RFC 9110 §5.3: these fields are not lists; NGINX refuses a second line (client sent duplicate header line)",
		applies: func(d *disagreement) bool {
			if d.inBody {
				return false
			}
			seen := map[string]bool{}
			for _, l := range fieldLines(d.head()) {
				name, _, ok := strings.Cut(l, ":")
				if k := textproto.CanonicalMIMEHeaderKey(name); ok && header.Unique(k) {
					if seen[k] {
						return true
					}
					seen[k] = true
				}
			}
			return false
		},
	},
	{
		what:    "an Expect field other than 100-continue (net/http answers 417)",
		outcome: "net/http refuses",
		why:     "RFC 9110 §10.1.1: a server may answer 417, or ignore the expectation as NGINX does",
		applies: func(d *disagreement) bool {
			e := d.req.Header.Get("Expect")
			return !d.inBody && e != "" && !netHTTPHasToken(e, "100-continue")
		},
	},
	{
		what:    "a chunked request whose Trailer field names Content-Length, Transfer-Encoding or Trailer",
		outcome: "net/http refuses",
		why: "RFC 9110 §6.5.1 forbids senders to put framing fields in a trailer; the trailer comes after the last chunk, " +
			"and http1 frames nothing with it (NGINX ignores request trailers)",
		applies: func(d *disagreement) bool {
			return !d.inBody && slices.ContainsFunc([]string{"Content-Length", "Transfer-Encoding", "Trailer"}, func(k string) bool {
				_, ok := d.req.Trailer[k]
				return ok
			})
		},
	},
	{
		what:    "a trailer section that net/http does not see end, with CRLF CRLF, within its 4 KB buffer: bare LF line ends, or a long trailer",
		outcome: "net/http refuses",
		why:     "RFC 9112 §2.2: a recipient may take a bare LF for a line end, as NGINX does; http1 bounds a trailer as a header (32 KB)",
		applies: func(d *disagreement) bool {
			tr := d.trailer() // "" where net/http's reader failed before the trailer
			return d.inBody && tr != "" && !strings.HasPrefix(tr, "\r\n") && !strings.Contains(tr[:min(len(tr), 4<<10)], "\r\n\r\n")
		},
	},
	{
		what:    "a chunk size line with whitespace before its extension's \";\", or with more than 16 digits (leading zeros)",
		outcome: "net/http refuses",
		why:     "RFC 9112 §7.1.1: BWS may come before \";\", and the size is a number, however many zeros lead it; NGINX takes both",
		applies: func(d *disagreement) bool {
			return d.inBody && d.req.TransferEncoding != nil && laxChunkLine.MatchString(d.in[d.headLen:])
		},
	},
	{
		what:    "a Connection option with parameters, such as \"close;x\" or \"keep-alive=5\" (net/http matches whole list members)",
		outcome: "Close differs",
		why:     "RFC 9110 §7.6.1 options take no parameters; http1 reads the option's name, NGINX finds the words anywhere in the field",
		applies: func(d *disagreement) bool {
			return strings.ContainsAny(strings.Join(d.req.Header["Connection"], ","), ";=")
		},
	},
}

// overBuffers reports whether headBuffers refuses head, a header from
// its first byte, empty lines before the request line included.
func overBuffers(head string) bool {
	hb := newHeadBuffers(&fuzzLimits)
	for {
		switch {
		case strings.HasPrefix(head, "\r\n"):
			hb.skip(2)
		case strings.HasPrefix(head, "\n"):
			hb.skip(1)
		default:
			for start := 0; start < len(head); {
				end := len(head)
				if i := strings.IndexByte(head[start:], '\n'); i >= 0 {
					end = start + i + 1
				}
				if hb.hold(start, end) != nil {
					return true
				}
				start = end
			}
			return false
		}
		head = strings.TrimPrefix(head, "\r")[1:]
	}
}

// laxChunkLine finds the chunk size lines that net/http's reader refuses
// and http1's takes.
var laxChunkLine = regexp.MustCompile(`(?m)^(?:[0-9a-fA-F]+[ \t]+;|0[0-9a-fA-F]{16,}[ \t;\r])`)

// explain fails the test unless outcome, which happened to request i of
// in (detail says how), is one of the differences.
func explain(t *testing.T, in string, i int, d *disagreement, outcome, detail string) {
	t.Helper()
	for _, diff := range differences {
		if diff.outcome == outcome && diff.applies(d) {
			t.Logf("request %d: %s: %s (%s)", i, outcome, diff.what, diff.why)
			return
		}
	}
	t.Fatalf("input %s, request %d: %s (%s), not a known difference", quoteInput(in), i, outcome, detail)
}

// quoteInput quotes an input for a message, the middle of a long one
// left out.
func quoteInput(in string) string {
	if len(in) <= 1<<10 {
		return fmt.Sprintf("%q", in)
	}
	return fmt.Sprintf("%q ... (%d bytes) ... %q", in[:512], len(in)-768, in[len(in)-256:])
}

// head returns the request's header section as sent, from its first
// byte (empty lines before the request line included) to the empty line.
func (d *disagreement) head() string { return d.in[:d.headLen] }

// trailer returns the input from the end of a chunked body's last chunk:
// the trailer section and what follows; "" for another body.
func (d *disagreement) trailer() string {
	if d.req.TransferEncoding == nil {
		return ""
	}
	body := strings.NewReader(d.in[d.headLen:])
	br := bufio.NewReader(body)
	if _, err := io.Copy(io.Discard, httputil.NewChunkedReader(br)); err != nil {
		return ""
	}
	return d.in[len(d.in)-body.Len()-br.Buffered():]
}

// section returns text up to the end of its first empty line: a header or
// trailer section as sent (all of text if it has no empty line).
func section(text string) string {
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		line := text[i : i+j]
		i += j + 1
		if line == "" || line == "\r" {
			return text[:i]
		}
	}
	return text
}

// lines splits text into lines without their line ends, up to the first
// empty one.
func lines(text string) []string {
	var ls []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSuffix(l, "\r"); l == "" {
			break
		}
		ls = append(ls, l)
	}
	return ls
}

// fieldLines returns the field lines of a header section as sent.
func fieldLines(head string) []string {
	ls := lines(strings.TrimLeft(head, "\r\n"))
	if len(ls) == 0 {
		return nil
	}
	return ls[1:] // after the request line
}

// hasField reports whether a header section as sent has a field line for
// name.
func hasField(head, name string) bool {
	return slices.ContainsFunc(fieldLines(head), func(l string) bool {
		n, _, ok := strings.Cut(l, ":")
		return ok && strings.EqualFold(n, name)
	})
}

// folded reports whether one of the field lines continues the one
// before (obs-fold).
func folded(fields []string) bool {
	return slices.ContainsFunc(fields, func(l string) bool { return l[0] == ' ' || l[0] == '\t' })
}
