package server

import (
	"net/http"
	"strings"
)

// DocumentRoot is $document_root for the location: its root or alias with
// variables evaluated, made absolute. As in NGINX, a root loses the "/"
// it was written with at its end; an alias keeps it, since the part of
// the URI after the location's prefix is appended to it.
//
// A value whose variables climb with ".." (VariableClimb: "root
// /srv/$arg_d" with d=www/../other) is empty, as its files are missing
// to FilePath: NGINX gives it as written, and a FastCGI SCRIPT_FILENAME
// of "$document_root$fastcgi_script_name" named a script in another
// tree (stricter than NGINX, audit7).
func (l *Location) DocumentRoot(r *http.Request) string {
	root, _ := l.documentRoot(r)
	return root
}

// RootClimbs reports whether the variables of the location's root or
// alias climb with ".." for r: its files are missing then (FilePath),
// and a gateway, whose application is handed paths built from the root,
// refuses the request.
func (l *Location) RootClimbs(r *http.Request) bool {
	_, climbed := l.documentRoot(r)
	return climbed
}

// documentRoot is DocumentRoot, and whether the root's variables climbed.
func (l *Location) documentRoot(r *http.Request) (string, bool) {
	cl := LocConf[*coreLoc](l, coreModule)
	if cl.docRootFixed {
		return cl.docRoot, false
	}
	t := cl.root.V
	if t == nil {
		return "", false
	}
	v := t.Eval(r)
	if VariableClimb(t, v) >= 0 {
		return "", true
	}
	return documentRoot(v, t.String(), cl.aliasIn != nil), false
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
// uri; with an alias, the alias and what follows in uri the prefix of
// the location that declared it (aliasTail); with an alias declared in
// a regular-expression location, the alias alone (it names the file,
// usually through captures), or the alias and uri where try_files found
// its file so (FilePath). It is empty where DocumentRoot is for a root
// that climbed.
func (l *Location) RequestFilename(r *http.Request, uri string) string {
	root, climbed := l.documentRoot(r)
	if climbed {
		return ""
	}
	cl := LocConf[*coreLoc](l, coreModule)
	switch {
	case cl.aliasIn == nil:
		return root + uri
	case cl.aliasIn.IsRegex():
		if uriAddedToAlias(r, l, uri) {
			return root + uri
		}
		return root
	}
	return root + cl.aliasTail(uri)
}
