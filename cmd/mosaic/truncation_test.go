package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/mosaic-edge/mosaic/fastcgi"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/uwsgi"
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

// truncationOrigin answers in proto's terms ("http", "uwsgi" with an
// HTTP answer, "fastcgi" with a CGI one in STDOUT records and no
// END_REQUEST): a path ending in /chunked/N with N bytes of a body of
// unknown length (chunked over HTTP), /length/N with N of the 50,000
// bytes its Content-Length announces, then it closes the connection: the
// body stops early either way. /stall/N is /length/N that then keeps the
// connection open, silent, until the proxy closes it.
func truncationOrigin(t *testing.T, proto string) *testorigin.Raw {
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		path, ok := truncationPath(br, proto)
		if !ok {
			return
		}
		parts := strings.Split(path, "/")
		n, err := strconv.Atoi(parts[len(parts)-1])
		if len(parts) < 2 || err != nil {
			return // the proxy's header read breaks off: a 502 for all
		}
		kind := parts[len(parts)-2]
		body := truncatedBody(n)
		var head, out bytes.Buffer
		if proto == "fastcgi" {
			head.WriteString("Status: 200 OK\r\n")
		} else {
			head.WriteString("HTTP/1.1 200 OK\r\n")
		}
		head.WriteString("Content-Type: text/plain\r\n")
		chunked := kind == "chunked" && proto == "http"
		switch {
		case kind != "chunked":
			head.WriteString("Content-Length: 50000\r\n")
		case chunked:
			head.WriteString("Transfer-Encoding: chunked\r\n")
		}
		head.WriteString("\r\n")
		piece := func(p []byte) {
			if proto == "fastcgi" {
				out.Write(fastcgi.AppendRecord(nil, fastcgi.TypeStdout, p))
			} else {
				out.Write(p)
			}
		}
		piece(head.Bytes())
		for len(body) > 0 {
			m := min(len(body), 1000)
			if chunked {
				piece(fmt.Appendf(nil, "%x\r\n%s\r\n", m, body[:m]))
			} else {
				piece(body[:m])
			}
			body = body[m:]
		}
		if _, err := c.Write(out.Bytes()); err != nil || kind != "stall" {
			return
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, _ = io.Copy(io.Discard, br)
	})
}

// truncationPath reads a request in proto's terms and returns its path.
func truncationPath(br *bufio.Reader, proto string) (string, bool) {
	switch proto {
	case "uwsgi":
		p, err := uwsgi.ReadRequest(br)
		if err != nil {
			return "", false
		}
		return p.Get("REQUEST_URI")
	case "fastcgi":
		var params []byte
		for {
			h, content, err := fastcgi.ReadRecord(br)
			if err != nil {
				return "", false
			}
			switch {
			case h.Type == fastcgi.TypeParams:
				params = append(params, content...)
			case h.Type == fastcgi.TypeStdin && len(content) == 0:
				pairs, err := fastcgi.ParsePairs(params)
				if err != nil {
					return "", false
				}
				for _, p := range pairs {
					if p[0] == "REQUEST_URI" {
						return p[1], true
					}
				}
				return "", false
			}
		}
	default:
		req, err := http.ReadRequest(br)
		if err != nil {
			return "", false
		}
		return req.URL.Path, true
	}
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
// a complete answer ends too). It runs on atOnce's goroutines: a failure
// is its error, not t.Fatal.
func truncatedGet(port int, path, proto string) (rawReply, error) {
	var r rawReply
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return r, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET %s %s\r\nHost: x\r\nConnection: close\r\n\r\n", path, proto)
	all, err := io.ReadAll(c)
	if err != nil {
		return r, fmt.Errorf("reading to the close: %w (got %d bytes)", err, len(all))
	}
	if len(all) == 0 {
		return r, errors.New("empty reply")
	}
	br := bufio.NewReader(bytes.NewReader(all))
	line, _ := br.ReadString('\n')
	if _, err := fmt.Sscanf(line, "HTTP/1.1 %d", &r.status); err != nil {
		return r, fmt.Errorf("status line %q", line)
	}
	r.header = http.Header{}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return r, errors.New("header cut short")
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
		return r, nil
	}
	for {
		i := bytes.Index(rest, []byte("\r\n"))
		if i < 0 {
			return r, nil
		}
		n, err := strconv.ParseInt(string(rest[:i]), 16, 64)
		if err != nil || int64(len(rest)) < int64(i)+2+n+2 {
			return r, nil
		}
		if n == 0 {
			r.complete = true
			return r, nil
		}
		r.body = append(r.body, rest[i+2:i+2+int(n)]...)
		rest = rest[i+2+int(n)+2:]
	}
}

