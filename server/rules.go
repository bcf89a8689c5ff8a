package server

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/http1"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/vars"
	"golang.org/x/net/http2/hpack"
)

// admit applies the request rules of package reqrule to a client request,
// whatever listener it came from, before a location is chosen. It returns
// the server that answers, the host name for $host, and 0 or the status
// that refuses the request. The order is NGINX's: the request line
// (method, target), then the header (Host, header names), and only then
// the methods it will not serve (405), so a request refused on two counts
// gets the status NGINX gives it.
//
// A request refused before Host chose a server is answered in the server
// that TLS's server name chose, else in the default server, where NGINX
// stands until it reads a valid Host.
func admit(r *http.Request, g *addrGroup, st *vars.State) (*VServer, string, int) {
	method := reqrule.Method(r.Method)
	if method == http.StatusBadRequest || !reqrule.Target(r) {
		if r.ProtoMajor == 1 {
			// NGINX refuses such a line before it reads a field: its
			// $http_ variables see none, and no Host chose the server.
			r.Host, r.Header = "", http.Header{}
		}
		return g.initial(r.TLS), "", http.StatusBadRequest
	}
	host, ok := reqrule.Host(r.Host)
	if r.ProtoMajor == 2 {
		if status := admitH2(r, g); status != 0 {
			// The pseudo-header fields come first: NGINX has read
			// :authority, and chosen its server, before any field.
			if !ok || host == "" {
				return g.initial(r.TLS), "", status
			}
			srv, err := g.lookup(host, st)
			if err != nil {
				srv.level.Logger().Error(err.Error())
			}
			return srv, host, status
		}
	}
	// HTTP/1.1 requires a Host; one that is there but empty names no
	// server, and NGINX refuses it.
	if !ok || host == "" && r.ProtoMajor == 1 && r.ProtoMinor > 0 {
		return g.initial(r.TLS), "", http.StatusBadRequest
	}
	srv, err := g.lookup(host, st)
	if err != nil {
		srv.level.Logger().Error(err.Error())
		return srv, host, http.StatusInternalServerError
	}
	cl := LocConf[*coreLoc](srv.level, coreModule)
	names := cl.headerNames()
	// HTTP/1.x's parse tells a header with nothing to drop: no walk.
	if !plainNames(r) {
		if dropped := names.Filter(r.Header); dropped != nil {
			srv.level.Logger().LogAttrs(r.Context(), slog.LevelInfo, "client sent invalid header names, ignored",
				slog.Any("names", dropped))
		}
	}
	if r.ProtoMajor == 2 && h2Fields(r.Header) > cl.maxHeaders.V {
		// http1 counts as it reads; over HTTP/2 NGINX counts, once the names
		// it ignores are gone, against the server :authority chose, which
		// comes before every field.
		return srv, host, http1.StatusHeaderTooLarge
	}
	return srv, host, method
}

