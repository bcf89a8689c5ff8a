package server

import (
	"net/http"
	"testing"
)

// The core's rewrite phases, driven by a test module: "subtest_go uri
// flow" changes the URI and returns last, break or next; "subtest_if
// header { ... }" is an "if" block that holds when the request has the
// header.
var rewriteTestModule = &Module{Name: "subtest_rewrite"}

type goStep struct {
	uri  string
	flow Flow
}

func (s goStep) Rewrite(r *http.Request, run *RewriteRun) Flow {
	SetURI(r, s.uri, "")
	run.URIChanged = true
	return s.flow
}

func init() {
	flows := map[string]Flow{"last": FlowLast, "break": FlowBreak, "next": FlowNext}
	all := CtxServer | CtxLocation | CtxServerIf | CtxLocationIf
	rewriteTestModule.Directives = []Directive{
		{Name: "subtest_go", Context: all, MinArgs: 2, MaxArgs: 2, Set: func(c *Cmd) error {
			c.AddRewriteStep(goStep{uri: c.Args[0], flow: flows[c.Args[1]]})
			return nil
		}},
		{Name: "subtest_if", Context: CtxServer | CtxLocation, Block: true, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			name := c.Args[0]
			return c.RewriteIf(func(r *http.Request, _ *RewriteRun) (bool, error) { return r.Header.Get(name) != "", nil })
		}},
	}
	Register(rewriteTestModule)
}

func TestRewritePhases(t *testing.T) {
	_, base := startRuntime(t, `http { server { listen 127.0.0.1:0;
		subtest_if X-Srv { return 200 "server if"; }
		location /first { return 200 "first"; return 200 "second"; }
		location /last { subtest_go /target last; return 200 "not reached"; }
		location /next { subtest_go /target next; return 200 "next $uri"; }
		location /brk { subtest_go /target break; return 200 "not reached"; }
		location /target { return 200 "target $uri"; }
		location /if {
			subtest_if X-A { error_page 404 /target; }
			subtest_if X-B { return 201 "b $uri"; }
			return 404;
		}
		location /loop { subtest_go /loop2 last; }
		location /loop2 { subtest_go /loop last; }
		location /int { internal; subtest_go /target last; }
		location /tf { try_files /nope /int; }
	} }`)
	for _, c := range []struct {
		path, header string
		status       int
		body, ctype  string
	}{
		{"/first", "", 200, "first", ""},
		{"/first", "X-Srv", 200, "server if", ""},
		{"/last", "", 200, "target /target", ""},
		{"/next", "", 200, "next /target", ""},
		{"/brk", "", 404, "", ""}, // the location's content: no file
		{"/if", "", 404, "", "text/html"},
		// The block that held is the location: its error_page applies.
		{"/if", "X-A", 404, "target /target", "text/plain"},
		{"/if", "X-B", 201, "b /if", ""},
		{"/loop", "", 500, "", ""},
		{"/int", "", 404, "", ""},
		{"/tf", "", 200, "target /target", ""},
	} {
		var hdr []string
		if c.header != "" {
			hdr = []string{c.header, "1"}
		}
		resp, body := get(t, base+c.path, hdr...)
		if resp.StatusCode != c.status || (c.body != "" && body != c.body) || (c.ctype != "" && resp.Header.Get("Content-Type") != c.ctype) {
			t.Errorf("%s %s: %d %q %q, want %d %q %q", c.path, c.header, resp.StatusCode, body, resp.Header.Get("Content-Type"), c.status, c.body, c.ctype)
		}
	}
}

func TestRewriteIfContexts(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`http { server { location / { subtest_if X { location /a { } } } } }`, `"location" directive is not allowed here in test.conf:1`},
		{`http { server { subtest_if X { root /x; } } }`, `"root" directive is not allowed here in test.conf:1`},
		{`http { server { location / { subtest_if X { subtest_if Y { } } } } }`, `"subtest_if" directive is not allowed here in test.conf:1`},
	} {
		_, err := LoadString("test.conf", c.src)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %s", c.src, err, c.want)
		}
	}
	// root is allowed in a location's "if" block, as in NGINX.
	cfg := mustLoadNoCleanup(t, `http { server { location / { subtest_if X { root /x; } } } }`)
	cfg.Close()
}
