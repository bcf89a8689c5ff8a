package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// upstreamChunkings are chunked bodies an origin sends after its head:
// what NGINX's ngx_http_parse_chunked takes (whitespace or anything after
// a size, leading zeros, lines ended by LF alone, any trailer lines) and
// what it refuses (a prefix or sign, a size of 2⁶³ or more, a CR that
// ends no line, data longer than its size).
var upstreamChunkings = []string{
	"3 ;x=y\r\nabc\r\n0\r\n\r\n",
	"3\t;x=y\r\nabc\r\n0\r\n\r\n",
	"3 \t ;x\r\nabc\r\n0 ; y\r\n\r\n",
	"3 \r\nabc\r\n0\r\n\r\n",
	"3 zz\r\nabc\r\n0 zz\r\n\r\n",
	"3;" + strings.Repeat("x", 3000) + "\r\nabc\r\n0\r\n\r\n",
	"00000000000000000000003\r\nabc\r\n0000\r\n\r\n",
	"A\r\n0123456789\r\n1 ;q\r\n!\r\n0\r\n\r\n",
	"3\nabc\n0\n\n",
	"3\nabc\r\n0\r\n\r\n",
	"3\r\nabc\n0\r\n\r\n",
	"3\r\nabc\r\n0\n\n",
	"3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n",
	"3\r\nabc\r\n0\nX-T: 1\n\n",
	"3\r\nabc\r\n0\r\nnot a field\r\n\r\n",
	"3\r\nabc\r\n0\r\nX-T: " + strings.Repeat("a", 5000) + "\r\n\r\n",
	"3\r\nabc\r\n0\r\n" + strings.Repeat("X-T: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", 3000) + "\r\n",
	"3\r\nabc\r\n0\r\n\r\nextra",
	"0x3\r\nabc\r\n0\r\n\r\n",
	"+3\r\nabc\r\n0\r\n\r\n",
	" 3\r\nabc\r\n0\r\n\r\n",
	"\r\nabc\r\n0\r\n\r\n",
	"ffffffffffffffffff\r\nabc\r\n0\r\n\r\n",
	"8000000000000000\r\nabc\r\n0\r\n\r\n",
	"3;a\rb\r\nabc\r\n0\r\n\r\n",
	"3\r\r\nabc\r\n0\r\n\r\n",
	"3\r\nabcX\r\n0\r\n\r\n",
	"3\r\nabc0\r\n\r\n",
	"3\r\nabc\r\n0\r\nX-T: a\rb\r\n\r\n",
}

// upstreamChunkedAnswer asks the server on port for /i, whose origin
// answers with upstreamChunkings[i], and tells what the client got: the
// status and body, or "refused" for a 502 or a connection closed with
// nothing sent. The two are one: NGINX ends the connection when the chunks
// are invalid before its header has left its buffer, where mosaic, which
// holds the header back as long, can still answer 502 (a body cut short,
// which NGINX flushes, goes out as received: TestUpstreamTruncationAsNGINX).
func upstreamChunkedAnswer(t *testing.T, port, i int) string {
	t.Helper()
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET /%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", i)
	all, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("/%d: %v", i, err)
	}
	if len(all) == 0 {
		return "refused"
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(all)), nil)
	if err != nil {
		t.Fatalf("/%d: %v in %q", i, err, all)
	}
	body, err := io.ReadAll(resp.Body)
	switch {
	case resp.StatusCode == http.StatusBadGateway:
		return "refused"
	case err != nil:
		return fmt.Sprintf("%d %q cut short", resp.StatusCode, body)
	}
	return fmt.Sprintf("%d %q", resp.StatusCode, body)
}

// TestUpstreamChunkedFramingAsNGINX: an upstream's chunked body is read
// as NGINX reads it. Go's reader, which the proxy used, refused
// whitespace before an extension, leading zeros past 16 digits, lines
// ended by LF alone and trailers longer than 4 KB or with a line that is
// not a field, all of which NGINX takes, and made them a 502.
func TestUpstreamChunkedFramingAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		i, err := strconv.Atoi(strings.TrimPrefix(req.URL.Path, "/"))
		if err != nil || i >= len(upstreamChunkings) {
			return
		}
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n"+
			"Connection: close\r\n\r\n"+upstreamChunkings[i])
	})
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; location / { proxy_pass http://%s; } }`, port, origin.Addr())
	})
	for i, chunks := range upstreamChunkings {
		if m, n := upstreamChunkedAnswer(t, mport, i), upstreamChunkedAnswer(t, nport, i); m != n {
			t.Errorf("%.80q: mosaic %s, nginx %s", chunks, m, n)
		}
	}
}
