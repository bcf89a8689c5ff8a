package proxymod

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// reqConf holds the proxy directives that shape the request sent
// upstream and what becomes of the answer (proxy_method,
// proxy_pass_request_body, proxy_set_body, proxy_request_buffering,
// proxy_intercept_errors), and the buffer sizes accepted with a notice.
// They are a module of their own so that their settings merge apart from
// the rest of the proxy's.
type reqConf struct {
	method      core.Setting[*vars.Template]
	passBody    core.Setting[bool]
	passHeaders core.Setting[bool]
	setBody     core.Setting[*vars.Template]
	buffering   core.Setting[bool]
	intercept   core.Setting[bool]
	ignoreAbort core.Setting[bool]

	cookieDomain ruleList[proxy.CookieRule]
	cookiePath   ruleList[proxy.CookieRule]
	cookieFlags  ruleList[proxy.CookieFlags]
	buffers      Buffers
}

var reqModule = &core.Module{
	Name:   "proxy_request",
	NewLoc: func() any { return &reqConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*reqConf), c.(*reqConf)
		child.method.Merge(parent.method)
		child.passBody.Merge(parent.passBody)
		child.passHeaders.Merge(parent.passHeaders)
		child.setBody.Merge(parent.setBody)
		child.buffering.Merge(parent.buffering)
		child.intercept.Merge(parent.intercept)
		child.ignoreAbort.Merge(parent.ignoreAbort)
		child.cookieDomain.merge(parent.cookieDomain)
		child.cookiePath.merge(parent.cookiePath)
		child.cookieFlags.merge(parent.cookieFlags)
		child.buffers.Merge(&parent.buffers)
		return child.buffers.Check("proxy", 0)
	},
}

func init() {
	flag := core.SetFlag[*reqConf]
	template := func(get func(*reqConf) *core.Setting[*vars.Template]) func(*core.Cmd) error {
		return func(c *core.Cmd) error {
			t, err := c.Template(c.Args[0])
			if err != nil {
				return err
			}
			return core.Put(c, get(c.Loc().(*reqConf)), t)
		}
	}
	named := func(name string, d core.Directive) core.Directive { d.Name = name; return d }
	setTuning := TuningSetter(func(c *core.Cmd) *Buffers { return &c.Loc().(*reqConf).buffers })
	tuning := func(minArgs, maxArgs int) core.Directive {
		return core.Directive{Context: core.CtxHTTPAll, MinArgs: minArgs, MaxArgs: maxArgs, Set: setTuning}
	}
	reqModule.Directives = []core.Directive{
		{Name: "proxy_method", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: template(func(l *reqConf) *core.Setting[*vars.Template] { return &l.method })},
		{Name: "proxy_set_body", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: template(func(l *reqConf) *core.Setting[*vars.Template] { return &l.setBody })},
		{Name: "proxy_pass_request_body", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *reqConf) *core.Setting[bool] { return &l.passBody })},
		{Name: "proxy_pass_request_headers", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *reqConf) *core.Setting[bool] { return &l.passHeaders })},
		{Name: "proxy_request_buffering", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *reqConf) *core.Setting[bool] { return &l.buffering })},
		{Name: "proxy_intercept_errors", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *reqConf) *core.Setting[bool] { return &l.intercept })},
		{Name: "proxy_ignore_client_abort", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *reqConf) *core.Setting[bool] { return &l.ignoreAbort })},
		named("proxy_buffers", tuning(2, 2)),
		named("proxy_buffer_size", tuning(1, 1)),
		named("proxy_busy_buffers_size", tuning(1, 1)),
		named("proxy_max_temp_file_size", tuning(1, 1)),
		named("proxy_temp_file_write_size", tuning(1, 1)),
	}
	reqModule.Directives = append(reqModule.Directives, cookieDirectives()...)
	core.Register(reqModule)
}

// applyRequestOptions sets what proxy_request_buffering,
// proxy_intercept_errors, proxy_ignore_client_abort and
// proxy_pass_request_headers ask of the proxy
// for location l.
func applyRequestOptions(l *core.Location, opts *proxy.Options) {
	rc := core.LocConf[*reqConf](l, reqModule)
	var intercept func(*http.Request, int) bool
	if rc.intercept.V {
		// As NGINX: an upstream status of 300 or more that an error_page
		// of the location handles is replaced by that page.
		intercept = func(_ *http.Request, status int) bool { return status >= 300 && l.HasErrorPage(status) }
	}
	// NGINX's default: the whole body is read before the upstream is
	// contacted, so a slow client holds no upstream connection.
	opts.RequestBuffering, opts.Intercept = rc.buffering.Or(true), intercept
	// The upstream exchange runs to its end when the client leaves.
	opts.IgnoreClientAbort = rc.ignoreAbort.V
	opts.NoClientHeaders = rc.passHeaders.Set && !rc.passHeaders.V
	// proxy_set_body's body goes whatever proxy_pass_request_body says.
	opts.DropBody = rc.passBody.Set && !rc.passBody.V && rc.setBody.V == nil
	opts.Cookies = cookieOptions(rc)
	rc.buffers.Apply(opts)
}

// wrapRequest returns h behind the changes that proxy_method and
// proxy_set_body make to the request sent upstream, or h itself when the
// location sets neither (proxy_pass_request_body off is the proxy's
// DropBody).
func wrapRequest(l *core.Location, h http.Handler) http.Handler {
	rc := core.LocConf[*reqConf](l, reqModule)
	method, setBody := rc.method.V, rc.setBody.V
	if method == nil && setBody == nil {
		return h
	}
	// "proxy_set_header Content-Length "";" takes NGINX's length of the
	// body away, that of an empty one included.
	declareEmpty := !core.LocConf[*locConf](l, module).dropLength
	log := l.Logger()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := new(http.Request)
		*r2 = *r
		if method != nil {
			if m := method.Eval(r); m != "" {
				if strings.IndexFunc(m, breaksLine) >= 0 {
					// NGINX writes the value into its request line as
					// it is: a variable carrying a client's decoded CR
					// LF would end the line and add header lines of
					// the client's choosing, a space shift the target.
					log.Error(fmt.Sprintf("invalid character in the method %q of proxy_method", m))
					core.Error(w, r, http.StatusInternalServerError)
					return
				}
				r2.Method = m
			}
		}
		if setBody != nil {
			// The body replaces the client's, which is not sent.
			b := setBody.Eval(r)
			r2.Body, r2.ContentLength = http.NoBody, 0
			r2.Header = withoutBodyFields(r.Header)
			if b != "" {
				r2.Body = readCloser{strings.NewReader(b)}
				r2.ContentLength = int64(len(b))
			} else if declareEmpty {
				// NGINX frames the value by its length whatever it is:
				// an empty one goes as "Content-Length: 0", which the
				// proxy sends for a body declared empty.
				r2.Header = r2.Header.Clone()
				r2.Header.Set("Content-Length", "0")
			}
		}
		h.ServeHTTP(w, r2)
	})
}

// breaksLine reports a byte that cannot stand in a request line's
// method: a control, a space or DEL.
func breaksLine(c rune) bool { return c <= ' ' || c == 0x7f }

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// withoutBodyFields drops the client's framing of a body that is not
// sent: the proxy frames the body it sends itself.
func withoutBodyFields(h http.Header) http.Header {
	if _, ok := h["Content-Length"]; !ok {
		if _, ok := h["Transfer-Encoding"]; !ok {
			return h
		}
	}
	h = h.Clone()
	delete(h, "Content-Length")
	delete(h, "Transfer-Encoding")
	return h
}
