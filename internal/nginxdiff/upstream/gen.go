package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
)

// tcase is one drawn upstream answer and the request that gets it.
type tcase struct {
	loc    string   // the location: p, b, c, i, g (see config)
	method string   // GET or HEAD
	head   []string // the response's lines before the blank one, interim answers included
	eol    string   // "\r\n" or a bare "\n"
	body   []byte   // the bytes after the head, framing included
	headTo bool     // the origin sends body to a HEAD as well
	close  bool     // the origin closes the connection after the answer
	pieces []string // what was drawn, for the report and the classes
}

// raw is what the origin writes for a request of method.
func (c *tcase) raw(method string) []byte {
	var b bytes.Buffer
	for _, l := range c.head {
		b.WriteString(l)
		b.WriteString(c.eol)
	}
	if len(c.head) > 0 {
		b.WriteString(c.eol)
	}
	if method != "HEAD" || c.headTo {
		b.Write(c.body)
	}
	return b.Bytes()
}

// has reports whether p ("frame=te", or a name alone: "longhead",
// "interim") was drawn.
func (c *tcase) has(p string) bool {
	for _, q := range c.pieces {
		if q == p || strings.HasPrefix(q, p+"=") {
			return true
		}
	}
	return false
}

type gen struct {
	r *rand.Rand
	c *tcase
}

func (g *gen) pick(name string, opts ...string) string {
	o := opts[g.r.Intn(len(opts))]
	g.c.pieces = append(g.c.pieces, name+"="+o)
	return o
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// content is the n bytes of a body: text, so that a cut or a shift shows.
func content(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = "abcdefghijklmnopqrstuvwxyz0123456789\n"[i%37]
	}
	return b
}

