package main

import (
	"fmt"
	"math/rand"
	"net/url"
	"strconv"
	"strings"
)

// The generator draws from the global rnd in a fixed order: the
// locations first, then the requests. Change a draw and the seeds the
// compress README cites draw something else.

var rnd *rand.Rand

func pick(xs ...string) string { return xs[rnd.Intn(len(xs))] }

func chance(n int) bool { return rnd.Intn(n) == 0 }

// loc is one drawn location: its directives, and what the classifier
// needs to know of them.
type loc struct {
	directives string
	gzip, br   bool
	gzipStatic string // "", "on" or "always"
	brStatic   string
	star       bool // a types list holds "*"
}

// typeLists are what *_types may hold besides text/html, which both
// modules always take. Both lower-case an entry in capitals; one with a
// parameter matches nothing in NGINX, whose list is keyed by the whole
// entry and looks a response up by its bare type, and mosaic leaves it
// out with a notice.
var typeLists = []string{"text/css", "text/plain", "application/json", "image/png", "application/octet-stream", "*", `"text/css; charset=utf-8"`, "TEXT/CSS"}

func (l *loc) types() string {
	var ts []string
	for range 1 + rnd.Intn(3) {
		t := pick(typeLists...)
		l.star = l.star || t == "*"
		ts = append(ts, t)
	}
	return strings.Join(ts, " ")
}

func minLength() string { return pick("0", "1", "20", "100", "1000", "3000", "3001") }

// proxied draws gzip_proxied: off, any, or a set of the other flags.
func proxied() string {
	switch rnd.Intn(4) {
	case 0:
		return "off"
	case 1:
		return "any"
	}
	flags := []string{"expired", "no-cache", "no-store", "private", "no_last_modified", "no_etag", "auth"}
	var out []string
	for _, f := range flags {
		if chance(3) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		out = append(out, pick(flags...))
	}
	return strings.Join(out, " ")
}

func genLoc() loc {
	var l loc
	var d []string
	add := func(format string, a ...any) { d = append(d, fmt.Sprintf(format, a...)) }
	l.gzip = !chance(4)
	l.br = !chance(3)
	add("gzip %s;", onOff(l.gzip))
	add("brotli %s;", onOff(l.br))
	if !chance(4) {
		add("gzip_types %s;", l.types())
	}
	if !chance(4) {
		add("brotli_types %s;", l.types())
	}
	if !chance(3) {
		add("gzip_min_length %s;", minLength())
	}
	if !chance(3) {
		add("brotli_min_length %s;", minLength())
	}
	if !chance(3) {
		add("gzip_proxied %s;", proxied())
	}
	add("gzip_vary %s;", onOff(!chance(3)))
	if chance(3) {
		add("gzip_http_version %s;", pick("1.0", "1.1"))
	}
	if chance(3) {
		add("gzip_disable %s;", pick("msie6", `"Bot"`, `msie6 "^curl"`))
	}
	if chance(2) {
		l.gzipStatic = pick("on", "always")
		add("gzip_static %s;", l.gzipStatic)
	}
	if chance(2) {
		l.brStatic = pick("on", "always")
		add("brotli_static %s;", l.brStatic)
	}
	if chance(4) {
		add("etag off;")
	}
	if chance(4) {
		add("charset utf-8;")
	}
	l.directives = strings.Join(d, " ")
	return l
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// The Accept-Encoding pieces: codings in several cases, q-values NGINX
// and RFC 9110 read differently, and separators with blanks and tabs.
var (
	aeTokens = []string{"gzip", "GZIP", "Gzip", "br", "BR", "Br", "x-gzip", "identity", "*", "deflate", "zstd", "compress", "gz", "brr", "xbr", "gzipx", ""}
	aeParams = []string{"", "", "", ";q=0", ";q=0.000", ";q=1.0001", ";q=1", ";q=1.0", ";q=0.5", ";q=0.001", ";q=0.0001", ";q=abc", ";q=", "; q=0", ";Q=0", " ;q=0", ";q=0.9", ";level=1", ";q=2"}
	aeSeps   = []string{",", ", ", ", ", " ,", ",\t", ",,", " ", "\t"}
)

func acceptEncoding() string {
	switch rnd.Intn(30) {
	case 0:
		return ""
	case 1:
		return pick("gzip, deflate, br", "gzip, deflate, br, zstd", "gzip,deflate", "br;q=1.0, gzip;q=0.8, *;q=0.1", "\x01gzip\x7f", "gzip;q=0.5, br;q=0.5, gzip;q=1")
	case 2: // very long
		var b strings.Builder
		for i := range 300 {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pick("deflate", "zstd", "sdch", "compress"))
		}
		b.WriteString(", " + pick("gzip", "br", "br;q=0", "gzip;q=0"))
		return b.String()
	}
	var b strings.Builder
	for i := range 1 + rnd.Intn(4) {
		if i > 0 {
			b.WriteString(pick(aeSeps...))
		}
		b.WriteString(pick(aeTokens...))
		b.WriteString(pick(aeParams...))
	}
	return b.String()
}

