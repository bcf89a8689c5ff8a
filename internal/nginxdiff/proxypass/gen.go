package main

import (
	"fmt"
	"math/rand"
	"strings"
)

// The generator draws from one math/rand source in a fixed order: a seed
// gives the same configurations and requests as in the runs that
// server/README.md cites. Change the draws and those seeds no longer
// reproduce them.

type gen struct {
	r     *rand.Rand
	oport int // the origin's port
}

func (g *gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g *gen) chance(n int) bool { return g.r.Intn(n) == 0 }

// origin is the origin's address as a configuration writes it.
func (g *gen) origin() string { return fmt.Sprintf("127.0.0.1:%d", g.oport) }

// reach is a path that leads to a location, with the location's kind
// for the report.
type reach struct {
	path, kind string
}

// conf is one drawn configuration: the server's text and the paths that
// lead to its locations.
type conf struct {
	text    string
	reaches []reach
}

// context says where a proxy_pass stands: NGINX refuses a URI part
// without variables in a regex location, a named location and an "if"
// block, and captures exist only under a regex.
type context struct {
	noURI    bool
	captures int  // $1..$n available
	named    bool // (?<n>...) available
	inIf     bool
}

// passTarget draws proxy_pass's value, and the "set" lines it needs
// before it.
func (g *gen) passTarget(ctx context) (pre, target string) {
	o := g.origin()
	host := o
	if g.chance(4) {
		host = "up"
	}
	uriPart := func() string { return g.pick("/", "/x/", "/x", "/x/?a=b", "/x?a=b", "/u/v/") }
	for {
		switch g.r.Intn(14) {
		case 0, 1, 2:
			return "", "http://" + host
		case 3, 4, 5:
			if ctx.noURI && !g.chance(25) {
				continue // NGINX refuses it there: only now and then, to check -t
			}
			return "", "http://" + host + uriPart()
		case 6:
			return "", "http://" + o + "$request_uri"
		case 7:
			return "", "http://" + o + g.pick("$uri", "$uri$is_args$args", "/s$uri?$args", "/q?$args")
		case 8:
			if ctx.captures == 0 && !ctx.named {
				continue
			}
			v := "$n"
			if ctx.captures > 0 {
				v = fmt.Sprintf("$%d", 1+g.r.Intn(ctx.captures))
			}
			return "", "http://" + o + g.pick("/v/", "/") + v + g.pick("", "$is_args$args", "?c=1")
		case 9:
			return "set $pv " + g.pick("/sv$uri", "$uri/x", "/w?$args", "$request_uri") + ";", "http://" + o + "$pv"
		case 10:
			return "set $ph " + g.pick(o, "up") + ";", "http://$ph" + g.pick("", "", "/hv$uri", "$request_uri")
		case 11:
			return "", "http://up" + g.pick("", "/", "$request_uri")
		default:
			return "", "http://" + host
		}
	}
}

// directives draws the proxy settings beside a proxy_pass.
func (g *gen) directives() []string {
	o := g.origin()
	all := []func() string{
		func() string {
			return "proxy_set_header Host " + g.pick("$host", `"h.test"`, `""`, "$proxy_host", "$http_host", "$host:$server_port") + ";"
		},
		func() string { return "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" },
		func() string {
			return "proxy_set_header " + g.pick("X-E", "X-Y", "Cookie", "Connection", "User-Agent") + " " + g.pick(`""`, "$uri", "$args", "$request_uri", `"v"`) + ";"
		},
		func() string { return "proxy_pass_request_headers off;" },
		func() string { return `proxy_set_body "` + g.pick("b=$uri", "", "$args", "fixed") + `";` },
		func() string { return "proxy_method " + g.pick("POST", "PUT", "GET", "PROPFIND") + ";" },
		func() string { return "proxy_http_version " + g.pick("1.1", "1.0") + ";" },
		func() string {
			return "proxy_redirect " + g.pick("default", "off", "http://"+o+"/x/ /r/", "http://"+o+"/ /",
				`~^http://[^/]+/(.*)$ /re/$1`, `~*^HTTP://127\.0\.0\.1:\d+/x(/.*)?$ http://a.test/y$1`, "/x/ /y/", "http://$proxy_host/ /ph/", "http://"+o+"/ $scheme://$host/h/") + ";"
		},
		func() string {
			return "proxy_cookie_path " + g.pick("/ /p/", "/x/ /", `~^/(.*)$ /c/$1`, `~*^/X/(.*)$ /y/$1`, "off", "/l $uri") + ";"
		},
		func() string {
			return "proxy_cookie_domain " + g.pick("o.test a.test", ".o.test $host", `~^\.?o\.test$ b.test`, `~(.+)\.test$ $1.example`, "off") + ";"
		},
		func() string {
			return "proxy_cookie_flags " + g.pick("~ secure httponly", "a samesite=strict", "~^[bc]$ nosecure secure", "off", "d samesite=lax nohttponly") + ";"
		},
	}
	// Distinct kinds: NGINX refuses most of them twice at one level.
	var out []string
	for _, k := range g.r.Perm(len(all))[:g.r.Intn(4)] {
		out = append(out, all[k]())
	}
	return out
}

