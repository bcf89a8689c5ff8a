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

// relay copies the upstream's body to the client; with flush set, every
// chunk read is flushed at once. It returns the failure on either side.
func relay(w http.ResponseWriter, rc *http.ResponseController, body io.Reader, flush bool, pool *sync.Pool) (upErr, clientErr error) {
	bp := pool.Get().(*[]byte)
	defer pool.Put(bp)
	buf := *bp
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return nil, werr
			}
			if flush {
				if ferr := rc.Flush(); ferr != nil && !errors.Is(ferr, http.ErrNotSupported) {
					return nil, ferr
				}
			}
		}
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return err, nil
		}
	}
}
