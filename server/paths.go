package server

import (
	"net/http"
	"strings"
)

// DocumentRoot is $document_root for the location: its root or alias with
// variables evaluated, made absolute. As in NGINX, a root loses the "/"
// it was written with at its end; an alias keeps it, since the part of
// the URI after the location's prefix is appended to it.
func (l *Location) DocumentRoot(r *http.Request) string {
	cl := LocConf[*coreLoc](l, coreModule)
	if cl.docRootFixed {
		return cl.docRoot
	}
	t := cl.root.V
	if t == nil {
		return ""
	}
	return documentRoot(t.Eval(r), t.String(), cl.alias)
}

// documentRoot is DocumentRoot of a root (or alias) written as src that
// evaluated to root.
func documentRoot(root, src string, alias bool) string {
	if !alias && strings.HasSuffix(src, "/") {
		root = strings.TrimSuffix(root, "/")
	}
	if root == "" {
		return ""
	}
	full := absPath(root)
	if strings.HasSuffix(root, "/") && !strings.HasSuffix(full, "/") {
		full += "/"
	}
	return full
}

// RequestFilename is $request_filename for uri: the document root and
// uri; with an alias, the alias and what follows the location's prefix
// in uri; with an alias in a regular-expression location, the alias
// alone (it names the file, usually through captures).
func (l *Location) RequestFilename(r *http.Request, uri string) string {
	root := l.DocumentRoot(r)
	if !LocConf[*coreLoc](l, coreModule).alias {
		return root + uri
	}
	if l.IsRegex() {
		return root
	}
	return root + strings.TrimPrefix(uri, l.pattern)
}
