package grpcproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/mosaic-edge/mosaic/internal/pace"
	"github.com/mosaic-edge/mosaic/vars"
)

// DefaultTimeout is NGINX's default grpc_connect_timeout,
// grpc_send_timeout and grpc_read_timeout.
const DefaultTimeout = 60 * time.Second

// maxTransports bounds the HTTP/2 clients a Handler keeps, one per TLS
// name and local address that requests asked for: a name or an address
// taken from the request (grpc_ssl_name $http_host) cannot grow it
// without bound. Past it the oldest client is dropped.
const maxTransports = 64

// DefaultHide are the fields of the upstream's response that a Handler
// does not relay, as NGINX's grpc module hides them.
var DefaultHide = []string{"Date", "Server", "X-Accel-Expires", "X-Accel-Redirect",
	"X-Accel-Limit-Rate", "X-Accel-Buffering", "X-Accel-Charset"}

// hopByHop are the request's fields that belong to the client's
// connection, never sent to the upstream (NGINX's grpc_set_header
// defaults clear them).
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Transfer-Encoding",
	"Upgrade", "Expect", "Host", "Content-Length"}

// Handler passes requests to gRPC servers over HTTP/2: in the clear with
// prior knowledge (grpc://) or over TLS with ALPN h2 (grpcs://). The
// request body and the response body stream at once, so that every kind
// of call works, bidirectional streaming included; the response's
// trailers (grpc-status, grpc-message) reach the client as trailers.
// Build it with New.
type Handler struct {
	o      Options
	scheme string

	mu         sync.Mutex
	transports map[string]*http.Transport
	keys       []string          // transports' keys, the oldest first
	hosts      map[string]string // the URL host of each Unix-domain socket's address
}

// Selection is one request's walk over the servers of a group: Next
// returns the address of the server to try ("unix:/path" for a
// Unix-domain socket), false when none is left, and Done ends its try,
// failed charging it with a failure, and reports whether that took the
// server out of rotation; More says whether another try is allowed
// (grpc_next_upstream_tries). *proxy.Selection is one, with proxy_pass's
// balancing.
type Selection interface {
	Next() (addr string, ok bool)
	Done(failed bool) (disabled bool)
	More() bool
}

// Header is a field set on every request; its value is computed for
// each.
type Header struct {
	Name  string
	Value func(r *http.Request) string
}

// NextUpstream says after which failures a request goes on to the next
// server (grpc_next_upstream); its zero value is NGINX's default, error
// and timeout.
type NextUpstream uint8

const (
	NextError   NextUpstream = 1 << iota // the server refused or the connection failed
	NextTimeout                          // the connection timed out
	NextOff                              // never another server
)

// Options configure a Handler; the zero value of each field but Upstream
// is NGINX's default.
type Options struct {
	// Addr is the one server to pass to, host:port or "unix:/path";
	// Select, when set, picks among several instead.
	Addr   string
	Select func(r *http.Request) Selection
	// Name names the servers in log lines (the upstream group).
	Name string
	// Authority is the request's :authority when no SetHeaders entry
	// names Host.
	Authority string
	// TLS, when set, makes the connections TLS (grpcs://): it returns the
	// configuration of r's connection and the name that tells apart the
	// connections that may be shared (proxy.TLSOptions.ClientConfig).
	TLS func(r *http.Request) (name string, c *tls.Config)
	// SetHeaders change the request's fields (grpc_set_header): an empty
	// value removes the field; Host sets the :authority.
	SetHeaders []Header
	// MaxHeaderSize bounds the response's head (grpc_buffer_size): a
	// bigger one is the upstream's failure, 502. 0 means 4096, NGINX's
	// default.
	MaxHeaderSize int
	// HideHeaders are response fields not relayed besides DefaultHide
	// (grpc_hide_header); PassHeaders are those of DefaultHide relayed
	// all the same (grpc_pass_header).
	HideHeaders, PassHeaders []string
	// ConnectTimeout bounds the dial and TLS handshake; ReadTimeout the
	// wait for the response's head and between two reads of its body;
	// SendTimeout the wait for the client's body to be taken in by the
	// upstream (a write stalled by HTTP/2 flow control). 0 means
	// DefaultTimeout.
	ConnectTimeout, ReadTimeout, SendTimeout time.Duration
	// NextUpstream and NextUpstreamTimeout are grpc_next_upstream and
	// its bound in time; Select bounds the tries. A request goes on to another
	// server only when it could not reach one (a connection or a TLS
	// handshake that failed or timed out): once a stream is open its body
	// is on its way, and a gRPC request is not idempotent.
	NextUpstream        NextUpstream
	NextUpstreamTimeout time.Duration
	// Intercept, when set, says which response statuses are answered
	// with ErrorResponse instead (grpc_intercept_errors).
	Intercept func(r *http.Request, status int) bool
	// ErrorResponse writes the response for a request no server answered;
	// nil writes a plain error page.
	ErrorResponse func(w http.ResponseWriter, r *http.Request, status int)
	// Bind returns the local address to connect from (grpc_bind), "" for
	// any; SocketKeepalive turns TCP keepalive on (grpc_socket_keepalive).
	Bind            func(r *http.Request) string
	SocketKeepalive bool
	// Logger receives the failures; nil means slog.Default().
	Logger *slog.Logger
}