// body is a location's proxying content: the set line a target needs,
// the proxy_pass, then the proxy settings (proxy_redirect default must
// follow proxy_pass). Inside "if" NGINX takes proxy_pass alone.
func (g *gen) body(ctx context) string {
	pre, target := g.passTarget(ctx)
	parts := []string{"proxy_pass " + target + ";"}
	if pre != "" {
		parts = append([]string{pre}, parts...)
	}
	if !ctx.inIf {
		parts = append(parts, g.directives()...)
	}
	return strings.Join(parts, " ")
}

// location draws one location (or a pair: a redirecting one and its
// target) numbered i.
func (g *gen) location(i int) (string, []reach) {
	p := fmt.Sprintf("/l%d", i)
	plain := context{}
	switch g.r.Intn(13) {
	case 0:
		return fmt.Sprintf("location %s/ { %s }", p, g.body(plain)), []reach{{p + "/", "prefix"}}
	case 1:
		return fmt.Sprintf("location %s { %s }", p, g.body(plain)), []reach{{p, "prefix-noslash"}, {p + "/", "prefix-noslash"}, {p + "x", "prefix-noslash"}}
	case 2:
		return fmt.Sprintf("location = %s/e { %s }", p, g.body(plain)), []reach{{p + "/e", "exact"}}
	case 3:
		return fmt.Sprintf("location ^~ %s/ { %s }", p, g.body(plain)), []reach{{p + "/", "caret"}}
	case 4:
		return fmt.Sprintf("location ~ ^%s/(.*)$ { %s }", p, g.body(context{noURI: true, captures: 1})), []reach{{p + "/", "regex"}}
	case 5:
		return fmt.Sprintf(`location ~* ^%s/([^/]*)/(.*)$ { %s }`, p, g.body(context{noURI: true, captures: 2})),
			[]reach{{p + "/", "regex2"}, {strings.ToUpper(p) + "/a/", "regex2"}}
	case 6:
		return fmt.Sprintf(`location ~ ^%s/(?<n>.+)$ { %s }`, p, g.body(context{noURI: true, named: true})), []reach{{p + "/", "regex-named"}}
	case 7:
		return fmt.Sprintf("location %s/ { location %s/i/ { %s } %s }", p, p, g.body(plain), g.body(plain)),
			[]reach{{p + "/", "nested-outer"}, {p + "/i/", "nested"}}
	case 8:
		ep := g.pick("error_page 404 = @n%d;", "error_page 404 @n%d;", "error_page 418 =200 @n%d;")
		code := "404"
		if strings.Contains(ep, "418") {
			code = "418"
		}
		return fmt.Sprintf("location %s/ { %s return %s; } location @n%d { %s }", p, fmt.Sprintf(ep, i), code, i, g.body(context{noURI: true})),
			[]reach{{p + "/", "named"}}
	case 9:
		return fmt.Sprintf("location %s/ { error_page 404 %s; return 404; } location %st/ { internal; %s }", p,
				g.pick(p+"t/ep", p+"t/ep?k=v", p+"t$uri", p+"t/e%2Fp"), p, g.body(plain)),
			[]reach{{p + "/", "error_page"}}
	case 10:
		return fmt.Sprintf("location %s/ { rewrite ^%s/(.*)$ %st/%s last; } location %st/ { %s }", p, p, p,
				g.pick("$1", "$1?r=1", "$1?", "a/$1", "%2F$1"), p, g.body(plain)),
			[]reach{{p + "/", "rewrite-last"}}
	case 11:
		return fmt.Sprintf("location %s/ { rewrite ^%s/(.*)$ %s break; %s }", p, p,
				g.pick("/z/$1", "/z/$1?r=1", "/z/$1?", "/$1", "/z//$1"), g.body(plain)),
			[]reach{{p + "/", "rewrite-break"}}
	default:
		cond := g.pick("$arg_x", "$uri ~ /if/", `$request_uri ~ "^(.*)/b"`, "$http_x_y")
		return fmt.Sprintf("location %s/ { if (%s) { %s } %s }", p, cond, g.body(context{noURI: true, inIf: true}), g.body(plain)),
			[]reach{{p + "/", "if"}, {p + "/if/", "if"}, {p + "/b", "if"}}
	}
}

