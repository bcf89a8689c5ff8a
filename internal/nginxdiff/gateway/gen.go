package main

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"slices"
	"strings"
)

// answer is what the applications send for one case: a CGI head (or an
// HTTP status line and fields) and a body, and for FastCGI the records
// that carry them. draw makes it from the case number alone, so NGINX's
// request and mosaic's get the same bytes.
type answer struct {
	tags    []string // what was drawn, for the report
	stream  []byte   // head and body, as the application writes them
	records []record // FastCGI: in order; the request id is filled in when sent
	cut     int      // FastCGI: bytes of the records sent before closing; -1: all
	close   bool     // FastCGI: close the connection after the records
	short   int      // SCGI, uwsgi: bytes of stream sent; -1: all
}

type record struct {
	typ, version byte
	idDelta      uint16 // added to the request id: a wrong id
	content      []byte
	pad          int
}

// head pieces: each draws one or more lines.
var pieces = []func(r *rand.Rand) []string{
	func(r *rand.Rand) []string {
		forms := []string{"404", "404 Not Found", "  404  Not Found  ", "abc", "99", "1000", "", "200 OK", "302", "301 Moved", "204", "304", "500 Oops", "503", "403 x", "2000", "404abc", "600", "100", "101 Up"}
		return []string{"Status: " + forms[r.Intn(len(forms))]}
	},
	func(r *rand.Rand) []string { return []string{"Status: 404", "Status: 200"} },
	func(r *rand.Rand) []string {
		locs := []string{"http://a.test/abs", "/local/p?a=1", "/local/q", "local/rel", "", "https://b.test/x y", "@named"}
		return []string{"Location: " + locs[r.Intn(len(locs))]}
	},
	func(r *rand.Rand) []string { return []string{"Content-Type: text/plain"} },
	func(r *rand.Rand) []string { return []string{"Content-Type: text/a", "Content-Type: text/b"} },
	func(r *rand.Rand) []string { return []string{"content-type: text/lower"} },
	func(r *rand.Rand) []string { return []string{"No colon here"} },
	func(r *rand.Rand) []string { return []string{"X-Fold: a", " folded"} },
	func(r *rand.Rand) []string { return []string{": empty name"} },
	func(r *rand.Rand) []string { return []string{"X-Nul: a\x00b"} },
	func(r *rand.Rand) []string { return []string{"X-Cr: a\rb"} },
	func(r *rand.Rand) []string { return []string{"X Space: v"} },
	func(r *rand.Rand) []string { return []string{"X-Empty:"} },
	func(r *rand.Rand) []string {
		accel := []string{"X-Accel-Redirect: /local/acc", "X-Accel-Buffering: no", "X-Accel-Expires: 0", "X-Accel-Charset: utf-8", "X-Accel-Limit-Rate: 100000", "X-Accel-Redirect: @named", "X-Accel-Foo: bar"}
		return []string{accel[r.Intn(len(accel))]}
	},
	func(r *rand.Rand) []string { return []string{"Set-Cookie: a=1", "Set-Cookie: b=2"} },
	func(r *rand.Rand) []string { return []string{"X-Plain: v"} },
	func(r *rand.Rand) []string { return []string{"Transfer-Encoding: chunked"} },
	func(r *rand.Rand) []string { return []string{"Connection: close"} },
	func(r *rand.Rand) []string { return []string{"X-Long: " + strings.Repeat("l", 3000+r.Intn(6000))} },
	func(r *rand.Rand) []string { return []string{"Content-Length: abc"} },
	func(r *rand.Rand) []string { return []string{"HTTP/1.1 200 OK"} },
	func(r *rand.Rand) []string { return []string{"Cache-Control: max-age=60"} },
}

// draw makes case n's answer.
func draw(n int) *answer {
	r := rand.New(rand.NewSource(*seed*1_000_003 + int64(n)))
	a := &answer{cut: -1, short: -1}
	var lines []string
	// A status line first, as uwsgi and SCGI applications write.
	if r.Intn(4) == 0 {
		sl := []string{"HTTP/1.1 200 OK", "HTTP/1.0 404 Not Found", "HTTP/1.1 302 Found", "HTTP/1.1 abc", "HTTP/1.1 204 No Content", "HTTP/2 201", "HTTP/1.1 200"}
		lines = append(lines, sl[r.Intn(len(sl))])
		a.tags = append(a.tags, "statusline")
	}
	for range r.Intn(5) {
		i := r.Intn(len(pieces))
		lines = append(lines, pieces[i](r)...)
		a.tags = append(a.tags, fmt.Sprintf("p%d", i))
	}
	body := strings.Repeat("b", r.Intn(3)*r.Intn(200))
	switch r.Intn(5) {
	case 0:
		lines = append(lines, fmt.Sprintf("Content-Length: %d", len(body)))
		a.tags = append(a.tags, "cl")
	case 1:
		d := []int{-5, -1, 1, 10}[r.Intn(4)]
		if len(body)+d >= 0 {
			lines = append(lines, fmt.Sprintf("Content-Length: %d", len(body)+d))
			a.tags = append(a.tags, fmt.Sprintf("cl%+d", d))
		}
	}
	eol := "\r\n"
	switch r.Intn(6) {
	case 0:
		eol = "\n"
		a.tags = append(a.tags, "lf")
	case 1:
		eol = "" // mixed: each line draws
		a.tags = append(a.tags, "mixed-eol")
	}
	var head strings.Builder
	for _, l := range lines {
		e := eol
		if e == "" {
			e = []string{"\r\n", "\n"}[r.Intn(2)]
		}
		head.WriteString(l + e)
	}
	if r.Intn(25) == 0 {
		a.tags = append(a.tags, "noend")
		body = ""
	} else {
		head.WriteString([]string{"\r\n", "\n"}[r.Intn(2)])
	}
	a.stream = append([]byte(head.String()), body...)
	if r.Intn(12) == 0 {
		a.short = r.Intn(len(a.stream) + 1)
		a.tags = append(a.tags, fmt.Sprintf("short%d", a.short))
	}
	a.drawRecords(r, head.Len())
	return a
}