// New returns the Handler of o.
func New(o Options) (*Handler, error) {
	if o.Addr == "" && o.Select == nil {
		return nil, errors.New("grpcproxy: no server")
	}
	if o.Name == "" {
		o.Name = o.Addr
	}
	h := &Handler{o: o, scheme: "http", hosts: map[string]string{}, transports: map[string]*http.Transport{}}
	if o.TLS != nil {
		h.scheme = "https"
	}
	return h, nil
}

func timeoutOr(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}

// dialError is a failure to reach a server, before the request went out.
type dialError struct{ err error }

func (e dialError) Error() string { return e.err.Error() }
func (e dialError) Unwrap() error { return e.err }

// errReadTimeout and errSendTimeout are the causes of a request
// cancelled by ReadTimeout or SendTimeout.
var (
	errReadTimeout = errors.New("upstream timed out (110: Connection timed out)")
	errSendTimeout = errors.New("upstream timed out (110: Connection timed out) while sending request to upstream")
)

// transport returns the HTTP/2 client for connections with the TLS
// configuration tc (nil: in the clear) from local address bind.
func (h *Handler) transport(key string, tc *tls.Config, bind string) (*http.Transport, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.transports[key]; t != nil {
		return t, nil
	}
	d := net.Dialer{Timeout: timeoutOr(h.o.ConnectTimeout), KeepAlive: -1}
	if h.o.SocketKeepalive {
		d.KeepAlive = 0 // the system's keepalive, turned on
	}
	if bind != "" {
		// An address, never a name: a value taken from the request
		// must not start a DNS lookup.
		ap, err := netip.ParseAddrPort(bind)
		if err != nil {
			ip, err2 := netip.ParseAddr(bind)
			if err2 != nil {
				return nil, fmt.Errorf("invalid local address %q", bind)
			}
			ap = netip.AddrPortFrom(ip, 0)
		}
		d.LocalAddr = net.TCPAddrFromAddrPort(ap)
	}
	dial := func(ctx context.Context, addr string) (net.Conn, error) {
		network := "tcp"
		if path, ok := h.unixPath(addr); ok {
			network, addr = "unix", path
		}
		dd := d
		if network == "unix" {
			dd.LocalAddr = nil
		}
		c, err := dd.DialContext(ctx, network, addr)
		if err != nil {
			return nil, dialError{err}
		}
		return c, nil
	}
	t := &http.Transport{
		Protocols:          new(http.Protocols),
		DisableCompression: true,
		// HTTP/2 keeps one connection per server, shared by the streams.
		MaxIdleConnsPerHost:    1,
		IdleConnTimeout:        time.Minute,
		MaxResponseHeaderBytes: int64(h.o.MaxHeaderSize),
	}
	if t.MaxResponseHeaderBytes <= 0 {
		t.MaxResponseHeaderBytes = 4096
	}
	if tc == nil {
		t.Protocols.SetUnencryptedHTTP2(true)
		t.DialContext = func(ctx context.Context, _, addr string) (net.Conn, error) { return dial(ctx, addr) }
	} else {
		t.Protocols.SetHTTP2(true)
		tc = tc.Clone()
		tc.NextProtos = []string{"h2"}
		t.DialTLSContext = func(ctx context.Context, _, addr string) (net.Conn, error) {
			c, err := dial(ctx, addr)
			if err != nil {
				return nil, err
			}
			ctx, cancel := context.WithTimeout(ctx, timeoutOr(h.o.ConnectTimeout))
			defer cancel()
			tlc := tls.Client(c, tc)
			if err := tlc.HandshakeContext(ctx); err != nil {
				c.Close()
				return nil, dialError{err}
			}
			if tlc.ConnectionState().NegotiatedProtocol != "h2" {
				tlc.Close()
				return nil, dialError{errors.New("upstream did not agree on HTTP/2 (ALPN h2)")}
			}
			return tlc, nil
		}
	}
	if len(h.transports) >= maxTransports {
		// Refusing new keys would let a client that sent many names
		// make every later request fail; the oldest client goes
		// instead. Its streams in flight finish, and its connections
		// close as they fall idle (IdleConnTimeout).
		old := h.keys[0]
		h.keys = h.keys[1:]
		h.transports[old].CloseIdleConnections()
		delete(h.transports, old)
	}
	h.transports[key] = t
	h.keys = append(h.keys, key)
	return t, nil
}

