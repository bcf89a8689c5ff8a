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

// truncatedBody is the body an origin of truncationOrigin starts to send:
// n bytes of a pattern that shows a byte lost or moved.
func truncatedBody(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return b
}

// truncationOrigin answers /chunked/N with N bytes of a chunked body and
// /length/N with N of the 50,000 bytes its Content-Length announces, then
// closes the connection: the body stops early either way.
func truncationOrigin(t *testing.T) *testorigin.Raw {
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		kind, size, _ := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/")
		n, err := strconv.Atoi(size)
		if err != nil {
			fmt.Fprint(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
			return
		}
		body := truncatedBody(n)
		w := bufio.NewWriter(c)
		if kind == "length" {
			fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 50000\r\n\r\n%s", body)
		} else {
			fmt.Fprint(w, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
			for len(body) > 0 {
				m := min(len(body), 1000)
				fmt.Fprintf(w, "%x\r\n%s\r\n", m, body[:m])
				body = body[m:]
			}
		}
		w.Flush()
	})
}

// rawReply is a response read to the connection's end, byte for byte.
type rawReply struct {
	status   int
	header   http.Header
	body     []byte // de-chunked when chunked
	complete bool   // a chunked body ended with its last chunk
}

// truncatedGet sends GET path with the given protocol version and reads
// until the server closes the connection (asked to, for HTTP/1.1, so that
// a complete answer ends too).
func truncatedGet(t *testing.T, port int, path, proto string) rawReply {
	t.Helper()
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET %s %s\r\nHost: x\r\nConnection: close\r\n\r\n", path, proto)
	all, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("%s %s: reading to the close: %v (got %d bytes)", proto, path, err, len(all))
	}
	if len(all) == 0 {
		t.Fatalf("%s %s: empty reply", proto, path)
	}
	br := bufio.NewReader(bytes.NewReader(all))
	line, _ := br.ReadString('\n')
	var r rawReply
	if _, err := fmt.Sscanf(line, "HTTP/1.1 %d", &r.status); err != nil {
		t.Fatalf("%s %s: status line %q", proto, path, line)
	}
	r.header = http.Header{}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("%s %s: header cut short", proto, path)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		k, v, _ := strings.Cut(line, ": ")
		r.header.Add(k, v)
	}
	rest, _ := io.ReadAll(br)
	if r.header.Get("Transfer-Encoding") != "chunked" {
		r.body = rest
		return r
	}
	for {
		i := bytes.Index(rest, []byte("\r\n"))
		if i < 0 {
			return r
		}
		n, err := strconv.ParseInt(string(rest[:i]), 16, 64)
		if err != nil || int64(len(rest)) < int64(i)+2+n+2 {
			return r
		}
		if n == 0 {
			r.complete = true
			return r
		}
		r.body = append(r.body, rest[i+2:i+2+int(n)]...)
		rest = rest[i+2+int(n)+2:]
	}
}

// An origin whose body stops early: while nothing has gone to the client
// it gets a 502; once the header has gone it gets every byte received and
// a close that a client can tell from a complete body (a Content-Length
// not reached, a chunked body without its last chunk), except an HTTP/1.0
// client of a body of unknown length, which gets what NGINX 1.22 gives
// it: the bytes and a close. Each cut is logged at error with the bytes.
func TestUpstreamTruncation(t *testing.T) {
	origin := truncationOrigin(t)
	dir := t.TempDir()
	port := freePort(t)
	p := startMosaic(t, dir, fmt.Sprintf(`error_log stderr info;
		http { server { listen 127.0.0.1:{port};
			location / { proxy_pass http://%[1]s; }
			location /nb/ { proxy_buffering off; proxy_pass http://%[1]s/; } } }`, origin.Addr()), port)

	cases := []struct {
		path    string
		status  int
		length  string // the Content-Length the client sees, "" for none
		chunked bool   // HTTP/1.1 only; HTTP/1.0 never gets chunks
		bytes   int    // the body bytes the client sees after a 200
	}{
		// Buffered, a short body has not gone out when it breaks off.
		{path: "/chunked/12000", status: 502},
		// Unbuffered, the header and each piece leave at once.
		{path: "/nb/chunked/12000", status: 200, chunked: true, bytes: 12000},
		// Longer than the buffer: the header has gone.
		{path: "/chunked/40000", status: 200, chunked: true, bytes: 40000},
		{path: "/length/40000", status: 200, length: "50000", bytes: 40000},
		{path: "/nb/length/40000", status: 200, length: "50000", bytes: 40000},
		// A Content-Length body that fits the buffer: still nothing sent.
		{path: "/length/12000", status: 502},
	}
	for _, tc := range cases {
		for _, proto := range []string{"HTTP/1.1", "HTTP/1.0"} {
			r := truncatedGet(t, port, tc.path, proto)
			if r.status != tc.status {
				t.Errorf("%s %s: status %d, want %d (body %q)", proto, tc.path, r.status, tc.status, r.body)
				continue
			}
			if tc.status == 502 {
				if !bytes.Contains(r.body, []byte("<h1>502 Bad Gateway</h1>")) || r.header.Get("Content-Length") != strconv.Itoa(len(r.body)) {
					t.Errorf("%s %s: not the whole 502 page: %v %q", proto, tc.path, r.header, r.body)
				}
				continue
			}
			if got := r.header.Get("Content-Length"); got != tc.length {
				t.Errorf("%s %s: Content-Length %q, want %q", proto, tc.path, got, tc.length)
			}
			chunked := tc.chunked && proto == "HTTP/1.1"
			if got := r.header.Get("Transfer-Encoding") == "chunked"; got != chunked {
				t.Errorf("%s %s: chunked %v, want %v", proto, tc.path, got, chunked)
			}
			if chunked && r.complete {
				t.Errorf("%s %s: the truncated chunked body ends with a last chunk", proto, tc.path)
			}
			if !bytes.Equal(r.body, truncatedBody(tc.bytes)) {
				t.Errorf("%s %s: %d body bytes, want the %d received", proto, tc.path, len(r.body), tc.bytes)
			}
		}
	}
	for _, want := range []string{
		`level=error msg="upstream prematurely closed connection while reading upstream"`,
		`upstream=http://` + origin.Addr() + `/chunked/12000`,
		"bytes=12000",
		"bytes=40000",
	} {
		waitOutput(t, p, want)
	}
}
