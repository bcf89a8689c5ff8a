package main

import (
	"net/url"
	"strconv"
	"strings"
)

// explain names a difference's class: a documented one (KEPT: by
// design; static/README.md, *Random file trees beside NGINX*) first, then the location's prefix, both statuses
// and, where they agree, the fields that differ.
func explain(r req, s server, ns, ms answer) string {
	cls := r.prefix + "/ n" + status(ns) + " m" + status(ms)
	var fs []string
	if ns.status == ms.status && ns.err == "" && ms.err == "" {
		for _, k := range append(fieldNames, "body") {
			va, vb := ns.field(k), ms.field(k)
			if k == "body" {
				va, vb = ns.body, ms.body
			}
			if va != vb {
				fs = append(fs, k)
			}
		}
		cls += " " + strings.Join(fs, ",")
	}
	if ms.err != "" && ns.err == "" {
		// No answer from mosaic where NGINX gave one (a request held in
		// an open, a reset) is in no documented class, whatever path it
		// took: a link out of the root is refused, not left unanswered.
		return cls
	}
	switch outLink(r) {
	case "out":
		return "KEPT link out of the root: " + cls
	case "back":
		return "KEPT link out of the root and back: " + cls
	}
	only := func(f string) bool { return len(fs) == 1 && fs[0] == f }
	if only("Content-Type") && !strings.Contains(s.text, "types") {
		return "KEPT mime.types without a types block: " + cls
	}
	if only("Content-Length") && strings.Contains(ns.body[:min(len(ns.body), 13)], "listing ") {
		return "KEPT listing with Content-Length: " + cls
	}
	return cls
}

func status(a answer) string {
	if a.err != "" {
		return "ERR"
	}
	return strconv.Itoa(a.status)
}

// decodedPath is r's path without its query, percent-decoded where it
// can be.
func decodedPath(r req) string {
	path := strings.SplitN(r.target, "?", 2)[0]
	if d, err := url.PathUnescape(path); err == nil {
		return d
	}
	return path
}

// outLink says whether r's path, decoded, goes through one of the tree's
// links that leave the root: "out" (lout, loutd, labs, labsin, lusr,
// lgone), "back" (lsub, which climbs out and comes back in), or "".
func outLink(r req) string {
	path := decodedPath(r)
	for _, l := range []string{"/lout", "/labs", "/lusr", "/lgone"} {
		if strings.Contains(path, l) {
			return "out"
		}
	}
	if strings.Contains(path, "/lsub") {
		return "back"
	}
	return ""
}
