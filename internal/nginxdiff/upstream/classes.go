package main

import (
	"regexp"
	"slices"
	"strings"
)

var (
	statusRE = regexp.MustCompile(`(^|\| )(\[\d+\] )*(\d+|closed|timeout|unreadable|write failed)`)
	fieldRE  = regexp.MustCompile(` ([A-Za-z-]+)=("(?:[^"\\]|\\.)*")`)
)

// shape is the statuses of a summary's answers in order, or how it
// ended: "200 200 200", "502 closed".
func shape(s string) string {
	var out []string
	for _, m := range statusRE.FindAllStringSubmatch(s, -1) {
		out = append(out, m[3])
	}
	if strings.Contains(s, "bodyerr=") {
		out = append(out, "bodyerr")
	}
	return strings.Join(out, " ")
}

// fieldDiff names the fields (and "body") whose values differ between two
// summaries of the same shape, each answer's in turn.
func fieldDiff(a, b string) []string {
	fa, fb := fields(a), fields(b)
	var out []string
	for k, v := range fa {
		if fb[k] != v && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for k, v := range fb {
		if fa[k] != v && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// fields maps each field name of a summary to its values over the
// answers, joined.
func fields(s string) map[string]string {
	m := map[string]string{}
	for _, ans := range strings.Split(s, " | ") {
		for _, f := range fieldRE.FindAllStringSubmatch(ans, -1) {
			m[f[1]] += f[2] + ";"
		}
	}
	return m
}

// explain names a difference's class: the documented one it falls in
// (KEPT: by design, LEFT: known and not mended; proxy/README.md,
// *Random upstream answers beside NGINX*), then the location, both
// servers' shapes and, where those agree, the fields that differ.
func explain(c *tcase, ns, ms string) string {
	cls := c.loc + " n[" + shape(ns) + "] m[" + shape(ms) + "]"
	var diff []string
	if shape(ns) == shape(ms) {
		diff = fieldDiff(ns, ms)
		cls += " " + strings.Join(diff, ",")
	}
	return kept(c, ns, ms, diff) + cls
}

// kept returns the prefix of a documented class, or "": the first of
// the checks that fits.
func kept(c *tcase, ns, ms string, diff []string) string {
	mosaic502 := strings.HasPrefix(ms, "502 ") || strings.Contains(ms, "] 502 ")
	code := c.code()
	oddLine := c.has("nostatus") || c.has("version") && c.version() != "HTTP/1.0" ||
		code == "1000" || code == "20" || code == "2x0" || code == "099"
	sameShape := shape(ns) == shape(ms)
	switch {
	case oddLine && mosaic502:
		return "KEPT status line NGINX reads as HTTP/0.9: "
	case c.has("interim") || len(code) == 3 && code[0] == '1':
		return "KEPT interim 1xx: "
	case c.has("longhead"):
		return "KEPT head over proxy_buffer_size: "
	case c.has("ctlbyte") && mosaic502:
		return "KEPT control byte in a field value: "
	case (c.has("chunk=badhex") || c.has("chunk=overflow") || c.has("chunk=sizelong") || c.has("chunk=sizeshort")) &&
		(mosaic502 || strings.Contains(ms, "bodyerr=")):
		return "KEPT malformed chunks: "
	case c.has("frame=te"):
		return "KEPT Transfer-Encoding by RFC 9112: "
	case (c.has("frame=twocl") && !c.has("cl2=equal") || c.has("frame=badcl")) && mosaic502:
		return "KEPT invalid Content-Length: "
	case c.loc == "g" && len(diff) > 0 && !slices.ContainsFunc(diff, func(f string) bool { return f != "Content-Encoding" && f != "TE" }) &&
		strings.HasPrefix(strings.SplitN(ms, " | ", 2)[0], "200 ") && strings.Contains(strings.SplitN(ms, " | ", 2)[0], `body=""`):
		return "KEPT empty body not compressed: "
	case sameShape && strings.Contains(ns, "bodyerr=") && strings.Contains(ms, "bodyerr=") &&
		!slices.ContainsFunc(diff, func(f string) bool { return f != "body" }):
		// Only the bytes: a field that differs too (NGINX relaying an
		// odd status line raw, the fields as they came) is another class.
		return "KEPT broken body's bytes: "
	case c.method == "HEAD" && c.has("frame=short"):
		return "LEFT HEAD of a broken body: "
	case c.has("version"):
		return "LEFT odd HTTP version: "
	case (code == "204" || code == "304") && len(diff) > 0 && !slices.ContainsFunc(diff, func(f string) bool {
		return f != "Content-Length" && f != "Content-Type"
	}):
		return "LEFT 204/304 length and type: "
	}
	return ""
}

// code and version return what was drawn for the status line.
func (c *tcase) code() string    { return c.piece("code") }
func (c *tcase) version() string { return c.piece("version") }

func (c *tcase) piece(name string) string {
	for _, p := range c.pieces {
		if v, ok := strings.CutPrefix(p, name+"="); ok {
			return v
		}
	}
	return ""
}
