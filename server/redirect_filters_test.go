package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// tagFilterModule is an output filter for the tests: "subtest_tag name"
// adds X-Tag: name to the header of the response it sends, and, like a
// filter that answers for a handler that wrote nothing (compression
// sends an empty 200), writes a response of its own at its end when
// nothing went through it.
var tagFilterModule = &Module{
	Name:   "subtest_tag",
	NewLoc: func() any { return new(string) },
	Directives: []Directive{{Name: "subtest_tag", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
		*c.Loc().(*string) = c.Args[0]
		return nil
	}}},
}

func init() {
	tagFilterModule.Filter = &Filter{InSubrequest: true, Wrap: func(l *Location, next http.Handler) (http.Handler, error) {
		tag := *LocConf[*string](l, tagFilterModule)
		if tag == "" {
			return next, nil
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tw := &tagWriter{ResponseWriter: w, tag: tag}
			next.ServeHTTP(tw, r)
			if !tw.wrote {
				w.Header().Set("X-Late", tag)
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write([]byte("late " + tag))
			}
		}), nil
	}}
	filterOrder = append(filterOrder, tagFilterModule.Name) // innermost
	Register(tagFilterModule)
}

type tagWriter struct {
	http.ResponseWriter
	tag   string
	wrote bool
}

func (w *tagWriter) WriteHeader(code int) {
	if !w.wrote && code >= 200 {
		w.wrote = true
		w.Header().Add("X-Tag", w.tag)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *tagWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// serveOnce serves one request for target through the dispatcher of cfg.
func serveOnce(t *testing.T, cfg *Config, target string) *httptest.ResponseRecorder {
	t.Helper()
	var cur atomic.Pointer[Config]
	cfg.refs.Add(1)
	cur.Store(cfg)
	d := &dispatcher{cur: &cur}
	for bound := range cfg.addrs {
		d.bound = bound
	}
	w := httptest.NewRecorder()
	d.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
	return w
}

// The response of an internal redirect's target goes out through the
// target's output filters only: the first location's neither add to it
// nor write anything at their end, whatever the way the request was
// redirected (try_files, error_page, nested error pages), in a
// subrequest too. The error_page of the first location does not replace
// the target's response: the target's own decides, as in NGINX.
func TestRedirectTargetOutputFilters(t *testing.T) {
	cfg, err := LoadString("test.conf", fmt.Sprintf(`http { server { listen 127.0.0.1:0; root %s;
		location / { subtest_tag first; try_files $uri /target; }
		location = /target { subtest_tag target; return 200 "target"; }
		location = /plain { return 200 "plain"; }
		location /ep/ { subtest_tag ep; error_page 404 =200 /target; return 404; }
		location /nested/ { subtest_tag nested; recursive_error_pages on; error_page 404 = /missing; return 404; }
		location = /missing { subtest_tag missing; error_page 404 =201 /target; return 404; }
		location /untagged/ { try_files $uri /target; }
		location /toplain/ { subtest_tag toplain; try_files $uri /plain; }
		location /tfe/ { subtest_tag tfe; error_page 404 /target; try_files $uri /bare; }
		location = /bare { subtest_tag bare; return 404; }
		location /sub/ { subtest_fetch /some/file; }
		location /subplain/ { subtest_fetch /toplain/x; }
	} }`, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer cfg.close()
	for _, c := range []struct {
		target, tag, body string
		status            int
	}{
		{"/some/file", "target", "target", 200},
		{"/ep/x", "target", "target", 200},
		{"/nested/x", "target", "target", 201},
		{"/untagged/x", "target", "target", 200},
		{"/toplain/x", "", "plain", 200},
		{"/tfe/x", "bare", "404 Not Found", 404}, // the target has no error_page
		{"/sub/x", "", "200:target", 200},
		{"/subplain/x", "", "200:plain", 200},
	} {
		w := serveOnce(t, cfg, c.target)
		if body := w.Body.String(); w.Code != c.status || body != c.body && !(c.status == 404 && strings.Contains(body, c.body)) {
			t.Errorf("GET %s: %d %q, want %d %q", c.target, w.Code, w.Body, c.status, c.body)
		}
		if got := strings.Join(w.Header()["X-Tag"], ","); got != c.tag {
			t.Errorf("GET %s: X-Tag %q, want %q", c.target, got, c.tag)
		}
		if late := w.Header()["X-Late"]; late != nil {
			t.Errorf("GET %s: a bypassed filter wrote at its end: X-Late %q", c.target, late)
		}
	}
}