// String tells what a client saw of a response: its status, framing and
// body bytes (whether they are the origin's, in order).
func (r rawReply) String() string {
	if r.status != http.StatusOK {
		return strconv.Itoa(r.status) // the error pages differ in their last line
	}
	return fmt.Sprintf("%d length=%q chunked=%v complete=%v bytes=%d intact=%v", r.status, r.header.Get("Content-Length"),
		r.header.Get("Transfer-Encoding") == "chunked", r.complete, len(r.body), bytes.Equal(r.body, truncatedBody(len(r.body))))
}

// h2Cut sends GET path on an HTTP/2 connection of its own and tells how
// its stream went: the status, the DATA bytes, and how it ended. Like
// truncatedGet it runs on atOnce's goroutines: a failure is its error.
func h2Cut(port int, path string) (string, error) {
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return "", err
	}
	defer c.Close()
	h := &h2cConn{Conn: c, fr: http2.NewFramer(c, c)}
	h.fr.ReadMetaHeaders = hpack.NewDecoder(65536, nil)
	h.enc = hpack.NewEncoder(&h.hb)
	fields := h2cGet(path)
	for i := 0; i+1 < len(fields); i += 2 {
		_ = h.enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		return "", err
	}
	if err := h.fr.WriteSettings(); err != nil {
		return "", err
	}
	if err := h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: h.hb.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
		return "", err
	}
	status, n := "", 0
	for {
		f, err := h.fr.ReadFrame()
		if err != nil {
			return fmt.Sprintf("%s bytes=%d connection closed", status, n), nil
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = h.fr.WriteSettingsAck()
			}
		case *http2.MetaHeadersFrame:
			status = f.PseudoValue("status")
			if f.StreamEnded() {
				return status + " no body", nil
			}
		case *http2.DataFrame:
			n += len(f.Data())
			if f.StreamEnded() {
				return fmt.Sprintf("%s bytes=%d end", status, n), nil
			}
		case *http2.RSTStreamFrame:
			return fmt.Sprintf("%s bytes=%d reset %s", status, n, f.ErrCode), nil
		case *http2.GoAwayFrame:
			return fmt.Sprintf("%s bytes=%d goaway %s", status, n, f.ErrCode), nil
		}
	}
}

// errorMessages are the error log's lines at level error, sorted, as
// "request: message" without what the server was doing ("while ..."),
// which NGINX words by the event that came last (an unbuffered body's
// close is "while reading upstream" or "while sending to client" by
// chance), nor the system's error text. A FastCGI connection closed in
// the body is left out: NGINX takes it for the body's end and logs
// nothing (truncationNorm).
func errorMessages(t *testing.T, path string) []string {
	t.Helper()
	b, _ := os.ReadFile(path)
	var msgs []string
	for _, line := range strings.Split(string(b), "\n") {
		m := nginxErrorLine.FindStringSubmatch(line)
		if m == nil {
			m = mosaicErrorLine.FindStringSubmatch(line)
		}
		if m == nil || strings.HasPrefix(m[2], "/f") && !strings.Contains(m[2], "/stall/") && !strings.HasSuffix(m[2], "/cut") {
			continue
		}
		msg, _, _ := strings.Cut(m[1], " while ")
		msgs = append(msgs, m[2]+": "+strings.TrimSuffix(msg, " (110: Connection timed out)"))
	}
	slices.Sort(msgs)
	return msgs
}

var (
	nginxErrorLine  = regexp.MustCompile(`\[error\] \d+#\d+: \*\d+ (.*?), client: .* request: "GET (\S+ \S+)"`)
	mosaicErrorLine = regexp.MustCompile(`level=error msg="(.*?)" .*request="GET (\S+ \S+)"`)
)

