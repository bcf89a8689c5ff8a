package proxy

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
)

// StatusClientClosedRequest is NGINX's 499: the client went away before
// the response was ready.
const StatusClientClosedRequest = 499

// Where in the exchange a failure happened, as NGINX's error log says it.
const (
	phaseConnect = "connecting to upstream"
	phaseSend    = "sending request to upstream"
	phaseHeader  = "reading response header from upstream"
	phaseBody    = "reading upstream"
)

// What kind of failure it was, which decides the status, whether it counts
// against the server, and whether another server is tried.
const (
	failError         = iota // connection or I/O error: 502, next upstream
	failTimeout              // a timeout: 504, next upstream
	failInvalidHeader        // unparseable or oversized header: 502, no retry
	failClient               // the client's body broke off: no server at fault
	failCanceled             // the client went away: 499
)

type failure struct {
	kind      int
	phase     string
	err       error
	sent      bool // the request had begun to go out (NGINX's request_sent)
	stale     bool // a reused keepalive connection the server had closed
	premature bool // the upstream closed the connection early
}

func (f *failure) status() int {
	switch f.kind {
	case failTimeout:
		return http.StatusGatewayTimeout
	case failCanceled:
		return StatusClientClosedRequest
	case failClient:
		var mb *http.MaxBytesError
		switch {
		case errors.As(f.err, &mb):
			return http.StatusRequestEntityTooLarge
		case isTimeout(f.err):
			return http.StatusRequestTimeout
		}
		return http.StatusBadRequest
	}
	return http.StatusBadGateway
}

// message is the error-log line, in NGINX's words.
func (f *failure) message() string {
	switch f.kind {
	case failTimeout:
		return "upstream timed out while " + f.phase
	case failInvalidHeader:
		if errors.Is(f.err, errHeaderTooBig) {
			return "upstream sent too big header while " + f.phase
		}
		return "upstream sent invalid header while " + f.phase
	case failClient:
		return "client prematurely closed connection while " + f.phase
	case failCanceled:
		return "client closed connection while " + f.phase
	}
	switch {
	case f.phase == phaseConnect:
		return "connect() failed while " + f.phase
	case f.phase == phaseSend:
		return "writev() failed while " + f.phase
	case f.premature:
		return "upstream prematurely closed connection while " + f.phase
	}
	return "recv() failed while " + f.phase
}

// classify turns an error at the given phase into a failure.
func (x *exchange) classify(err error, phase string, reused bool, c *conn) *failure {
	f := &failure{phase: phase, err: err, sent: phase != phaseConnect}
	var ce *clientError
	switch {
	case errors.As(err, &ce):
		f.kind = failClient
	case x.ctx.Err() != nil:
		f.kind = failCanceled
	case isTimeout(err):
		f.kind = failTimeout
	case errors.Is(err, errHeaderTooBig):
		f.kind = failInvalidHeader
	case phase == phaseHeader && !isIOError(err):
		f.kind = failInvalidHeader
	default:
		f.kind = failError
		f.premature = errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		f.stale = reused && c != nil && c.nread == 0
	}
	return f
}

func isTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isIOError tells transport failures from a response that could not be
// parsed.
func isIOError(err error) bool {
	var op *net.OpError
	var errno syscall.Errno
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.As(err, &op) || errors.As(err, &errno)
}

// logFailure writes an error-log line with the context NGINX gives:
// client, server, request, upstream and host.
func (x *exchange) logFailure(level slog.Level, msg, upstreamAddr string, err error) {
	r := x.r
	attrs := make([]slog.Attr, 0, 6)
	attrs = append(attrs, slog.String("client", clientIP(r)))
	if x.st != nil && x.st.ServerName != "" {
		attrs = append(attrs, slog.String("server", x.st.ServerName))
	}
	attrs = append(attrs,
		slog.String("request", r.Method+" "+requestURI(r)+" "+r.Proto),
		slog.String("upstream", x.h.scheme+"://"+upstreamAddr+x.uri),
		slog.String("host", r.Host),
	)
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	x.h.log.LogAttrs(x.ctx, level, msg, attrs...)
}

func requestURI(r *http.Request) string {
	if r.RequestURI != "" {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}

// writeErrorPage is the default ErrorResponse: a short HTML page like
// NGINX's, and nothing for a client that has gone.
func writeErrorPage(w http.ResponseWriter, _ *http.Request, status int) {
	if status == StatusClientClosedRequest {
		w.WriteHeader(status)
		return
	}
	text := strconv.Itoa(status) + " " + http.StatusText(status)
	body := "<html>\r\n<head><title>" + text + "</title></head>\r\n<body>\r\n<center><h1>" +
		text + "</h1></center>\r\n</body>\r\n</html>\r\n"
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