// The static files: a letter for the siblings they have (n none, g .gz,
// b .br, a both), a size and an extension.
var (
	fileSizes = []int{0, 15, 120, 3000}
	fileExts  = []string{"html", "css", "png", "json", "txt"}
	siblings  = []string{"n", "g", "b", "a"}
)

// The origin's answers, by index in the query (origin.go).
var (
	originTypes = []string{"-", "text/html", "text/css", "TEXT/CSS", "text/css; charset=utf-8", "text/css;charset=UTF-8", "application/json; foo=bar", "image/png", "text/plain ; charset=x", "application/octet-stream", "Text/Html"}
	originEnc   = []string{"gzip", "identity", "br", "-empty-"}
	originCC    = []string{"no-cache", "no-store", "private", "no-cache, no-store", "max-age=60", "private, max-age=0", "No-Cache", "public"}
	originExp   = []string{"Thu, 01 Jan 1970 00:00:01 GMT", "Fri, 01 Jan 2100 00:00:00 GMT", "0", "garbage"}
	originETag  = []string{`"o1"`, `W/"o1"`, `o1`}
	originVary  = []string{"Accept-Encoding", "Cookie", "*", "accept-encoding, Cookie"}
	originSizes = []int{0, 15, 120, 3000}
	statuses    = []int{200, 200, 200, 200, 206, 204, 304, 404, 500, 403}
)

// req is one drawn request.
type req struct {
	method, path, proto string
	hdr                 [][2]string
	loc                 int
	proxied             bool
}

func (r req) raw() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s\r\nHost: a.test\r\n", r.method, r.path, r.proto)
	for _, h := range r.hdr {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	b.WriteString("Connection: close\r\n\r\n")
	return b.String()
}

func (r req) header(k string) (string, bool) {
	for _, h := range r.hdr {
		if strings.EqualFold(h[0], k) {
			return h[1], true
		}
	}
	return "", false
}

// originQuery draws the origin's answer (origin.go reads it).
func originQuery() string {
	q := url.Values{}
	q.Set("st", strconv.Itoa(statuses[rnd.Intn(len(statuses))]))
	q.Set("ct", strconv.Itoa(rnd.Intn(len(originTypes))))
	if chance(6) {
		q.Set("ce", strconv.Itoa(rnd.Intn(len(originEnc))))
	}
	if chance(3) {
		q.Set("ch", "1")
	}
	if chance(3) {
		q.Set("cc", strconv.Itoa(rnd.Intn(len(originCC))))
	}
	if chance(4) {
		q.Set("ex", strconv.Itoa(rnd.Intn(len(originExp))))
	}
	if chance(2) {
		q.Set("lm", "1")
	}
	if chance(2) {
		q.Set("et", strconv.Itoa(rnd.Intn(len(originETag))))
	}
	if chance(5) {
		q.Set("ck", "1")
	}
	if chance(5) {
		q.Set("va", strconv.Itoa(rnd.Intn(len(originVary))))
	}
	q.Set("n", strconv.Itoa(originSizes[rnd.Intn(len(originSizes))]))
	return q.Encode()
}

// genReq draws a request to one of nlocs locations: a static file, or
// the origin through proxy_pass.
func genReq(nlocs int) req {
	r := req{method: "GET", proto: "HTTP/1.1", loc: rnd.Intn(nlocs)}
	if chance(6) {
		r.method = "HEAD"
	}
	if chance(5) {
		r.proto = "HTTP/1.0"
	}
	r.proxied = chance(2)
	size := 0
	if r.proxied {
		r.path = fmt.Sprintf("/p%d/o?%s", r.loc, originQuery())
	} else {
		size = fileSizes[rnd.Intn(len(fileSizes))]
		r.path = fmt.Sprintf("/l%d/%s%d.%s", r.loc, pick(siblings...), size, pick(fileExts...))
	}
	add := func(k, v string) { r.hdr = append(r.hdr, [2]string{k, v}) }
	if !chance(10) {
		add("Accept-Encoding", acceptEncoding())
	}
	if chance(10) {
		add("Range", pick("bytes=0-4", "bytes=2-", "bytes=-3", "bytes=0-1,4-5"))
	}
	if chance(8) {
		add("If-None-Match", pick(fileETag(size, false), "W/"+fileETag(size, false), fileETag(size, true), `"o1"`, "*", `"nope"`))
	}
	if chance(8) {
		add("If-Modified-Since", pick(mtimeS, "Fri, 01 Jan 2100 00:00:00 GMT", "Thu, 01 Jan 1970 00:00:01 GMT"))
	}
	if chance(4) {
		add("Via", pick("1.1 proxy", "1.0 cache"))
	}
	if chance(8) {
		add("User-Agent", pick("Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)", "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)", "curl/8.0", "GoodBot/1.0", "Mozilla/5.0"))
	}
	if chance(8) {
		add("Authorization", "Basic dTpw")
	}
	return r
}
