package proxy

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// relayBufferSize is the copy buffer for response bodies and tunnels.
const relayBufferSize = 32 << 10

var bufPool = sync.Pool{New: func() any { b := make([]byte, relayBufferSize); return &b }}

// copyHeader passes the upstream's response header to the client's,
// leaving out hidden headers and hop-by-hop ones (but the Upgrade and
// Connection of a 101), and rewriting redirects.
func (h *Handler) copyHeader(dst, src http.Header, switching bool) {
	connection := src["Connection"]
	for k, vv := range src {
		if _, hidden := h.hide[k]; hidden {
			continue
		}
		if switching {
			if isHopByHop(k) && k != "Upgrade" && k != "Connection" {
				continue
			}
		} else if isHopByHop(k) || header.HasToken(connection, k) {
			continue
		}
		if h.redirect && (k == "Location" || k == "Refresh") {
			vv = h.rewriteRedirects(k, vv)
		}
		dst[k] = vv
	}
	if _, ok := src["Content-Type"]; !ok && !switching {
		// The upstream sent none, so the client gets none: a nil entry stops
		// net/http from sniffing one.
		dst["Content-Type"] = nil
	}
}

func isHopByHop(k string) bool {
	switch k {
	case "Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	return false
}

// rewriteRedirects applies "proxy_redirect default": a Location, or the
// url= of a Refresh, that starts with the proxy_pass target gets the
// location prefix in its place.
func (h *Handler) rewriteRedirects(name string, vv []string) []string {
	var out []string
	for i, v := range vv {
		prefix := 0
		if name == "Refresh" {
			j := strings.Index(strings.ToLower(v), "url=")
			if j < 0 {
				continue
			}
			prefix = j + len("url=")
		}
		if !strings.HasPrefix(v[prefix:], h.redirectFrom) {
			continue
		}
		if out == nil {
			out = slices.Clone(vv)
		}
		out[i] = v[:prefix] + h.redirectTo + v[prefix+len(h.redirectFrom):]
	}
	if out == nil {
		return vv
	}
	return out
}

// relayed is what relay did with the upstream's body.
type relayed struct {
	n         int64 // body bytes received from the upstream
	committed bool  // the response header went to the client's writer
	upErr     error // the upstream's body broke off
	clientErr error // the client's side failed
}

// relay copies the upstream's body to the client, writing the response
// header first. With flush set the header goes out at once and every
// piece read is flushed. Otherwise the header waits until the buffer is
// full or the body has ended: a body that breaks off before that has sent
// the client nothing, and the proxy can still answer with an error status
// instead of a response that ends early (the writers behind net/http and
// http1 hold back their first kilobytes anyway, so nothing leaves later).
func (x *exchange) relay(rc *http.ResponseController, resp *http.Response, flush bool) (res relayed) {
	bp := x.h.relayPool.Get().(*[]byte)
	defer x.h.relayPool.Put(bp)
	buf := *bp
	held := 0
	var out io.Writer // x.w, or what cuts out the client's range
	if flush {
		out = x.commit(resp)
		res.committed = true
		_ = rc.Flush()
	}
	for {
		n, err := resp.Body.Read(buf[held:])
		res.n += int64(n)
		if !res.committed {
			held += n
			if err == nil && held < len(buf) {
				continue
			}
			if err != nil && err != io.EOF {
				res.upErr = err
				return res
			}
			out = x.commit(resp)
			res.committed = true
			n, held = held, 0
		}
		if n > 0 {
			if _, werr := out.Write(buf[:n]); werr != nil {
				res.clientErr = werr
				return res
			}
			if flush {
				if ferr := rc.Flush(); ferr != nil && !errors.Is(ferr, http.ErrNotSupported) {
					res.clientErr = ferr
					return res
				}
			}
		}
		if err == io.EOF {
			return res
		}
		if err != nil {
			res.upErr = err
			return res
		}
	}
}

// commit passes the upstream's status and header to the client's writer,
// and returns where the body goes: the writer, or for a range that
// ForceRanges answers what cuts it out of the body.
func (x *exchange) commit(resp *http.Response) io.Writer {
	x.h.copyHeader(x.w.Header(), resp.Header, false)
	x.h.rewriteCookies(x.r, x.w.Header())
	if f := x.h.absRedirect; f != nil && x.h.redirect {
		h := x.w.Header()
		if loc, orig := h["Location"], resp.Header["Location"]; len(loc) == 1 && len(orig) == 1 &&
			loc[0] != orig[0] && strings.HasPrefix(loc[0], "/") {
			h["Location"] = []string{f(x.r, loc[0])}
		}
	}
	// Published before the header goes out: the server's error_page
	// leaves an upstream's answer alone (NGINX's proxy_intercept_errors
	// off) by seeing $upstream_status when the status is written. finish
	// publishes the timings.
	x.publishTried()
	if x.h.forceRanges {
		return x.forceRanges(resp)
	}
	x.w.WriteHeader(resp.StatusCode)
	return x.w
}