// drawRecords splits the stream into STDOUT records (random sizes, a
// split inside the head, empty ones, padding, STDERR between), ends them
// with END_REQUEST, and sometimes breaks the framing.
func (a *answer) drawRecords(r *rand.Rand, headLen int) {
	add := func(typ byte, content []byte) {
		rec := record{typ: typ, version: 1, content: content}
		if r.Intn(5) == 0 {
			rec.pad = r.Intn(9)
		}
		a.records = append(a.records, rec)
	}
	stderr := func() {
		if r.Intn(6) == 0 {
			add(fcgiStderr, []byte("PHP message: oops"))
			a.tags = append(a.tags, "stderr")
		}
	}
	s := a.stream
	onlyStderr := r.Intn(30) == 0
	if onlyStderr {
		a.tags = append(a.tags, "only-stderr")
		s = nil
		add(fcgiStderr, []byte("PHP message: only"))
	}
	var cuts []int
	if len(s) > 0 {
		if r.Intn(3) == 0 {
			cuts = append(cuts, r.Intn(headLen+1)) // somewhere in the head
			a.tags = append(a.tags, "split")
		}
		for range r.Intn(3) {
			cuts = append(cuts, r.Intn(len(s)+1))
		}
	}
	prev := 0
	slices.Sort(cuts)
	for _, c := range append(cuts, len(s)) {
		if c < prev {
			continue
		}
		stderr()
		if c == prev && c != len(s) {
			continue
		}
		if c > prev {
			add(fcgiStdout, s[prev:c])
		}
		prev = c
		if r.Intn(20) == 0 && c < len(s) {
			add(fcgiStdout, nil) // an empty STDOUT mid-stream
			a.tags = append(a.tags, "empty-mid")
		}
	}
	if r.Intn(10) != 0 && !onlyStderr {
		add(fcgiStdout, nil)
	} else {
		a.tags = append(a.tags, "no-stdout-end")
	}
	end := make([]byte, 8)
	if r.Intn(8) == 0 {
		binary.BigEndian.PutUint32(end, uint32(r.Intn(3)))
		a.tags = append(a.tags, "appstatus")
	}
	if r.Intn(15) == 0 {
		end[4] = byte(1 + r.Intn(3)) // CANT_MPX_CONN, OVERLOADED, UNKNOWN_ROLE
		a.tags = append(a.tags, fmt.Sprintf("proto%d", end[4]))
	}
	if r.Intn(40) == 0 { // END_REQUEST alone
		a.records = nil
		a.tags = append(a.tags, "end-only")
	}
	a.records = append(a.records, record{typ: fcgiEnd, version: 1, content: end})
	switch r.Intn(30) {
	case 0:
		a.records[r.Intn(len(a.records))].idDelta = 1
		a.tags = append(a.tags, "wrong-id")
	case 1:
		a.records[r.Intn(len(a.records))].version = 2
		a.tags = append(a.tags, "wrong-version")
	case 2:
		i := r.Intn(len(a.records))
		a.records = append(a.records[:i], append([]record{{typ: byte(11 + r.Intn(3)), version: 1, content: []byte("x")}}, a.records[i:]...)...)
		a.tags = append(a.tags, "unknown-type")
	case 3:
		a.cut = r.Intn(len(a.bytes(1)))
		a.tags = append(a.tags, fmt.Sprintf("cut%d", a.cut))
	case 4, 5:
		a.records = append(a.records, record{typ: fcgiStdout, version: 1, content: []byte("LEFTOVER")},
			record{typ: fcgiEnd, version: 1, content: make([]byte, 8)})
		a.tags = append(a.tags, "after-end")
	}
	a.close = r.Intn(4) == 0
}

// bytes is the records on the wire for request id.
func (a *answer) bytes(id uint16) []byte {
	var b []byte
	for _, rec := range a.records {
		var h [fcgiHeaderLen]byte
		h[0], h[1] = rec.version, rec.typ
		binary.BigEndian.PutUint16(h[2:], id+rec.idDelta)
		binary.BigEndian.PutUint16(h[4:], uint16(len(rec.content)))
		h[6] = byte(rec.pad)
		b = append(b, h[:]...)
		b = append(b, rec.content...)
		b = append(b, make([]byte, rec.pad)...)
	}
	return b
}

// fcgiBytes is what the FastCGI application writes for request id, and
// whether it closes the connection after.
func (a *answer) fcgiBytes(id uint16) ([]byte, bool) {
	b := a.bytes(id)
	if a.cut >= 0 {
		return b[:a.cut], true
	}
	return b, a.close
}

// streamBytes is what the SCGI and uwsgi applications write before they
// close.
func (a *answer) streamBytes() []byte {
	if a.short >= 0 {
		return a.stream[:a.short]
	}
	return a.stream
}
