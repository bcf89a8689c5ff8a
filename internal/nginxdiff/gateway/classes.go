package main

import (
	"regexp"
	"slices"
	"strings"
)

// known puts KEPT (mosaic differs by design) or LEFT (known, not mended)
// in front of a class whose pair drew what a README documents, the first
// rule that fits; the reason is in the README named beside each rule.
func known(t tcase, ns outcome, cls string) string {
	var tags []string
	var streams []string
	for _, c := range t.cases {
		a := draw(c)
		tags = append(tags, a.tags...)
		streams = append(streams, string(a.stream))
	}
	has := func(prefix string) bool {
		return slices.ContainsFunc(tags, func(s string) bool { return strings.HasPrefix(s, prefix) })
	}
	stream := strings.Join(streams, "\n")
	fcgi := t.loc != "s" && t.loc != "u"
	switch {
	case strings.HasSuffix(cls, " log") && slices.ContainsFunc(ns.logs, func(l string) bool { return strings.HasPrefix(l, "unknown charset") }):
		// NGINX's charset filter logs an X-Accel-Charset it does not
		// know, on the error page as well; mosaic ignores it silently.
		return "LEFT charset-log " + cls
	case fcgi && has("cut"):
		// fastcgi/README.md, Differences from NGINX: a connection closed
		// before END_REQUEST ends NGINX's body as if whole.
		return "KEPT cut " + cls
	case fcgi && has("empty-mid"):
		// fastcgi/README.md, The response head: an empty STDOUT record
		// before the end.
		return "LEFT empty-stdout " + cls
	case fcgi && (has("wrong-") || has("unknown-type")):
		// fastcgi/README.md, Differences from NGINX: a framing fault
		// after the head is a 502 or a visibly cut body in mosaic;
		// NGINX may send what it has, or close without an answer.
		return "KEPT framing " + cls
	case t.loc == "k" && has("cl+"):
		// A body shorter than its length under fastcgi_keep_conn: NGINX
		// fills the length with the next answer's bytes, mosaic closes.
		return "KEPT keepconn-short " + cls
	case oneXX.MatchString(stream):
		return "KEPT 1xx " + cls
	case has("p19") && (has("cl") || strings.Count(stream, "Content-Length") > 1):
		// fastcgi/README.md: two different lengths, NGINX 1.23's 502.
		return "KEPT two-lengths " + cls
	case t.loc == "c" && has("p18"):
		// NGINX's cache keeps its file header in fastcgi_buffer_size:
		// a head near the size fits mosaic's, not NGINX's.
		return "KEPT cache-head-room " + cls
	case t.loc == "c" && strings.HasSuffix(cls, " age"):
		// cache/README.md: a hit carries Age.
		return "KEPT age " + cls
	case strings.HasSuffix(cls, " content-length") && (strings.Contains(cls, " 204 ") || strings.Contains(cls, " 304 ")):
		// NGINX relays an application's Content-Length on a 204 or 304;
		// mosaic's HTTP/1 writer leaves it out (RFC 9110 section 8.6).
		return "LEFT bodiless-length " + cls
	}
	return cls
}

// oneXX finds a 1xx status (or one of four digits starting with 1) in a
// CGI Status field or a status line.
var oneXX = regexp.MustCompile(`(?m)^(Status: *|HTTP/\S+ )1\d\d`)