// genCase draws one case: the location, the method, the status line (and
// interim answers before it), the fields, and the body with its framing.
func genCase(r *rand.Rand) *tcase {
	c := &tcase{eol: "\r\n"}
	g := &gen{r: r, c: c}
	c.loc = g.pick("loc", "p", "p", "b", "c", "i", "g")
	c.method = "GET"
	if g.chance(0.2) {
		c.method = g.pick("method", "HEAD")
	}
	if g.chance(0.05) {
		c.eol = g.pick("eol", "\n")
	}

	// Status line.
	code := g.pick("code", "200", "200", "200", "200", "201", "204", "206", "301", "302", "304", "404", "500", "503",
		"099", "101", "199", "600", "999", "1000", "20", "2x0")
	version := "HTTP/1.1"
	if g.chance(0.25) {
		version = g.pick("version", "HTTP/1.0", "HTTP/1.2", "HTTP/2.0", "http/1.1", "HTTP/1.10", "HTTP/0.9", "HTTP/1.1 ")
	}
	reason := " OK"
	if g.chance(0.15) {
		reason = g.pick("reason", "", " ", " x y z")
	}
	if g.chance(0.1) {
		c.head = append(c.head, g.pick("interim", "HTTP/1.1 100 Continue", "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload", "HTTP/1.1 102 Processing")+c.eol)
	}
	noStatus := g.chance(0.03)
	if noStatus {
		g.c.pieces = append(g.c.pieces, "nostatus")
	} else {
		c.head = append(c.head, version+" "+code+reason)
	}

	// Fields.
	var f []string
	if g.chance(0.8) {
		f = append(f, "Content-Type: text/plain")
	}
	if g.chance(0.3) {
		f = append(f, g.pick("server", "Server: origin/1", "Date: Mon, 07 Dec 2026 00:00:00 GMT", "Server: a\r\nServer: b"))
	}
	if g.chance(0.2) {
		f = append(f, "Cache-Control: "+g.pick("cc", "max-age=60", "no-store", "private", "max-age=60, max-age=0", "s-maxage=x"))
	}
	for range g.r.Intn(4) {
		f = append(f, g.field())
	}
	if g.chance(0.2) {
		f = append(f, "Connection: "+g.pick("connection", "close", "keep-alive", "close, X-Drop", "X-Drop", "Keep-Alive", "upgrade"), "X-Drop: 1")
	}
	if g.chance(0.1) {
		f = append(f, "Keep-Alive: "+g.pick("keepalive", "timeout=1", "timeout=5, max=1", "max=0"))
	}
	if g.chance(0.04) {
		f = append(f, "X-Long: "+strings.Repeat("l", g.r.Intn(12000)+3000))
		g.c.pieces = append(g.c.pieces, "longhead")
	}

	// Body and framing.
	n := []int{0, 5, 26, 100, 9000}[g.r.Intn(5)]
	body := content(n)
	switch g.pick("frame", "cl", "cl", "cl", "short", "long", "close", "chunked", "chunked", "twocl", "badcl", "te") {
	case "cl":
		f = append(f, "Content-Length: "+strconv.Itoa(n))
		c.body = body
	case "short": // fewer bytes than the length, then the close
		f = append(f, "Content-Length: "+strconv.Itoa(n+1+g.r.Intn(10)))
		c.body, c.close = body, true
	case "long": // more bytes than the length; the rest is left on the connection
		k := g.r.Intn(n + 1)
		f = append(f, "Content-Length: "+strconv.Itoa(n-k))
		c.body = body
		c.close = g.chance(0.5)
	case "close":
		c.body, c.close = body, true
	case "chunked":
		f = append(f, "Transfer-Encoding: chunked")
		c.body = g.chunks(body)
	case "twocl":
		switch g.pick("cl2", "equal", "differ", "list", "listdiff") {
		case "equal":
			f = append(f, fmt.Sprintf("Content-Length: %d", n), fmt.Sprintf("Content-Length: %d", n))
		case "differ":
			f = append(f, fmt.Sprintf("Content-Length: %d", n), fmt.Sprintf("Content-Length: %d", n+1))
		case "list":
			f = append(f, fmt.Sprintf("Content-Length: %d, %d", n, n))
		case "listdiff":
			f = append(f, fmt.Sprintf("Content-Length: %d, %d", n, n+1))
		}
		c.body, c.close = body, g.chance(0.5)
	case "badcl":
		v := g.pick("badcl", "+", "0", "-", " ", "x", "huge", "empty", "hex")
		switch v {
		case "+", "0", "-":
			v += strconv.Itoa(n)
		case " ":
			v = strconv.Itoa(n) + " "
		case "x":
			v = strconv.Itoa(n) + "x"
		case "huge":
			v = "99999999999999999999"
		case "empty":
			v = ""
		case "hex":
			v = fmt.Sprintf("0x%x", n)
		}
		f = append(f, "Content-Length: "+v)
		c.body, c.close = body, true
	case "te":
		te := g.pick("te", "gzip, chunked", "chunked, chunked", "identity", "Chunked", "CHUNKED", "chunked, identity", "gzip", "x, chunked", "chunked;q=1")
		f = append(f, "Transfer-Encoding: "+te)
		if g.chance(0.5) {
			f = append(f, "Content-Length: "+strconv.Itoa(n))
			g.c.pieces = append(g.c.pieces, "tecl")
		}
		lte := strings.ToLower(te)
		if strings.HasPrefix(lte, "gzip") {
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			w.Write(body)
			w.Close()
			body = z.Bytes()
		}
		if strings.HasSuffix(lte, "chunked") || strings.Contains(lte, "chunked,") {
			c.body = g.chunks(body)
		} else {
			c.body = body
		}
		c.close = true
	}
	if c.method == "HEAD" && g.chance(0.3) {
		c.headTo = true
		g.c.pieces = append(g.c.pieces, "headbody")
	}
	// Shuffle the fields: where the length comes among the others matters
	// to a parser that stops early.
	g.r.Shuffle(len(f), func(i, j int) { f[i], f[j] = f[j], f[i] })
	if !noStatus {
		c.head = append(c.head, f...)
	} else {
		// An answer without a status line: its fields and body are only
		// bytes (HTTP/0.9), and the origin closes.
		c.head = nil
		var b bytes.Buffer
		for _, l := range f {
			b.WriteString(l + c.eol)
		}
		b.WriteString(c.eol)
		b.Write(c.body)
		c.body, c.close, c.headTo = b.Bytes(), true, true
	}
	return c
}