// CloseIdle closes the idle connections, for a Handler a new
// configuration replaced.
func (h *Handler) CloseIdle() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range h.transports {
		t.CloseIdleConnections()
	}
}

func (h *Handler) log() *slog.Logger {
	if h.o.Logger != nil {
		return h.o.Logger
	}
	return slog.Default()
}

func (h *Handler) errorResponse(w http.ResponseWriter, r *http.Request, status int) {
	if h.o.ErrorResponse != nil {
		h.o.ErrorResponse(w, r, status)
		return
	}
	http.Error(w, http.StatusText(status), status)
}

// ServeHTTP passes r to a server and relays its answer.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var tlsName string
	var tc *tls.Config
	if h.o.TLS != nil {
		tlsName, tc = h.o.TLS(r)
	}
	bind := ""
	if h.o.Bind != nil {
		bind = h.o.Bind(r)
	}
	t, err := h.transport(tlsName+"|"+bind, tc, bind)
	if err != nil {
		h.log().LogAttrs(ctx, slog.LevelError, err.Error())
		h.errorResponse(w, r, http.StatusInternalServerError)
		return
	}
	header, authority := h.requestHeader(r)
	var sel Selection = &single{addr: h.o.Addr}
	if h.o.Select != nil {
		sel = h.o.Select(r)
	}
	start := time.Now()
	var tried triedServers
	for {
		addr, ok := sel.Next()
		if !ok {
			h.log().LogAttrs(ctx, slog.LevelError, "no live upstreams while connecting to upstream",
				slog.String("upstream", h.o.Name))
			tried.note(r, h.o.Name, http.StatusBadGateway)
			h.errorResponse(w, r, http.StatusBadGateway)
			return
		}
		status, retry := h.try(w, r, t, addr, header, authority, func(status int) { tried.note(r, addr, status) })
		if status > 0 {
			tried.note(r, addr, status)
		}
		if status <= 0 {
			sel.Done(false)
			if status == aborted {
				// The head is out: resetting the stream tells the
				// client. The try ends first, or the server would keep
				// counting it among its active ones (max_conns).
				panic(http.ErrAbortHandler)
			}
			return
		}
		if sel.Done(true) {
			h.log().LogAttrs(ctx, slog.LevelWarn, "upstream server temporarily disabled while connecting to upstream",
				slog.String("upstream", addr))
		}
		if !retry || !sel.More() || !h.mayGoOn(status, start) {
			h.errorResponse(w, r, status)
			return
		}
	}
}

// triedServers are the servers a request tried and what each answered,
// for $upstream_addr and $upstream_status: set again after each try, so
// that they hold before the response header goes out (an add_header ...
// always sees them, as in NGINX).
type triedServers struct {
	addrs, statuses []string
}