// An upstream whose body stops early (it closes the connection before
// its Content-Length or last chunk, or its read times out), through
// proxy_pass, uwsgi_pass and fastcgi_pass, buffered or not: NGINX has
// sent the header once it had read it, so the client gets the 200, every
// byte received and a close (a Content-Length not reached, a chunked
// body without its last chunk, an HTTP/2 stream reset), and the access
// log has the 200 and the bytes sent. Only a header that never came
// whole is a 502. mosaic answered 502 while the body fitted its first
// buffer. FastCGI's exception: a connection closed before END_REQUEST
// ends the body in NGINX as if complete (see fastcgi/README.md).
func TestUpstreamTruncationAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	origins := map[string]string{}
	for _, proto := range []string{"http", "uwsgi", "fastcgi"} {
		origins[proto] = truncationOrigin(t, proto).Addr()
	}
	h2Port := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`log_format cut '$request_uri $server_protocol $status $body_bytes_sent $upstream_status';
			server { listen 127.0.0.1:%[1]d; listen 127.0.0.1:%[2]d http2;
			access_log %[3]s/access.log cut; error_log %[3]s/error.log info;
			proxy_read_timeout 300ms; uwsgi_read_timeout 300ms; fastcgi_read_timeout 300ms;
			uwsgi_param REQUEST_URI $request_uri; fastcgi_param REQUEST_URI $request_uri;
			location /h/ { proxy_pass http://%[4]s; }
			location /hn/ { proxy_buffering off; proxy_pass http://%[4]s; }
			location /u/ { uwsgi_pass %[5]s; }
			location /un/ { uwsgi_buffering off; uwsgi_pass %[5]s; }
			location /f/ { fastcgi_pass %[6]s; }
			location /fn/ { fastcgi_buffering off; fastcgi_pass %[6]s; } }`,
			port, h2Port[who], sub, origins["http"], origins["uwsgi"], origins["fastcgi"])
	})
	var paths []string
	for _, loc := range []string{"h", "hn", "u", "un", "f", "fn"} {
		paths = append(paths, "/"+loc+"/cut", "/"+loc+"/stall/12000")
		for _, kind := range []string{"chunked", "length"} {
			if kind == "chunked" && strings.HasPrefix(loc, "u") {
				continue // a uwsgi body of unknown length ends at the close: not cut
			}
			for _, n := range []int{0, 12000, 40000} {
				paths = append(paths, fmt.Sprintf("/%s/%s/%d", loc, kind, n))
			}
		}
	}
	// Each /stall/ request waits out the 300 ms read timeout: they are
	// asked at once (36 of them, 11 s in turn). The others, asked in turn,
	// keep the CPU free for them, so that a busy server's pause is not
	// taken for a timeout.
	type ask struct{ path, proto, who string }
	var fast, slow []ask
	for _, path := range paths {
		for _, proto := range []string{"HTTP/1.1", "HTTP/1.0", "HTTP/2"} {
			for _, who := range []string{"m", "n"} {
				if strings.Contains(path, "/stall/") {
					slow = append(slow, ask{path, proto, who})
				} else {
					fast = append(fast, ask{path, proto, who})
				}
			}
		}
	}
	answer := func(a ask) string {
		var got string
		var err error
		if a.proto == "HTTP/2" {
			got, err = h2Cut(h2Port[a.who], a.path)
		} else {
			var r rawReply
			r, err = truncatedGet(map[string]int{"m": mport, "n": nport}[a.who], a.path, a.proto)
			got = r.String()
		}
		if err != nil {
			t.Errorf("%s %s to %s: %v", a.proto, a.path, a.who, err)
			return "error"
		}
		return truncationNorm(a.path, got)
	}
	got := map[ask]string{}
	for _, a := range fast {
		got[a] = answer(a)
	}
	for i, s := range atOnce(len(slow), func(i int) string { return answer(slow[i]) }) {
		got[slow[i]] = s
	}
	for _, a := range append(fast, slow...) {
		if m, n := got[ask{a.path, a.proto, "m"}], got[ask{a.path, a.proto, "n"}]; a.who == "m" && m != n {
			t.Errorf("%s %s:\nmosaic %s\nNGINX  %s", a.proto, a.path, m, n)
		}
	}
	requests := len(paths) * 3
	mlog := truncationLog(t, filepath.Join(dir, "mosaic/access.log"), requests)
	nlog := truncationLog(t, filepath.Join(dir, "nginx/access.log"), requests)
	if d := lineDiff(mlog, nlog); d != "" {
		t.Errorf("access log (mosaic, NGINX):\n%s", d)
	}
	mErr, nErr := errorMessages(t, filepath.Join(dir, "mosaic/error.log")), errorMessages(t, filepath.Join(dir, "nginx/error.log"))
	if d := lineDiff(mErr, nErr); d != "" {
		t.Errorf("error log messages (mosaic, NGINX):\n%s", d)
	}
}