// config draws one configuration.
func (g *gen) config() conf {
	var c conf
	var locs []string
	for i := range 2 + g.r.Intn(4) {
		text, rs := g.location(i)
		locs = append(locs, text)
		c.reaches = append(c.reaches, rs...)
	}
	srv := ""
	if g.chance(4) {
		srv = "merge_slashes off; "
	}
	c.text = fmt.Sprintf("upstream up { server %s; }\nserver { listen 127.0.0.1:LISTENPORT; server_name a.test; %s\n  %s\n}\n",
		g.origin(), srv, strings.Join(locs, "\n  "))
	return c
}

// segs are the pieces a request's path is made of after its location's
// prefix.
var segs = []string{"a", "b", "x", "i/", "e", "if/", "%2F", "%2f", "%2e%2e", "%2E", "..", ".", "/", "//", "/./", "/../",
	"%00", "%25", "%3F", "%23", "%20", "+", ";", ";a=b", "\xc3\xa9", "%C3%A9", "\xff", "%ff", "#f", "#/../x", "?", "&",
	"=", "%41", "~", "'", "\"", "|", "{", "\\", " ", "a b", "%0D%0A"}

// queries are the query strings drawn after a path.
var queries = []string{"?a=b", "?x=1", "?x=1&y=%2F", "?a=%00", "?a=\xff", "?a=%20&b=+", "?a=1?b", "?", "?a=#f", "?q=%25%", "?=&&", "?x=\"<>\"", "?a=%C3%A9"}

// request is one drawn request.
type request struct {
	method, target, kind string
	hdr                  []string
	body                 string
	answer               answer
}

func (r request) raw() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n", r.method, r.target)
	for _, h := range r.hdr {
		b.WriteString(h + "\r\n")
	}
	if r.body != "" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(r.body))
	}
	b.WriteString("\r\n" + r.body)
	return b.String()
}

// request draws a request to one of c's locations, and the answer the
// origin gives it.
func (g *gen) request(c conf) request {
	rc := c.reaches[g.r.Intn(len(c.reaches))]
	var t strings.Builder
	t.WriteString(rc.path)
	for k := g.r.Intn(5); k > 0; k-- {
		t.WriteString(segs[g.r.Intn(len(segs))])
	}
	if g.chance(3) {
		t.WriteString(queries[g.r.Intn(len(queries))])
	}
	r := request{method: "GET", target: t.String(), kind: rc.kind}
	switch g.r.Intn(8) {
	case 0:
		r.method = "HEAD"
	case 1:
		r.method, r.body = "POST", "abc"
	}
	for _, h := range []string{"X-Forwarded-For: 192.0.2.1", "Cookie: z=1", "X-Y: v", "X-E: client", "User-Agent: ua"} {
		if g.chance(4) {
			r.hdr = append(r.hdr, h)
		}
	}
	r.answer = g.answer()
	return r
}

// answer draws the status and the fields the origin answers with: a
// Location and Refresh for proxy_redirect, Set-Cookie lines for the
// proxy_cookie_* directives.
func (g *gen) answer() answer {
	a := answer{status: 200}
	if g.chance(2) {
		a.status = []int{301, 302, 201, 303}[g.r.Intn(4)]
	}
	o := g.origin()
	url := func() string {
		return g.pick("http://"+o, "http://"+o, "http://up", "http://other.test", "HTTP://"+o, "") +
			g.pick("/x/k", "/k", "/x", "/u/v/k", "/l0/k", "/x/?q=1", "/")
	}
	if g.r.Intn(3) > 0 {
		a.lines = append(a.lines, "Location: "+g.pick(url(), url(), "rel/k", "//"+o+"/x/k"))
	}
	if g.chance(4) {
		a.lines = append(a.lines, "Refresh: "+g.pick("5; url=", "0;URL=", "3;url='")+url())
	}
	for k := g.r.Intn(4); k > 0; k-- {
		a.lines = append(a.lines, "Set-Cookie: "+g.pick("a", "b", "c", "d")+"=1"+
			g.pick("", "; Path=/", "; path=/x/k", "; Path=/X/k", "; Path=/l0/")+
			g.pick("", "; Domain=o.test", "; domain=.o.test", "; Domain=sub.o.test", "; Domain=other.test")+
			g.pick("", "", "; Secure", "; HttpOnly", "; SameSite=None", "; secure; httponly"))
	}
	return a
}