func (t *triedServers) note(r *http.Request, addr string, status int) {
	st := vars.FromContext(r.Context())
	if st == nil {
		return
	}
	t.addrs = append(t.addrs, addr)
	t.statuses = append(t.statuses, strconv.Itoa(status))
	st.Set("upstream_addr", strings.Join(t.addrs, ", "))
	st.Set("upstream_status", strings.Join(t.statuses, ", "))
}

// mayGoOn says whether grpc_next_upstream lets a request that failed to
// connect with status (502: error, 504: timeout) try another server.
func (h *Handler) mayGoOn(status int, start time.Time) bool {
	next := h.o.NextUpstream
	if next == 0 {
		next = NextError | NextTimeout
	}
	cond := NextError
	if status == http.StatusGatewayTimeout {
		cond = NextTimeout
	}
	if next&NextOff != 0 || next&cond == 0 {
		return false
	}
	return h.o.NextUpstreamTimeout <= 0 || time.Since(start) < h.o.NextUpstreamTimeout
}

// requestHeader is what goes to the upstream: the client's fields but
// those of its connection (hopByHop: the fields that the Connection
// field names go on, as in NGINX), "te: trailers" when the client
// accepts trailers (NGINX's $grpc_internal_trailers), then SetHeaders.
func (h *Handler) requestHeader(r *http.Request) (http.Header, string) {
	out := make(http.Header, len(r.Header)+2)
	for k, vv := range r.Header {
		if !slices.Contains(hopByHop, k) {
			out[k] = slices.Clone(vv)
		}
	}
	// As NGINX reads it: its first TE field only, holding "trailers"
	// anywhere in any case ("trailers;q=0.5" is one).
	if strings.Contains(strings.ToLower(r.Header.Get("Te")), "trailers") {
		out.Set("Te", "trailers")
	}
	authority := h.o.Authority
	for _, sh := range h.o.SetHeaders {
		v := sh.Value(r)
		if strings.EqualFold(sh.Name, "Host") {
			authority = v
			continue
		}
		if v == "" {
			out.Del(sh.Name)
		} else {
			out.Set(sh.Name, v)
		}
	}
	// Go's HTTP/2 client refuses a whole request for one field it cannot
	// carry (a control byte or DEL in a value, which the HTTP/1 parser
	// serves as NGINX does; a name that is not a token, kept with
	// ignore_invalid_headers off), and that failure would count against
	// the server: a client could take every server down for
	// fail_timeout. Such a field is left out, as the proxy leaves out a
	// value with a CR or LF.
	for k, vv := range out {
		if httpguts.ValidHeaderFieldName(k) {
			vv = slices.DeleteFunc(vv, func(v string) bool { return !httpguts.ValidHeaderFieldValue(v) })
			if len(vv) > 0 {
				out[k] = vv
				continue
			}
		}
		h.log().Warn("header field HTTP/2 cannot carry not sent", slog.String("header", k))
		delete(out, k)
	}
	if len(out["User-Agent"]) == 0 {
		// Go's transport sends its own user-agent where the request has
		// none; an empty one it leaves out. NGINX sends none.
		out["User-Agent"] = []string{""}
	}
	return out, authority
}

// aborted is try's status for a response whose head is out and whose
// body broke: the client's stream is to be reset.
const aborted = -1