// truncationNorm leaves out of the answer to path what differs by
// design (proxy/README.md and fastcgi/README.md, "Differences from
// NGINX"): after a read timeout NGINX's client has only the bytes that
// filled its buffers, mosaic's every byte received; a FastCGI connection
// closed before END_REQUEST ends the body in NGINX as if it were
// complete, where mosaic's client sees it cut short. Body bytes after an
// error status are a page that differs in its last line.
func truncationNorm(path, answer string) string {
	loc := strings.Split(path, "/")[1]
	if strings.Contains(path, "/stall/") && !strings.HasSuffix(loc, "n") {
		answer = bytesField.ReplaceAllString(answer, "bytes=(some)")
	}
	if strings.HasPrefix(loc, "f") && !strings.Contains(path, "/stall/") {
		answer = strings.NewReplacer("complete=true", "complete=(either)", "complete=false", "complete=(either)",
			" end", " (ended)", " reset INTERNAL_ERROR", " (ended)").Replace(answer)
	}
	if !strings.HasPrefix(answer, "200") {
		answer = bytesField.ReplaceAllString(answer, "bytes=(page)")
	}
	return answer
}

var bytesField = regexp.MustCompile(`bytes=\d+`)

// truncationLog reads n lines of the access log "$request_uri
// $server_protocol $status $body_bytes_sent $upstream_status", sorted,
// with the bytes left out where they differ by design: those of an error
// page, of a read timeout's answer (truncationNorm), and those of a
// chunked body of several chunks, whose framing follows the servers'
// buffers. A chunked body cut short counts no last chunk.
func truncationLog(t *testing.T, path string, n int) []string {
	t.Helper()
	lines := refusedLines(t, path, n)
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) != 5 {
			continue
		}
		loc := strings.Split(f[0], "/")[1]
		buffered := !strings.HasSuffix(loc, "n")
		// Chunks follow each server's reads and buffers: only a body that
		// went out as one chunk, or none, is framed alike. A FastCGI
		// body gets NGINX's last chunk (truncationNorm).
		oneChunk := strings.HasSuffix(f[0], "/0") || buffered && !strings.HasSuffix(f[0], "/40000")
		if f[2] != "200" || strings.Contains(f[0], "/stall/") && buffered ||
			f[1] == "HTTP/1.1" && strings.Contains(f[0], "/chunked/") && (!oneChunk || strings.HasPrefix(loc, "f")) {
			f[3] = "-"
		}
		// NGINX's buffers may send 12000 bytes as one chunk or two
		// (8192 and 3808 bytes), by how the reads fell: either is the
		// body without its last chunk (which would add 5).
		if f[1] == "HTTP/1.1" && strings.HasSuffix(f[0], "/chunked/12000") && (f[3] == "12008" || f[3] == "12015") {
			f[3] = "12000+chunks"
		}
		lines[i] = strings.Join(f, " ")
	}
	slices.Sort(lines)
	return lines
}

// lineDiff lists the lines of two sorted lists that only one has.
func lineDiff(m, n []string) string {
	var b strings.Builder
	i, j := 0, 0
	for i < len(m) || j < len(n) {
		switch {
		case j == len(n) || i < len(m) && m[i] < n[j]:
			fmt.Fprintf(&b, "- mosaic only: %s\n", m[i])
			i++
		case i == len(m) || n[j] < m[i]:
			fmt.Fprintf(&b, "+ NGINX only:  %s\n", n[j])
			j++
		default:
			i++
			j++
		}
	}
	return b.String()
}
