package proxy

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout is NGINX's default for proxy_connect_timeout,
// proxy_read_timeout and proxy_send_timeout.
const DefaultTimeout = 60 * time.Second

// Header is one proxy_set_header entry. Value is evaluated once per
// request, after $proxy_host and $proxy_add_x_forwarded_for are published;
// an empty value means the header is not sent at all, and the client's
// header of that name is not passed either.
type Header struct {
	Name  string
	Value func(r *http.Request) string
}

// Static is a Header with a constant value.
func Static(name, value string) Header {
	return Header{Name: name, Value: func(*http.Request) string { return value }}
}

// Options configure a Handler. The zero value of every field but Pass and
// TLS is NGINX's default; the zero TLS verifies the upstream's certificate,
// where NGINX does not (see TLSOptions).
type Options struct {
	// Pass is the proxy_pass target (see ParsePass).
	Pass Pass
	// Upstream is the group that Pass.Host names. When nil, requests go to
	// the single server Pass.Addr(), without keepalive, as for a proxy_pass
	// that names a host.
	Upstream *Upstream
	// LocationPrefix is the prefix of the location holding proxy_pass: the
	// part of the path that Pass.URI replaces and the target of
	// "proxy_redirect default". Empty for regex and named locations, which
	// must not have a URI part.
	LocationPrefix string
	// PrefixLost, when set and true for a request, says that a rewrite
	// changed its URI and ended with "break": the prefix no longer
	// describes the URI, which is then sent whole, without Pass.URI
	// (NGINX's rule for rewritten URIs).
	PrefixLost func(*http.Request) bool
	// Refuse, when set and not 0 for a request, is the status it is
	// answered with (through ErrorResponse) before any upstream is asked:
	// a gateway whose root's variables climb (FastCGI's SCRIPT_FILENAME
	// is built from it) answers 404 as the static handler does.
	Refuse func(*http.Request) int

	// SetHeaders are the proxy_set_header entries, in order. They override
	// the defaults (Host: $proxy_host, Connection: close) and the client's
	// headers of the same names.
	SetHeaders []Header
	// HTTPVersion is proxy_http_version: "1.0" (default) or "1.1".
	HTTPVersion string

	// ConnectTimeout, ReadTimeout and SendTimeout are proxy_connect_timeout,
	// proxy_read_timeout and proxy_send_timeout; 0 means 60s.
	ConnectTimeout time.Duration
	ReadTimeout    time.Duration
	SendTimeout    time.Duration

	// BufferSize is the size of the buffer response bodies are copied
	// through to the client (the size of output_buffers); 0 means 32k.
	BufferSize int

	// BodyBufferSize is how much of a request body that must be kept
	// whole (one of unknown length sent with HTTP/1.0) is held in memory
	// before the rest goes to a temporary file: client_body_buffer_size;
	// 0 means 16k; negative sends the whole body to the file, an empty
	// one too (client_body_in_file_only). BodyTempFile makes that file
	// (client_body_temp_path); nil makes it in the system's temporary
	// directory. BodyKeepFile leaves the file in place once the request
	// is done ("client_body_in_file_only on"); otherwise it is removed.
	BodyBufferSize int64
	BodyTempFile   func() (*os.File, error)
	BodyKeepFile   bool
	// BodyAtEnd, when set, arranges for f (which closes the body's
	// temporary file) to run when the client's request ends rather than
	// when the proxy is done with the body, so that an error page's
	// request sends the same body again, as NGINX's request keeps its
	// body (vars.Rare.SavedBody); false: the proxy closes the file
	// itself. The server's is server.AtRequestEnd.
	BodyAtEnd func(r *http.Request, f func()) bool
	// DropBody is "proxy_pass_request_body off": the body is read whole
	// (memory, then a temporary file, as BodyBufferSize says) but not
	// sent, and its length is, as NGINX's Content-Length says what the
	// request's body is, sent or not. A request whose Body is
	// http.NoBody with a ContentLength above 0 is sent the same way:
	// a subrequest of a parent whose body is not read yet
	// (auth_request). The upstream then waits for a body that never
	// comes, until its timeout or the proxy's; the connection is not
	// kept.
	DropBody bool
	// DropLength sends no Content-Length for a body that is not sent,
	// as NGINX's "proxy_set_header Content-Length "";" does. A body that
	// is sent always goes with its length.
	DropLength bool

	// BufferingOff is "proxy_buffering off": every chunk read from the
	// upstream is flushed to the client at once.
	BufferingOff bool
	// AheadMemory and AheadFileMax are how much of a buffered response's
	// body is read from the upstream ahead of the client: in memory
	// (proxy_buffers: number × size), then in a temporary file that
	// AheadTempFile makes (proxy_max_temp_file_size, proxy_temp_path;
	// nil: the system's temporary directory). The upstream is thus read to
	// its end, and its connection freed, while a slow client still takes
	// the body. Both 0: the body is read only as the client takes it.
	AheadMemory   int
	AheadFileMax  int64
	AheadTempFile func() (*os.File, error)
	// RedirectOff is "proxy_redirect off": Location and Refresh headers
	// pass unchanged.
	RedirectOff bool
	// Redirects are the proxy_redirect lines, tried in order on each
	// Location and on the url= of each Refresh: the first that applies
	// rewrites the value. Empty (and RedirectOff unset): the default line
	// alone, as NGINX adds it to a location with proxy_pass.
	Redirects []Redirect
	// AbsoluteRedirect, when set, is applied to a Location that
	// proxy_redirect rewrote into a path ("/..."), as NGINX's header
	// filter makes such a Location absolute (absolute_redirect); one
	// that the upstream sent as a path passes as it is, as in NGINX.
	AbsoluteRedirect func(r *http.Request, target string) string

	// HideHeaders (proxy_hide_header) are response headers not passed to the
	// client in addition to the defaults (Date, Server, X-Pad, X-Accel-*);
	// PassHeaders (proxy_pass_header) lets default-hidden ones through.
	HideHeaders []string
	PassHeaders []string

	// TLS configures the connections of an https Pass, or of a Wire
	// spoken over TLS (WireTLS). Its zero value
	// verifies the upstream's certificate against the system's roots and
	// sends SNI; set SkipVerify and NoSNI for NGINX's defaults.
	TLS TLSOptions

	// ErrorResponse writes the response for a request the proxy could not
	// complete (status 502, 504, 400, 413 or 499). When nil, a short HTML
	// page is written.
	ErrorResponse func(w http.ResponseWriter, r *http.Request, status int)
	// OnFailure, when set, learns why the Handler is about to answer r with
	// an error response of its own rather than an upstream's: it is called
	// with the failure of the last server tried just before ErrorResponse
	// writes to w. A client that went away or whose body broke off is not an
	// upstream's failure and is not reported. A cache in front of the proxy
	// uses it to keep the error out of its store and to serve a stale entry
	// instead (proxy_cache_use_stale error timeout invalid_header).
	OnFailure func(w http.ResponseWriter, r *http.Request, f Failure)
	// OnUnbuffered, when set, learns that the Handler is about to relay
	// an upstream's answer to r unbuffered (BufferingOff, or the
	// upstream's "X-Accel-Buffering: no"), before it writes the header
	// to w. NGINX stores no such answer in its cache
	// (ngx_http_upstream_send_response frees the cache entry on the
	// unbuffered path), and a cache in front of the proxy uses it to do
	// the same.
	OnUnbuffered func(w http.ResponseWriter, r *http.Request)
	// OnHead, when set, learns the status and header of the upstream's
	// answer to r, as they came, once the Handler has decided to relay
	// it buffered: before it reads the body, which it holds back until
	// its buffer fills or the body ends before it writes the header to
	// w. NGINX's cache decides at that point whether it will store the
	// answer, and frees the entry (and its proxy_cache_lock) for one it
	// will not; a cache in front of the proxy uses it to do the same.
	OnHead func(w http.ResponseWriter, r *http.Request, status int, h http.Header)

	// NextUpstream is proxy_next_upstream: after which failures and
	// statuses a request goes on to the next server; 0 means NGINX's
	// default, DefaultNextUpstream. NextUpstreamTries
	// (proxy_next_upstream_tries) bounds the servers tried, 0: every
	// server once; NextUpstreamTimeout (proxy_next_upstream_timeout)
	// bounds the time from the first try after which no other server is
	// tried, 0: no bound.
	NextUpstream        NextUpstream
	NextUpstreamTries   int
	NextUpstreamTimeout time.Duration

	// Logger receives the error log; nil means slog.Default().
	Logger *slog.Logger

	// Wire, when set, is the protocol spoken to the upstream instead of
	// HTTP/1.x (FastCGI, uwsgi). Pass then only names the server or
	// group, and its Scheme, any word, names the protocol in the error
	// log; SetHeaders, HTTPVersion and the redirect rewriting do not
	// apply. A body of unknown length is read whole first, and its length
	// set as the request's Content-Length, as NGINX does for gateways.
	Wire Wire
	// WireTLS speaks Wire over TLS, configured by TLS, as NGINX's
	// "uwsgi_pass suwsgi://" does; without a Wire it has no effect (the
	// Pass's scheme, https, says when HTTP goes over TLS).
	WireTLS bool
	// DefaultHide, when not nil, replaces the default list of response
	// headers not passed (Date, Server, X-Pad, X-Accel-*), for a Wire
	// whose protocol has its own (see internal/gateway.HiddenHeaders).
	DefaultHide []string
	// RequestBuffering reads the whole request body (into memory up to
	// BodyBufferSize, then a temporary file) before the upstream is
	// contacted, as NGINX's *_request_buffering on does; a body kept so
	// can be sent again to another server.
	RequestBuffering bool
	// Intercept, when set and true for an upstream's status, discards the
	// upstream's response and answers with ErrorResponse(status) instead,
	// as NGINX's *_intercept_errors on does for statuses with an
	// error_page.
	Intercept func(r *http.Request, status int) bool
	// IgnoreAccelBuffering leaves an upstream's X-Accel-Buffering header
	// without effect (*_ignore_headers X-Accel-Buffering).
	IgnoreAccelBuffering bool
	// AccelRedirect, when set, serves a request again for the target of
	// an upstream's X-Accel-Redirect, as NGINX's internal redirect does:
	// the Handler drops the upstream's body and calls it with the target
	// and the fields carried over (see Accel); a server's hook passes
	// a.Writer(w) and a.Request(r) to its internal redirect, or answers
	// 404 through a.Writer(w) for a target that is not safe (a.Refused).
	// When nil, X-Accel-Redirect is only hidden.
	AccelRedirect func(w http.ResponseWriter, r *http.Request, a *Accel)
	// IgnoreAccelRedirect, IgnoreAccelLimitRate and IgnoreAccelCharset
	// leave an upstream's X-Accel-Redirect, X-Accel-Limit-Rate and
	// X-Accel-Charset without effect (*_ignore_headers). An
	// X-Accel-Charset that counts is published for the server's charset
	// filter (vars.Rare.AccelCharset).
	IgnoreAccelRedirect  bool
	IgnoreAccelLimitRate bool
	IgnoreAccelCharset   bool
	// IgnoreClientAbort keeps the exchange with the upstream going when
	// the client goes away, reading the answer to its end and dropping it
	// (*_ignore_client_abort on).
	IgnoreClientAbort bool
	// NoClientHeaders sends none of the client's header fields, only
	// SetHeaders (and the body's framing), as NGINX's
	// proxy_pass_request_headers off does.
	NoClientHeaders bool
	// Cookies, when set, rewrites the Set-Cookie fields of responses
	// (proxy_cookie_domain, proxy_cookie_path, proxy_cookie_flags).
	Cookies *Cookies

	// Bind, when set, gives the local address of the TCP connections
	// opened for a request (proxy_bind): an IP address, with a port or
	// not (see ParseLocal); "" binds none, and a value that is no address
	// is logged and binds none. BindTransparent lets the address be one
	// the host does not have (IP_TRANSPARENT; the process needs
	// CAP_NET_ADMIN). Kept-alive connections are reused only by requests
	// with the same local address.
	Bind            func(r *http.Request) string
	BindTransparent bool
	// SocketKeepalive turns SO_KEEPALIVE on for the TCP connections to the
	// upstream, with the system's probe timing (proxy_socket_keepalive);
	// off, the default, they have none, as in NGINX.
	SocketKeepalive bool
	// LimitRate bounds the rate at which a response is read from the
	// upstream, in bytes per second for each request (proxy_limit_rate);
	// 0 means no limit. As in NGINX it applies to buffered responses
	// only: not with BufferingOff or "X-Accel-Buffering: no".
	LimitRate int64
	// ForceRanges answers a client's Range from an upstream's complete
	// 200 response of known length, whatever its Accept-Ranges says
	// (proxy_force_ranges): one range, as NGINX serves for an uncached
	// response; the upstream's Accept-Ranges is replaced by "bytes".
	ForceRanges bool
	// Unranged, when set, reports whether a filter around the Handler
	// rebuilds the body of w's response, with header h, to r (gunzip for a
	// client that takes no gzip, sub_filter, SSI): ForceRanges then sends
	// it whole, without Accept-Ranges, as NGINX's range filter, which
	// runs after those filters, finds its length unknown.
	Unranged func(w http.ResponseWriter, r *http.Request, h http.Header) bool
}