// try sends r to the server at addr and relays its answer. It returns 0
// when the request was answered (or the client left), aborted for a
// response that broke after its head, else the status to answer with
// and whether the request never left, so that another server may take
// it.
func (h *Handler) try(w http.ResponseWriter, r *http.Request, t *http.Transport, addr string, header http.Header, authority string, answered func(status int)) (status int, retry bool) {
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	host := h.urlHost(addr)
	body := io.ReadCloser(http.NoBody)
	if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
		body = &sendBody{r: r.Body}
	}
	out, err := http.NewRequestWithContext(ctx, r.Method, h.scheme+"://"+host+r.URL.RequestURI(), body)
	if err != nil {
		h.log().LogAttrs(ctx, slog.LevelError, err.Error(), slog.String("upstream", addr))
		return http.StatusInternalServerError, false
	}
	out.Header = header.Clone()
	out.Host = authority
	out.ContentLength = r.ContentLength
	if out.ContentLength == 0 {
		out.Body = nil
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			// NGINX passes $content_length, none where the client sent
			// none; Go's transport sends "content-length: 0" for these
			// methods without a body, but none for a body whose length
			// it does not know: it then ends the stream with an empty
			// DATA frame where NGINX ends it with the HEADERS.
			// GetBody lets the transport send it again after
			// REFUSED_STREAM or a GOAWAY, as it does a nil body.
			if len(r.Header["Content-Length"]) == 0 {
				out.Body = noBody{}
				out.GetBody = func() (io.ReadCloser, error) { return noBody{}, nil }
			}
		}
	}
	// The read timeout runs while the response is awaited and between
	// two reads of its body; the send timeout while a piece of the
	// request body waits to be taken.
	readTimer := time.AfterFunc(timeoutOr(h.o.ReadTimeout), func() { cancel(errReadTimeout) })
	defer readTimer.Stop()
	var (
		headMu   sync.Mutex // orders sent's Reset before the body's reads
		headCame bool
	)
	if sb, ok := body.(*sendBody); ok {
		// As NGINX's, the wait for the response starts once the request
		// went whole: a client-streaming call may take longer to send
		// its messages than the read timeout. Once the head came, the
		// body's reads below run the timer.
		readTimer.Stop()
		sb.sent = func() {
			headMu.Lock()
			defer headMu.Unlock()
			if !headCame {
				readTimer.Reset(timeoutOr(h.o.ReadTimeout))
			}
		}
		sb.arm = func() func() {
			tm := time.AfterFunc(timeoutOr(h.o.SendTimeout), func() { cancel(errSendTimeout) })
			return func() { tm.Stop() }
		}
	}
	resp, err := t.RoundTrip(out)
	headMu.Lock()
	headCame = true
	headMu.Unlock()
	if err != nil {
		return h.failed(r, addr, err, context.Cause(ctx))
	}
	answered(resp.StatusCode)
	defer func() {
		// Go's client waits in Close for the request body's writer,
		// which may wait on a client that still has its side open (the
		// upstream ended the call first): cancelling first ends the
		// stream at once. The server wakes the writer's read once the
		// handler returns.
		cancel(nil)
		resp.Body.Close()
	}()
	if h.o.Intercept != nil && h.o.Intercept(r, resp.StatusCode) {
		h.errorResponse(w, r, resp.StatusCode)
		return 0, false
	}
	dst := w.Header()
	for k, vv := range resp.Header {
		if h.hidden(k) {
			continue
		}
		dst[k] = vv
	}
	if resp.ContentLength >= 0 {
		dst.Set("Content-Length", fmt.Sprint(resp.ContentLength))
	}
	// NGINX relays a gRPC answer unbuffered, and paces no unbuffered
	// answer (ngx_http_upstream_send_response sets r->limit_rate to 0):
	// limit_rate and "set $limit_rate" do not apply, $limit_rate reads
	// 0, and X-Accel-Limit-Rate, hidden, has nothing to change.
	vars.FromContext(r.Context()).Set(pace.StateName, "0")
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	_ = rc.Flush() // the client hears the head before any message
	buf := make([]byte, 32<<10)
	for {
		readTimer.Reset(timeoutOr(h.o.ReadTimeout))
		n, err := resp.Body.Read(buf)
		// The timeout bounds the upstream's silence, not the write to
		// a slow client (NGINX's send_timeout's), which may wait for
		// its HTTP/2 window.
		readTimer.Stop()
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return 0, false // the client left
			}
			// Each message goes out as it comes: a stream's messages
			// are not to wait for the next ones.
			_ = rc.Flush()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if r.Context().Err() == nil {
				msg := err.Error() + " while reading upstream"
				switch cause := context.Cause(ctx); cause {
				case errSendTimeout:
					msg = cause.Error()
				case errReadTimeout:
					msg = cause.Error() + " while reading upstream"
				}
				h.log().LogAttrs(ctx, slog.LevelError, msg, slog.String("upstream", addr))
			}
			return aborted, false
		}
	}
	for k, vv := range resp.Trailer {
		dst[http.TrailerPrefix+k] = vv
	}
	return 0, false
}

