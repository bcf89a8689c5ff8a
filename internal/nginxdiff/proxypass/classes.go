package main

import (
	"net/url"
	"regexp"
	"strings"
)

var (
	// reNormalised finds what the server's normalisation changes in a
	// path: a fragment, doubled slashes, dot segments, and escapes of a
	// dot or a slash.
	reNormalised = regexp.MustCompile(`#|//|/\.\.?(/|$|\?)|%2[eEfF]`)
	// reDecodedBlank finds escapes that decode to a space or a control.
	reDecodedBlank = regexp.MustCompile(`%(0[0-9a-fA-F]|1[0-9a-fA-F]|20|7[fF])`)
	// reDecodedCRLF finds escapes that decode to a CR or an LF.
	reDecodedCRLF = regexp.MustCompile(`%0[dDaA]`)
)

// explain names the documented class a difference falls in (KEPT: by
// design, with the README that says why), or "". a and b are NGINX's
// and mosaic's outcomes; merge is the server's merge_slashes.
func explain(r request, a, b outcome, merge bool) string {
	path, _, _ := strings.Cut(r.target, "?")
	switch {
	case strings.Contains(r.target, " ") && b.status == "400":
		// Blanks in the request line (server/README.md, SPACES).
		return "KEPT space in the target: "
	case len(b.origin) == 0 && (b.status == "500" || b.status == "400") && len(a.origin) > 0 &&
		reDecodedBlank.MatchString(r.target):
		// NGINX puts the decoded bytes of a URI made of variables
		// into its request line (proxy/README.md).
		return "KEPT decoded control or space in a variable URI: "
	case injected(a) || (reDecodedCRLF.MatchString(r.target) && len(a.origin) == 1 && len(b.origin) == 1 &&
		a.origin[0].line == b.origin[0].line && headCut(a.origin[0].hdr, b.origin[0].hdr)):
		// NGINX sends a configured value with the decoded bytes, whose
		// CR LF ends the line, or the head; mosaic does not send the
		// value (proxy/README.md, Request header).
		return "KEPT decoded CR LF in a header sent upstream: "
	case strings.HasPrefix(a.status, "unreadable") && reDecodedBlank.MatchString(r.target):
		return "KEPT decoded CR LF in Set-Cookie: "
	case len(a.origin) > 0 && len(b.origin) == len(a.origin) && a.status == b.status &&
		lineTarget(a.origin[0].line) == r.target && b.origin[0].line != a.origin[0].line &&
		(strings.Contains(r.target, "#") || reNormalised.MatchString(path+"?")) &&
		sentRouted(r.target, lineTarget(b.origin[0].line), merge):
		// NGINX sends the target as the client wrote it, mosaic the
		// path that chose the location (server/README.md, Request
		// rules; proxy/README.md, Request URI): the class holds only
		// where mosaic's is that path, so that no request is routed
		// by one path and sent as another.
		return "KEPT normalised target sent: "
	}
	return ""
}

// sentRouted reports whether sent, the target of a request line sent
// upstream, is the client's target as the server routes it: cut at
// "#", the path decoded, its slashes merged (with merge) and its dot
// segments resolved, the query as it came. Both paths are compared
// decoded, whatever each escapes.
func sentRouted(target, sent string, merge bool) bool {
	target, _, _ = strings.Cut(target, "#")
	path, query, _ := strings.Cut(target, "?")
	sentPath, sentQuery, _ := strings.Cut(sent, "?")
	dec, err := url.PathUnescape(path)
	if err != nil || query != sentQuery {
		return false
	}
	sentDec, err := url.PathUnescape(sentPath)
	return err == nil && sentDec == routed(dec, merge)
}

// routed is the decoded path dec with its slashes merged (with merge) and
// its dot segments resolved, as the server's normalisation leaves it.
func routed(dec string, merge bool) string {
	if merge {
		for strings.Contains(dec, "//") {
			dec = strings.ReplaceAll(dec, "//", "/")
		}
	}
	segs := strings.Split(dec, "/")
	out := []string{}
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".", "..":
			if s == ".." && len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	return strings.Join(out, "/")
}

// lineTarget is the target of a request line: what lies between its
// first and last spaces (proxy_method may have changed the method).
func lineTarget(line string) string {
	i, j := strings.IndexByte(line, ' '), strings.LastIndexByte(line, ' ')
	if i < 0 || j <= i {
		return ""
	}
	return line[i+1 : j]
}

// version is the last word of a request line.
func version(line string) string {
	return line[strings.LastIndexByte(line, ' ')+1:]
}

// headCut reports a field that mosaic sent and NGINX did not: a CR LF
// in a value before it ended NGINX's head there.
func headCut(nginx, mosaic []string) bool {
	for _, f := range fieldsDiffer(nginx, mosaic) {
		if strings.HasPrefix(f, "-") {
			return true
		}
	}
	return false
}

// injected reports a header line without a colon in what NGINX sent
// upstream: a decoded CR LF that ended a line early.
func injected(o outcome) bool {
	for _, rec := range o.origin {
		for _, h := range rec.hdr {
			if !strings.Contains(h, ":") {
				return true
			}
		}
		if strings.Count(rec.line, " ") > 2 || !strings.HasPrefix(version(rec.line), "HTTP/") {
			return true
		}
	}
	return false
}