// admitH2 applies to an HTTP/2 request what reading a request enforces on
// HTTP/1.1, where Go's HTTP/2 server does not. NGINX makes :authority the
// Host field, so a Host field beside it that names another host (which
// $http_host and "proxy_set_header Host $http_host" would pass on,
// unchecked, while :authority chose the server), two Host fields, or
// neither, are bad requests, as is a second line of a field that may come
// once (header.Unique). :path takes the origin form only. Each name
// and value, :path included, is bounded by large_client_header_buffers'
// size as the client coded it (h2Longer), :authority and :method too,
// as NGINX bounds them (414 for
// :path, NGINX's 494 for a field, as http1 answers a line too long;
// NGINX ends the connection with ENHANCE_YOUR_CALM);
// cookie crumbs, which the client may send as fields of their own and
// Go joins, count one by one. The buffers are those of the server SNI
// chose (else the default server's), which NGINX reads for the whole
// connection.
func admitH2(r *http.Request, g *addrGroup) int {
	cl := LocConf[*coreLoc](g.initial(r.TLS).level, coreModule)
	maxLine := lineLimit(cl)
	if h2Longer(r.RequestURI, maxLine) {
		return http.StatusRequestURITooLong
	}
	if h2Longer(r.Host, maxLine) || h2Longer(r.Method, maxLine) {
		// :authority and :method are strings of the header block as the
		// fields are, bounded alike.
		return http1.StatusHeaderTooLarge
	}
	// NGINX's sum of the names and values, the pseudo-header fields'
	// among them (":method" and the rest), against
	// large_client_header_buffers' number × size.
	total := len(":method:path:scheme:authority") + len(r.Method) + len(r.RequestURI) + len("http") + len(r.Host)
	if r.TLS != nil {
		total++ // "https"
	}
	for k, vv := range r.Header {
		if len(vv) > 1 && header.Unique(k) {
			return http.StatusBadRequest
		}
		if len(k) > maxLine && h2Longer(strings.ToLower(k), maxLine) {
			return http1.StatusHeaderTooLarge
		}
		for _, v := range vv {
			if k == "Cookie" {
				for crumb := range strings.SplitSeq(v, "; ") {
					if h2Longer(crumb, maxLine) {
						return http1.StatusHeaderTooLarge
					}
					total += len(k) + len(crumb)
				}
			} else if h2Longer(v, maxLine) {
				return http1.StatusHeaderTooLarge
			} else {
				total += len(k) + len(v)
			}
		}
	}
	if total > cl.headerBufs.V.Number*cl.headerBufs.V.Size {
		// NGINX ends the connection (ENHANCE_YOUR_CALM); a handler can
		// only answer the stream.
		return http1.StatusHeaderTooLarge
	}
	hv := r.Header["Host"]
	if r.Host == "" || len(hv) > 1 || len(hv) == 1 && !sameAuthority(hv[0], r.Host) || r.RequestURI[0] != '/' {
		return http.StatusBadRequest
	}
	if cl := r.Header["Content-Length"]; r.ContentLength == 0 && len(cl) == 1 {
		// Go's server takes no length for a stream that ended with its
		// header (END_STREAM), whatever the field says: NGINX refuses
		// such a stream, whose body is lost ("client prematurely closed
		// stream"), as it refuses a length that is no number.
		if n, err := strconv.ParseInt(cl[0], 10, 64); err != nil || n != 0 {
			return http.StatusBadRequest
		}
	}
	return 0
}

// h2Longer reports whether s, a name or a value of an HTTP/2 field, is
// longer than limit as the client sent it: NGINX bounds each string by
// its HPACK-coded length (ngx_http_v2_state_field_len), before decoding
// it, so a 9,000-byte :path of letters, 5.6 KB once Huffman-coded, fits
// an 8 KB buffer. Go's server hands over the decoded string alone; the
// length taken is the one that clients' encoders (Go's, nghttp2's, the
// browsers') send, the Huffman code where it is the shorter, so a
// string that fits as it is needs no coding. A name is coded in lower
// case, as HTTP/2 sends it (Go's server hands it over canonicalised).
func h2Longer(s string, limit int) bool {
	return len(s) > limit && hpack.HuffmanEncodeLength(s) > uint64(limit)
}

// h2Fields counts an HTTP/2 request's fields as NGINX's max_headers
// does: every field but the pseudo-header ones and the cookie crumbs,
// which it joins aside.
func h2Fields(h http.Header) int {
	n := 0
	for k, vv := range h {
		if k != "Cookie" {
			n += len(vv)
		}
	}
	return n
}

// sameAuthority reports whether a Host field and :authority name the same
// origin (RFC 9113 section 8.3.1): names compare without case, and
// HTTPS's port 443 is the port an authority without one means.
func sameAuthority(a, b string) bool {
	return strings.EqualFold(strings.TrimSuffix(a, ":443"), strings.TrimSuffix(b, ":443"))
}

// plainNames reports whether every field name of r, a client request
// that admit has not yet changed, is one that reqrule.HeaderNames passes
// whatever its settings, as HTTP/1.x's parse tells (http1.PlainFieldNames);
// false when no parse told (HTTP/2).
func plainNames(r *http.Request) bool {
	root, ok := r.Context().(*reqRoot)
	return ok && http1.PlainFieldNames(root.Context)
}
