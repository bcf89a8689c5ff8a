package main

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/nginxdiff"
)

// reply is one answer as a client reads it.
type reply struct {
	status  int
	fields  []string // "name: value", names lower-cased, sorted; Date and Server left out
	body    string
	chunked bool
}

func (r reply) String() string {
	body := r.body
	if len(body) > 80 {
		body = fmt.Sprintf("%s...(%d)", body[:80], len(body))
	}
	te := ""
	if r.chunked {
		te = " chunked"
	}
	return fmt.Sprintf("[%d %q%s %q]", r.status, r.fields, te, body)
}

func (r reply) field(name string) string {
	var v []string
	for _, f := range r.fields {
		if k, val, _ := strings.Cut(f, ": "); k == name {
			v = append(v, val)
		}
	}
	return strings.Join(v, "|")
}

// parseAnswers reads HTTP/1.1 answers from b in order, one per method,
// with their framing (HEAD, 1xx, 204 and 304 have no body; chunked; a
// length; else to the end), and says what it could not read.
func parseAnswers(b []byte, methods []string) ([]reply, string) {
	var out []reply
	for _, m := range methods {
		if len(b) == 0 {
			return out, ""
		}
		end := bytes.Index(b, []byte("\r\n\r\n"))
		if end < 0 {
			return out, fmt.Sprintf("no head end in %q", nginxdiff.Trunc(string(b), 200))
		}
		lines := strings.Split(string(b[:end]), "\r\n")
		b = b[end+4:]
		var r reply
		sl := strings.SplitN(lines[0], " ", 3)
		if len(sl) < 2 || !strings.HasPrefix(sl[0], "HTTP/1.") {
			return out, fmt.Sprintf("status line %q", lines[0])
		}
		r.status, _ = strconv.Atoi(sl[1])
		cl := -1
		for _, l := range lines[1:] {
			k, v, _ := strings.Cut(l, ":")
			k, v = strings.ToLower(k), strings.TrimSpace(v)
			switch k {
			case "date", "server", "cache-status":
				// cache-status: mosaic's RFC 9211 field, which NGINX lacks.
				continue
			case "connection":
				// mosaic leaves HTTP/1.1's default keep-alive unsaid;
				// whether the connection closed is compared anyway.
				if strings.EqualFold(v, "keep-alive") {
					continue
				}
			case "content-length":
				cl, _ = strconv.Atoi(v)
			case "transfer-encoding":
				r.chunked = strings.EqualFold(v, "chunked")
			}
			r.fields = append(r.fields, k+": "+v)
		}
		sort.Strings(r.fields)
		switch {
		case m == "HEAD" || r.status/100 == 1 || r.status == 204 || r.status == 304:
		case r.chunked:
			var body []byte
			for {
				le := bytes.Index(b, []byte("\r\n"))
				if le < 0 {
					r.body = string(body)
					return append(out, r), "chunk cut"
				}
				size, err := strconv.ParseInt(string(b[:le]), 16, 64)
				if err != nil || int64(len(b)) < int64(le)+2+size+2 {
					r.body = string(body)
					return append(out, r), "chunk cut"
				}
				body = append(body, b[le+2:le+2+int(size)]...)
				b = b[le+2+int(size)+2:]
				if size == 0 {
					break
				}
			}
			r.body = string(body)
		case cl >= 0:
			if len(b) < cl {
				r.body = string(b)
				return append(out, r), fmt.Sprintf("body %d of %d", len(b), cl)
			}
			r.body, b = string(b[:cl]), b[cl:]
		default:
			r.body, b = string(b), nil
		}
		if r.status >= 500 && r.field("content-type") == "text/html" {
			// The server's own error page: its footer and length differ
			// by design.
			r.body = "PAGE"
			r.fields = slices.DeleteFunc(r.fields, func(f string) bool { return strings.HasPrefix(f, "content-length: ") })
		}
		out = append(out, r)
	}
	if len(b) > 0 {
		return out, fmt.Sprintf("more: %q", nginxdiff.Trunc(string(b), 200))
	}
	return out, ""
}

// classify names a difference: the location, both statuses of the first
// answer that differs and, where they agree, what differs in it.
// Documented differences get KEPT or LEFT in front (classes.go).
func classify(t tcase, ns, ms outcome) string {
	for i := 0; i < len(ns.answers) || i < len(ms.answers); i++ {
		if i >= len(ns.answers) || i >= len(ms.answers) {
			return known(t, ns, fmt.Sprintf("%s answers n%d m%d", t.loc, len(ns.answers), len(ms.answers)))
		}
		a, b := ns.answers[i], ms.answers[i]
		if a.String() == b.String() {
			continue
		}
		if a.status != b.status {
			return known(t, ns, fmt.Sprintf("%s #%d n%d m%d", t.loc, i, a.status, b.status))
		}
		var what []string
		names := map[string]bool{}
		for _, f := range append(append([]string{}, a.fields...), b.fields...) {
			k, _, _ := strings.Cut(f, ": ")
			names[k] = true
		}
		var ks []string
		for k := range names {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if a.field(k) != b.field(k) {
				what = append(what, k)
			}
		}
		if a.body != b.body {
			what = append(what, "body")
		}
		return known(t, ns, fmt.Sprintf("%s #%d %d %s", t.loc, i, a.status, strings.Join(what, ",")))
	}
	switch {
	case ns.err != ms.err:
		return known(t, ns, t.loc+" parse")
	case ns.closed != ms.closed:
		return known(t, ns, fmt.Sprintf("%s closed n%v m%v", t.loc, ns.closed, ms.closed))
	}
	return known(t, ns, t.loc+" log")
}