// IgnoreAccel sets the Ignore* options of the X-Accel-* fields that names
// (a *_ignore_headers list, in any case) holds; other names are left to
// the cache, which reads the list too.
func (o *Options) IgnoreAccel(names []string) {
	for _, name := range names {
		switch strings.ToLower(name) {
		case "x-accel-redirect":
			o.IgnoreAccelRedirect = true
		case "x-accel-limit-rate":
			o.IgnoreAccelLimitRate = true
		case "x-accel-buffering":
			o.IgnoreAccelBuffering = true
		case "x-accel-charset":
			o.IgnoreAccelCharset = true
		}
	}
}

// Handler proxies requests to an upstream. It is safe for concurrent use.
type Handler struct {
	up             *Upstream
	scheme         string
	proxyHost      string
	proxyPort      string
	lookup         record // the variables of a request a cache answers (PublishLookup)
	hasURI         bool
	uri            string
	locPrefix      string
	prefixLost     func(*http.Request) bool
	refuse         func(*http.Request) int
	http11         bool
	requestLineEnd string // " HTTP/1.x\r\n"

	set     []setHeader         // SetHeaders merged with the defaults, in NGINX's order
	managed map[string]struct{} // request headers the client does not pass
	hide    map[string]struct{} // response headers not passed to the client
	// hideLens has bit n set when a name in hide is n bytes long (bit 63:
	// 63 or more), so that most of an answer's names are let through
	// without a lookup.
	hideLens uint64

	connectTimeout time.Duration
	readTimeout    time.Duration
	sendTimeout    time.Duration

	next        NextUpstream // never 0
	nextTries   int
	nextTimeout time.Duration

	bodyMemory   int64
	bodyTemp     func() (*os.File, error)
	bodyKeep     bool
	bodyAtEnd    func(*http.Request, func()) bool
	dropBody     bool
	dropLength   bool
	bufferingOff bool
	relayPool    *sync.Pool
	aheadMemory  int
	aheadFileMax int64
	aheadTemp    func() (*os.File, error)
	redirects    []Redirect // nil: Location and Refresh pass unchanged
	redirectFrom string
	redirectTo   string
	absRedirect  func(*http.Request, string) string

	wire                Wire
	requestBuffering    bool
	intercept           func(*http.Request, int) bool
	ignoreAccelBuf      bool
	accel               func(http.ResponseWriter, *http.Request, *Accel)
	ignoreAccelRedirect bool
	ignoreAccelLimit    bool
	ignoreAccelCharset  bool
	ignoreClientAbort   bool
	noClientHeaders     bool
	cookies             *Cookies

	bind        func(*http.Request) string
	sock        sockOpts // without the bind's address
	limitRate   int64
	forceRanges bool
	unranged    func(http.ResponseWriter, *http.Request, http.Header) bool

	tls           *clientTLS // nil for http
	errorResponse func(http.ResponseWriter, *http.Request, int)
	onFailure     func(http.ResponseWriter, *http.Request, Failure)
	onUnbuffered  func(http.ResponseWriter, *http.Request)
	onHead        func(http.ResponseWriter, *http.Request, int, http.Header)
	log           *slog.Logger
}

