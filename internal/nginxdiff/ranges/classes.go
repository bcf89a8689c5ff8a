package main

import (
	"strconv"
	"strings"
)

// fieldDiff names the fields whose values differ.
func fieldDiff(a, b string) string {
	names := []string{"Content-Range", "Content-Type", "ETag", "Last-Modified", "Accept-Ranges", "Content-Encoding", "Content-Length", "body"}
	var out []string
	for _, k := range names {
		va, vb := field(a, k), field(b, k)
		if va != vb {
			out = append(out, k)
		}
	}
	return strings.Join(out, ",")
}

// field returns the value of k in a summary, unquoted where it can be.
func field(s, k string) string {
	i := strings.Index(s, " "+k+"=")
	if i < 0 {
		return ""
	}
	rest := s[i+len(k)+2:]
	if uq, err := strconv.QuotedPrefix(rest); err == nil {
		return uq
	}
	return rest
}

// explain names the documented class a difference falls in (KEPT: by
// design, LEFT: known and not mended; static/README.md, *Byte ranges*),
// or "".
func explain(r req, loc string, shared bool) string {
	for _, h := range r.hdr {
		switch h[0] {
		case "If-Modified-Since", "If-Unmodified-Since", "If-Range":
			for _, m := range []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"} {
				if strings.Contains(h[1], " "+m+" ") || strings.Contains(h[1], "-"+m+"-") {
					return "KEPT lower-case date: "
				}
			}
		}
	}
	if shared {
		return "LEFT entry shared with(out) force_ranges: "
	}
	for _, h := range r.hdr {
		if h[0] == "If-Range" && strings.HasPrefix(strings.TrimSpace(h[1]), "W/") && (loc == "c" || loc == "cf" || loc == "pf") {
			return "KEPT weak If-Range: "
		}
	}
	if loc == "pg" && strings.HasSuffix(strings.SplitN(r.path, "?", 2)[0], "/0.txt") {
		return "KEPT empty body not compressed: "
	}
	return ""
}