// field draws one field proxies are known to mishandle.
func (g *gen) field() string {
	switch g.pick("field", "fold", "spacecolon", "emptyname", "ctl", "under", "dupct", "duploc", "duplm", "cookies",
		"loc", "accel", "accel", "lm", "etag", "vary") {
	case "fold":
		return "X-Fold: a\r\n b"
	case "spacecolon":
		return "X-Space : 1"
	case "emptyname":
		return ": empty"
	case "ctl":
		return "X-Ctl: a" + g.pick("ctlbyte", "\x00", "\r", "\x7f", "\x01", "\t") + "b"
	case "under":
		return "X_Under: 1"
	case "dupct":
		return "Content-Type: text/html\r\nContent-Type: application/json"
	case "duploc":
		return "Location: /o/one\r\nLocation: /o/two"
	case "duplm":
		return "Last-Modified: Sun, 13 Sep 2020 12:26:40 GMT\r\nLast-Modified: Mon, 14 Sep 2020 12:26:40 GMT"
	case "cookies":
		return "Set-Cookie: a=1; Path=/\r\nSet-Cookie: b=2; Domain=up"
	case "loc":
		return "Location: " + g.pick("location", "http://up/o/x", "/o/x", "x", "http://other/x", "http://up/ox", "HTTP://UP/o/x", "http://up:80/o/x", "")
	case "accel":
		switch g.pick("accel", "redirect", "redirect404", "buffering", "limitrate", "expires", "charset") {
		case "redirect":
			return "X-Accel-Redirect: /xr/target"
		case "redirect404":
			return "X-Accel-Redirect: " + g.pick("xrto", "/nowhere", "@named", "/xr/t?a=1", "relative", "/xr/%2e%2e/x")
		case "buffering":
			return "X-Accel-Buffering: " + g.pick("xab", "no", "yes", "NO", "x")
		case "limitrate":
			return "X-Accel-Limit-Rate: " + g.pick("xalr", "1000", "0", "x", "-1")
		case "expires":
			return "X-Accel-Expires: " + g.pick("xae", "0", "60", "@1", "x", "-1")
		case "charset":
			return "X-Accel-Charset: " + g.pick("xac", "utf-8", "koi8-r", "")
		}
	case "lm":
		return "Last-Modified: " + g.pick("lmval", "Sun, 13 Sep 2020 12:26:40 GMT", "yesterday", "Sun, 13 Sep 2020 12:26:40")
	case "etag":
		return "ETag: " + g.pick("etagval", `"e1"`, `W/"e1"`, "e1")
	case "vary":
		return "Vary: " + g.pick("varyval", "Accept-Encoding", "*", "Cookie")
	}
	panic("unreachable")
}

// chunks frames body in chunks drawn with the faults chunked readers
// disagree on.
func (g *gen) chunks(body []byte) []byte {
	fault := "none"
	if g.chance(0.5) {
		fault = g.pick("chunk", "ext", "trailer", "upper", "zeros", "badhex", "overflow", "nolast", "nolastopen", "lf", "sizelong", "sizeshort", "space")
	}
	var b bytes.Buffer
	rest := body
	for len(rest) > 0 {
		k := min(len(rest), 1+g.r.Intn(40))
		if g.chance(0.2) {
			k = len(rest)
		}
		size := fmt.Sprintf("%x", k)
		switch fault {
		case "ext":
			size += ";a=b"
		case "upper":
			size = strings.ToUpper(size)
		case "zeros":
			size = "000" + size
		case "space":
			size += " "
		}
		data := rest[:k]
		rest = rest[k:]
		if fault == "sizelong" && len(rest) == 0 {
			size = fmt.Sprintf("%x", k+2)
		}
		if fault == "sizeshort" && len(rest) == 0 && k > 1 {
			size = fmt.Sprintf("%x", k-1)
		}
		eol := "\r\n"
		if fault == "lf" {
			eol = "\n"
		}
		b.WriteString(size + eol)
		b.Write(data)
		b.WriteString(eol)
	}
	switch fault {
	case "badhex":
		b.WriteString("zz\r\nab\r\n")
		g.c.close = true
	case "overflow":
		b.WriteString("ffffffffffffffffff\r\nab\r\n")
		g.c.close = true
	case "nolast":
		g.c.close = true
	case "nolastopen":
	case "trailer":
		b.WriteString("0\r\nX-Trailer: 1\r\nSet-Cookie: t=1\r\n\r\n")
	case "lf":
		b.WriteString("0\n\n")
	case "ext":
		b.WriteString("0;a=b\r\n\r\n")
	default:
		b.WriteString("0\r\n\r\n")
	}
	return b.Bytes()
}
