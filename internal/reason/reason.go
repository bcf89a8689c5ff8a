// Package reason holds NGINX's words for HTTP statuses: the reason
// phrases of its status lines and its built-in error pages, which differ
// from Go's (net/http's "Found" is NGINX's "Moved Temporarily") and, for
// a few codes, from each other (a 401's page says "Authorization
// Required", its status line "Unauthorized").
package reason

import (
	"strconv"
	"strings"
)

// phrases are the reason phrases of NGINX 1.22's status lines. A code
// missing here goes out without one ("HTTP/1.1 418 "), as NGINX sends it.
var phrases = map[int]string{
	200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 206: "Partial Content",
	301: "Moved Permanently", 302: "Moved Temporarily", 303: "See Other", 304: "Not Modified",
	307: "Temporary Redirect", 308: "Permanent Redirect",
	400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden",
	404: "Not Found", 405: "Not Allowed", 406: "Not Acceptable", 408: "Request Time-out",
	409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
	413: "Request Entity Too Large", 414: "Request-URI Too Large", 415: "Unsupported Media Type",
	416: "Requested Range Not Satisfiable", 421: "Misdirected Request", 429: "Too Many Requests",
	500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
	503: "Service Temporarily Unavailable", 504: "Gateway Time-out", 505: "HTTP Version Not Supported",
	507: "Insufficient Storage",
}

// Phrase returns the reason phrase NGINX sends with code, "" for a code
// it sends alone.
func Phrase(code int) string {
	i := uint(code - firstPhrased)
	if i >= uint(len(phraseAt)-1) {
		return ""
	}
	return phraseText[phraseAt[i]:phraseAt[i+1]]
}

// firstPhrased is the lowest code in phrases.
const firstPhrased = 200

// phraseText holds the phrases of the codes from firstPhrased to the
// highest in phrases, one after another, and phraseAt where each starts
// (one more offset ends the last): Phrase is read for every upstream
// answer (proxy's passReason), where a lookup in the map hashed the code,
// about 80 instructions, where the table takes about 20 (fastcgi README,
// twenty-first pass). One string and offsets rather than a string per
// code: the collector reads every pointer among the program's variables
// at each cycle.
var phraseText, phraseAt = func() (string, []uint16) {
	last := firstPhrased
	for code := range phrases {
		last = max(last, code)
	}
	var b strings.Builder
	at := make([]uint16, last-firstPhrased+2)
	for code := firstPhrased; code <= last; code++ {
		b.WriteString(phrases[code])
		at[code-firstPhrased+1] = uint16(b.Len())
	}
	return b.String(), at
}()

// headings are the headings of NGINX's built-in pages where they are not
// the status line's phrase; explained are the codes it answers as 400
// with an explanation under the heading.
var (
	headings  = map[int]string{302: "Found", 401: "Authorization Required"}
	explained = map[int]string{
		494: "Request Header Or Cookie Too Large",
		495: "The SSL certificate error",
		496: "No required SSL certificate was sent",
		497: "The plain HTTP request was sent to HTTPS port",
	}
)

// Tail ends every page: NGINX's names the server there ("nginx", with
// its version under server_tokens), mosaic's names itself.
const Tail = "<hr><center>mosaic</center>\r\n</body>\r\n</html>\r\n"

// Explanation returns the words NGINX adds under the 400 heading of the
// page of one of its own codes (494 to 497), "" for another code.
func Explanation(code int) string { return explained[code] }

// Page returns NGINX's built-in page for code, Tail included, and false
// for a code NGINX answers with an empty body (201, 204, 304, 418, ...).
func Page(code int) (string, bool) {
	head, h1, more := "", "", ""
	switch {
	case explained[code] != "":
		head, h1 = "400 "+explained[code], "400 Bad Request"
		more = "<center>" + explained[code] + "</center>\r\n"
	case code == 498: // NGINX's "canceled": the 404 page
		return Page(404)
	case code >= 301 && code != 304 && phrases[code] != "":
		h1 = strconv.Itoa(code) + " " + phrases[code]
		if s, ok := headings[code]; ok {
			h1 = strconv.Itoa(code) + " " + s
		}
		head = h1
	default:
		return "", false
	}
	return "<html>\r\n<head><title>" + head + "</title></head>\r\n<body>\r\n<center><h1>" + h1 +
		"</h1></center>\r\n" + more + Tail, true
}