// hopByHop are the client's request headers that describe its connection
// and are never forwarded unless configured explicitly: those NGINX's
// default proxy_set_header list empties. Proxy-Authorization,
// Proxy-Connection and Trailer are not among them: NGINX passes them on.
var hopByHop = []string{"Connection", "Keep-Alive", "Te", "Transfer-Encoding", "Upgrade"}

// defaultHidden are the response headers not passed by default: NGINX's
// (ngx_http_proxy_hide_headers). Proxy-Authenticate is not among them: it
// reaches the client, as from NGINX.
var defaultHidden = []string{
	"Date", "Server", "X-Pad",
	"X-Accel-Expires", "X-Accel-Redirect", "X-Accel-Limit-Rate", "X-Accel-Buffering", "X-Accel-Charset",
}

// New builds a Handler.
func New(opts Options) (*Handler, error) {
	p := opts.Pass
	if opts.Wire == nil && p.Scheme != "http" && p.Scheme != "https" {
		return nil, fmt.Errorf("proxy: scheme %q is not http or https", p.Scheme)
	}
	if p.Host == "" {
		return nil, errors.New("proxy: Pass has no host")
	}
	h := &Handler{
		up:             opts.Upstream,
		scheme:         p.Scheme,
		proxyHost:      p.ProxyHost(),
		proxyPort:      p.ProxyPort(),
		hasURI:         p.HasURI,
		uri:            p.URI,
		locPrefix:      opts.LocationPrefix,
		prefixLost:     opts.PrefixLost,
		refuse:         opts.Refuse,
		connectTimeout: orDefault(opts.ConnectTimeout),
		readTimeout:    orDefault(opts.ReadTimeout),
		sendTimeout:    orDefault(opts.SendTimeout),
		next:           opts.NextUpstream,
		nextTries:      opts.NextUpstreamTries,
		nextTimeout:    opts.NextUpstreamTimeout,
		bufferingOff:   opts.BufferingOff,
		errorResponse:  opts.ErrorResponse,
		onFailure:      opts.OnFailure,
		onUnbuffered:   opts.OnUnbuffered,
		onHead:         opts.OnHead,
		log:            opts.Logger,

		wire:                opts.Wire,
		requestBuffering:    opts.RequestBuffering,
		intercept:           opts.Intercept,
		ignoreAccelBuf:      opts.IgnoreAccelBuffering,
		accel:               opts.AccelRedirect,
		ignoreAccelRedirect: opts.IgnoreAccelRedirect,
		ignoreAccelLimit:    opts.IgnoreAccelLimitRate,
		ignoreAccelCharset:  opts.IgnoreAccelCharset,
		ignoreClientAbort:   opts.IgnoreClientAbort,
		noClientHeaders:     opts.NoClientHeaders,
		cookies:             opts.Cookies,

		bind:        opts.Bind,
		sock:        sockOpts{transparent: opts.BindTransparent, keepalive: opts.SocketKeepalive},
		limitRate:   opts.LimitRate,
		forceRanges: opts.ForceRanges,
		unranged:    opts.Unranged,
	}
	h.lookup.h = h
	if h.wire != nil {
		// The gateway's protocol frames the request; none of HTTP's
		// request line, headers or redirect rewriting applies.
		opts.HTTPVersion, opts.SetHeaders = "", nil
	} else if !opts.RedirectOff {
		h.redirects = opts.Redirects
		if len(h.redirects) == 0 {
			h.redirects = defaultRedirect
		}
	}
	if h.next == 0 {
		h.next = DefaultNextUpstream
	}
	if h.up == nil {
		up, err := NewUpstream(h.proxyHost, []Server{{Addr: p.Addr()}}, 0)
		if err != nil {
			return nil, fmt.Errorf("proxy: %w", err)
		}
		h.up = up
	}
	switch opts.HTTPVersion {
	case "", "1.0":
		h.requestLineEnd = " HTTP/1.0\r\n"
	case "1.1":
		h.http11 = true
		h.requestLineEnd = " HTTP/1.1\r\n"
	default:
		return nil, fmt.Errorf("proxy: invalid HTTP version %q", opts.HTTPVersion)
	}
	if p.HasURI {
		h.redirectFrom, h.redirectTo = p.String(), opts.LocationPrefix
	} else {
		h.redirectFrom, h.redirectTo = p.String()+"/", "/"
	}
	if h.wire == nil && p.Scheme == "https" || h.wire != nil && opts.WireTLS {
		t, err := newClientTLS(opts.TLS, p.Host)
		if err != nil {
			return nil, err
		}
		h.tls = t
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	h.bodyMemory, h.bodyTemp, h.bodyKeep = opts.BodyBufferSize, opts.BodyTempFile, opts.BodyKeepFile
	h.bodyAtEnd = opts.BodyAtEnd
	h.dropBody, h.dropLength = opts.DropBody, opts.DropLength
	h.absRedirect = opts.AbsoluteRedirect
	if h.bodyMemory == 0 {
		h.bodyMemory = defaultBodyMemory
	}
	if h.bodyTemp == nil {
		h.bodyTemp = func() (*os.File, error) { return os.CreateTemp("", "mosaic-proxy-body-") }
	}
	h.aheadMemory, h.aheadFileMax, h.aheadTemp = opts.AheadMemory, opts.AheadFileMax, opts.AheadTempFile
	if h.aheadTemp == nil {
		h.aheadTemp = func() (*os.File, error) { return os.CreateTemp("", "mosaic-proxy-") }
	}
	h.relayPool = &bufPool
	if n := opts.BufferSize; n > 0 && n != relayBufferSize {
		h.relayPool = &sync.Pool{New: func() any { b := make([]byte, n); return &b }}
	}
	if h.errorResponse == nil {
		h.errorResponse = writeErrorPage
	}
	if err := h.mergeHeaders(opts.SetHeaders); err != nil {
		return nil, err
	}
	h.hide = make(map[string]struct{})
	hidden := defaultHidden
	if opts.DefaultHide != nil {
		hidden = opts.DefaultHide
	}
	for _, name := range hidden {
		h.hide[textproto.CanonicalMIMEHeaderKey(name)] = struct{}{}
	}
	for _, name := range opts.HideHeaders {
		h.hide[textproto.CanonicalMIMEHeaderKey(name)] = struct{}{}
	}
	for _, name := range opts.PassHeaders {
		delete(h.hide, textproto.CanonicalMIMEHeaderKey(name))
	}
	for name := range h.hide {
		h.hideLens |= lengthBit(name)
	}
	return h, nil
}

// mergeHeaders puts the configured headers first and NGINX's defaults
// after them, skipping defaults that the configuration overrides.
func (h *Handler) mergeHeaders(set []Header) error {
	h.managed = map[string]struct{}{
		"Host": {}, "Content-Length": {}, "Transfer-Encoding": {}, "Expect": {},
	}
	for _, name := range hopByHop {
		h.managed[name] = struct{}{}
	}
	for _, hd := range set {
		key := textproto.CanonicalMIMEHeaderKey(hd.Name)
		if hd.Name == "" || hd.Value == nil {
			return fmt.Errorf("proxy: header %q needs a name and a value", hd.Name)
		}
		if key == "Content-Length" || key == "Transfer-Encoding" {
			return fmt.Errorf("proxy: %s is set by the proxy from the request body", key)
		}
		h.managed[key] = struct{}{}
		h.set = append(h.set, setHeader{name: hd.Name, key: key, value: hd.Value})
	}
	defaults := []Header{Static("Host", h.proxyHost), Static("Connection", "close")}
	for _, d := range defaults {
		overridden := false
		for _, hd := range set {
			if textproto.CanonicalMIMEHeaderKey(hd.Name) == d.Name {
				overridden = true
				break
			}
		}
		if !overridden {
			h.set = append(h.set, setHeader{name: d.Name, key: d.Name, value: d.Value})
		}
	}
	return nil
}

// setHeader is a Header with its canonical name, for matching.
type setHeader struct {
	name  string
	key   string
	value func(*http.Request) string
}

func orDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}
