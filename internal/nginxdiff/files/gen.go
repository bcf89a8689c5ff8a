package main

import (
	"fmt"
	"math/rand"
	"strings"
)

// The generator draws from the global rnd in a fixed order: the tree,
// then the servers, then the requests. A seed gives the same run each
// time; changing a draw changes what the published seeds give.

var rnd *rand.Rand

func pick(xs ...string) string { return xs[rnd.Intn(len(xs))] }

// maybe returns s one time in n, else "".
func maybe(n int, s string) string {
	if rnd.Intn(n) == 0 {
		return s
	}
	return ""
}

// server is one drawn configuration: its text (with %[1]d for the port
// and %[2]s for the work directory) and the prefixes its requests use.
type server struct {
	text     string
	prefixes []string
}

// genServer draws one server: how the tree is mapped (root, alias with
// and without its slash, a regex alias with a capture) and the
// directives around it.
func genServer() server {
	var b strings.Builder
	b.WriteString("server { listen 127.0.0.1:%[1]d; server_name a.test;\n")
	// Server level: what every location inherits.
	b.WriteString(maybe(2, "  disable_symlinks "+pick("off", "on", "if_not_owner", "on from=$document_root", "if_not_owner from=%[2]s")+";\n"))
	b.WriteString(maybe(3, "  open_file_cache max=64; open_file_cache_errors "+pick("on", "off")+";\n"))
	switch rnd.Intn(4) {
	case 0:
		b.WriteString("  types { text/plain txt; application/json json; text/html html htm; }\n")
	case 1:
		b.WriteString("  include /etc/nginx/mime.types;\n")
	}
	b.WriteString(maybe(2, "  default_type "+pick("text/plain", "application/octet-stream", "x/y")+";\n"))
	b.WriteString(maybe(4, "  etag off;\n"))
	b.WriteString(maybe(4, "  if_modified_since "+pick("off", "exact", "before")+";\n"))
	b.WriteString(maybe(3, "  log_not_found off;\n"))
	b.WriteString(maybe(5, "  absolute_redirect off;\n"))
	b.WriteString("  root %[2]s/www;\n")
	b.WriteString(maybe(2, "  error_page 404 /404.html;\n"))
	b.WriteString("  location = /404.html { root %[2]s/www; }\n")
	b.WriteString("  location @fb { return 299 \"fallback $uri\"; }\n")
	b.WriteString("  location /int/ { internal; alias %[2]s/www/; }\n")

	body := func() string {
		var l strings.Builder
		switch rnd.Intn(4) {
		case 0:
			l.WriteString(" index " + pick("index.htm default.html", "missing.html index.html", "default.html", "index.html index.htm") + ";")
		}
		if rnd.Intn(3) == 0 {
			l.WriteString(" autoindex on;")
			l.WriteString(maybe(2, " autoindex_format "+pick("json", "html", "xml")+";"))
			l.WriteString(maybe(3, " autoindex_exact_size off;"))
		}
		l.WriteString(maybe(3, " disable_symlinks "+pick("off", "on", "if_not_owner")+";"))
		switch rnd.Intn(6) {
		case 0:
			l.WriteString(" try_files $uri $uri/ =404;")
		case 1:
			l.WriteString(" try_files $uri $uri/index.html @fb;")
		case 2:
			l.WriteString(" try_files $uri /404.html;")
		}
		l.WriteString(maybe(5, " open_file_cache "+pick("off", "max=10 inactive=1s")+";"))
		l.WriteString(maybe(6, " etag off;"))
		return l.String()
	}
	s := server{prefixes: []string{"", "/int"}}
	b.WriteString("  location / {" + body() + " }\n")
	switch rnd.Intn(5) {
	case 0:
		b.WriteString("  location /p/ { alias %[2]s/www/;" + body() + " }\n")
	case 1:
		b.WriteString("  location /p { alias %[2]s/www;" + body() + " }\n")
	case 2:
		b.WriteString("  location /p/ { alias %[2]s/www;" + body() + " }\n")
	case 3:
		b.WriteString("  location /p { alias %[2]s/www/;" + body() + " }\n")
	case 4:
		b.WriteString("  location ~ ^/p/(.*)$ { alias %[2]s/www/$1;" + body() + " }\n")
	}
	s.prefixes = append(s.prefixes, "/p", "/p", "/p")
	if rnd.Intn(2) == 0 {
		b.WriteString("  location ~ ^/r/(?<rest>.*)$ { alias %[2]s/www/d1/$rest;" + body() + " }\n")
		s.prefixes = append(s.prefixes, "/r")
	}
	b.WriteString("}\n")
	s.text = b.String()
	return s
}

// req is one drawn request.
type req struct {
	server int
	prefix string // the location's, "" for location /
	method string
	target string
	hdr    string // extra header lines, each ending in CRLF
	body   string
}

func (r req) raw() string {
	return r.method + " " + r.target + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n" + r.hdr + "\r\n" + r.body
}

// escape writes a name as a request path: bytes that must be escaped
// always are, others sometimes, and a '/' sometimes as %2F.
func escape(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		must := c <= ' ' || c >= 0x7f || c == '%' || c == '?' || c == '#' || c == '"'
		switch {
		case c == '/' && rnd.Intn(30) == 0:
			b.WriteString("%2F")
		case c == '/':
			b.WriteByte('/')
		case must || rnd.Intn(12) == 0:
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// genReq draws a request to one of servers: a path of the tree, escaped,
// perhaps mangled by dot segments, doubled slashes, encoded dots and
// slashes, NULs, a slash added or taken away, made long, with a query.
func genReq(servers []server, paths []string) req {
	r := req{server: rnd.Intn(len(servers))}
	s := servers[r.server]
	r.method = "GET"
	switch rnd.Intn(12) {
	case 0:
		r.method = "HEAD"
	case 1:
		r.method = pick("POST", "PUT", "DELETE", "OPTIONS")
	}
	p := escape(pick(paths...))
	switch rnd.Intn(14) {
	case 0:
		p = pick("../", "d1/../", "d1/sub/../../", "%2e%2e/", ".%2e/", "d1/%2e%2e/", "./", "%2e/", "d1/./") + p
	case 1:
		p = strings.Replace(p, "/", pick("//", "/./", "/../", "%2F", "/%2e/"), 1)
	case 2:
		p += pick("/", "//", "%00", "%00.txt", "%25", "%2", "/.", "/..", ".", "%2F", "~")
	case 3:
		p = strings.TrimSuffix(p, "/")
	case 4:
		p = strings.Repeat(pick("d1/", "./", "x/../", "d1/sub/../"), 20+rnd.Intn(200)) + p
	case 5:
		p = pick("missing", "d1/missing/", "a.txt/x", "fifo/", "loop1/x", "lind/", "lind/sub/", "loutd/secret.txt", "lsub/sub.d/", "noread/") + maybe(2, "/")
	}
	r.prefix = pick(s.prefixes...)
	r.target = r.prefix + "/" + p
	r.target += maybe(6, pick("?", "?a=1", "?x=%2F&y", "?../../etc"))
	if rnd.Intn(6) == 0 {
		r.hdr += "If-Modified-Since: " + pick("Thu, 04 Mar 2021 05:06:07 GMT", "Fri, 05 Mar 2021 05:06:07 GMT", "Wed, 03 Mar 2021 05:06:07 GMT") + "\r\n"
	}
	if r.method != "GET" && r.method != "HEAD" && rnd.Intn(2) == 0 {
		r.hdr += "Content-Length: 3\r\nContent-Type: text/plain\r\n"
		r.body = "abc"
	}
	return r
}
