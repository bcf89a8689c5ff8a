package proxy

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"

	"github.com/mosaic-edge/mosaic/internal/chunked"
	"github.com/mosaic-edge/mosaic/internal/gateway"
	"github.com/mosaic-edge/mosaic/internal/reason"
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

// Failure is why no upstream's response could be relayed, in the words
// of NGINX's proxy_next_upstream and proxy_cache_use_stale. The kind
// decides the status of the error response, whether the failure counts
// against the server, and whether another server is tried.
type Failure uint8

// The failures of an upstream, which Options.OnFailure learns of.
const (
	// FailError is a connection that could not be made or that broke, an
	// upstream that closed it early, or a group with no live server: 502,
	// and the next server is tried.
	FailError Failure = iota + 1
	// FailTimeout is a connect, send or read that timed out: 504, and the
	// next server is tried.
	FailTimeout
	// FailInvalidHeader is a response header that could not be parsed or
	// was too big: 502, and no other server is tried.
	FailInvalidHeader
)

// Failures that are the client's, not the upstream's: never counted
// against a server nor reported to Options.OnFailure.
const (
	failClient   Failure = iota + 100 // the client's body broke off
	failCanceled                      // the client went away: 499
)

// String is the failure's name in proxy_next_upstream and
// proxy_cache_use_stale.
func (f Failure) String() string {
	switch f {
	case FailError:
		return "error"
	case FailTimeout:
		return "timeout"
	case FailInvalidHeader:
		return "invalid_header"
	}
	return "Failure(" + strconv.Itoa(int(f)) + ")"
}

// upstream reports whether the failure is the upstream's.
func (f Failure) upstream() bool {
	return f == FailError || f == FailTimeout || f == FailInvalidHeader
}

type failure struct {
	kind      Failure
	phase     string
	err       error
	sent      bool  // the request had begun to go out (NGINX's request_sent)
	stale     bool  // a reused keepalive connection the server had closed
	premature bool  // the upstream closed the connection early
	ended     error // failCanceled: the request context's Err
}

func (f *failure) status() int {
	switch f.kind {
	case FailTimeout:
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
	// A framing error the Wire words as NGINX does (FastCGI's version,
	// record type, request id), in the head or in the body.
	var pe *gateway.ProtocolError
	if (f.kind == FailInvalidHeader || f.kind == FailError) && errors.As(f.err, &pe) {
		return pe.Error() + " while " + f.phase
	}
	switch f.kind {
	case FailTimeout:
		return "upstream timed out while " + f.phase
	case FailInvalidHeader:
		if errors.Is(f.err, errHeaderTooBig) {
			return "upstream sent too big header while " + f.phase
		}
		return "upstream sent invalid header while " + f.phase
	case failClient:
		return "client prematurely closed connection while " + f.phase
	case failCanceled:
		// A server that ends requests itself (at its shutdown limit) has
		// the context say so; context.Canceled alone is the client leaving.
		if f.ended != context.Canceled {
			return f.ended.Error() + " while " + f.phase
		}
		return "client closed connection while " + f.phase
	}
	switch {
	case f.phase == phaseConnect:
		return "connect() failed while " + f.phase
	case f.phase == phaseSend:
		return "writev() failed while " + f.phase
	case f.premature:
		return "upstream prematurely closed connection while " + f.phase
	case errors.Is(f.err, chunked.ErrFraming):
		return "upstream sent invalid chunked response while " + f.phase
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
	case x.ctx.Err() != nil && !x.cutCancels:
		f.kind, f.ended = failCanceled, x.ctx.Err()
	case isTimeout(err):
		f.kind = FailTimeout
	case errors.Is(err, errHeaderTooBig):
		f.kind = FailInvalidHeader
	case phase == phaseHeader && !isIOError(err):
		f.kind = FailInvalidHeader
	default:
		f.kind = FailError
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
// client, server, request, upstream and host, then extra.
func (x *exchange) logFailure(level slog.Level, msg, upstreamAddr string, err error, extra ...slog.Attr) {
	r := x.r
	attrs := make([]slog.Attr, 0, 6+len(extra))
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
	attrs = append(attrs, extra...)
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
	body, _ := reason.Page(status)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