// failed logs a request that got no response and returns its status:
// 504 for a timeout, 502 otherwise, and 0 for a client that left.
func (h *Handler) failed(r *http.Request, addr string, err, cause error) (int, bool) {
	if r.Context().Err() != nil {
		return 0, false
	}
	var de dialError
	connect := errors.As(err, &de)
	status := http.StatusBadGateway
	var ne net.Error
	switch {
	case cause == errSendTimeout:
		h.log().LogAttrs(r.Context(), slog.LevelError, cause.Error(), slog.String("upstream", addr))
		return http.StatusGatewayTimeout, false
	case cause == errReadTimeout:
		status, err = http.StatusGatewayTimeout, cause
	case errors.As(err, &ne) && ne.Timeout():
		status = http.StatusGatewayTimeout
	}
	phase := " while reading response header from upstream"
	if connect {
		phase = " while connecting to upstream"
	}
	h.log().LogAttrs(r.Context(), slog.LevelError, err.Error()+phase, slog.String("upstream", addr))
	return status, connect
}

// hidden says whether a response field is not relayed.
func (h *Handler) hidden(k string) bool {
	switch k {
	case "Connection", "Keep-Alive", "Transfer-Encoding", "Upgrade", "Trailer", "Content-Length":
		return true
	}
	if slices.ContainsFunc(h.o.HideHeaders, func(s string) bool { return strings.EqualFold(s, k) }) {
		return true
	}
	return slices.Contains(DefaultHide, k) &&
		!slices.ContainsFunc(h.o.PassHeaders, func(s string) bool { return strings.EqualFold(s, k) })
}

// noBody is an empty request body of a length the transport does not
// know, so that it sends no content-length.
type noBody struct{}

func (noBody) Read([]byte) (int, error) { return 0, io.EOF }
func (noBody) Close() error             { return nil }

// sendBody is the client's body on its way to the upstream: each Read
// returns once the previous piece has been taken, so the time between
// the end of a Read and the next is the time the upstream took to take
// it in, which arm bounds (the send timeout). sent is called at the
// body's end.
type sendBody struct {
	r    io.ReadCloser
	arm  func() (stop func())
	stop func()
	sent func()
}

func (b *sendBody) Read(p []byte) (int, error) {
	if b.stop != nil {
		b.stop()
		b.stop = nil
	}
	n, err := b.r.Read(p)
	if n > 0 && err == nil && b.arm != nil {
		b.stop = b.arm()
	}
	if err == io.EOF && b.sent != nil {
		b.sent()
		b.sent = nil
	}
	return n, err
}

// Close leaves the client's body to the server, which closes it. A send
// timer still armed is harmless: the request it would cancel is over.
func (b *sendBody) Close() error { return nil }

// single is the Selection of a Handler with one server: one try.
type single struct {
	addr  string
	tried bool
}

func (s *single) Next() (string, bool) {
	if s.tried {
		return "", false
	}
	s.tried = true
	return s.addr, true
}

func (s *single) Done(bool) bool { return false }

func (s *single) More() bool { return !s.tried }

// urlHost is the host of a request's URL for the server at addr. A
// Unix-domain socket has none: it gets a name of its own, which the
// dialer maps back (unixPath), and by which its connections are pooled.
// The addresses come from the configuration, so the names are few.
func (h *Handler) urlHost(addr string) string {
	if len(addr) < 5 || !strings.EqualFold(addr[:5], "unix:") {
		return addr
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	host, ok := h.hosts[addr]
	if !ok {
		host = fmt.Sprintf("unix-%d.invalid:0", len(h.hosts))
		h.hosts[addr] = host
	}
	return host
}

// unixPath returns the socket's path of a URL host urlHost made.
func (h *Handler) unixPath(host string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for addr, u := range h.hosts {
		if u == host {
			return addr[len("unix:"):], true
		}
	}
	return "", false
}
