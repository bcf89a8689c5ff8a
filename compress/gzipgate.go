package compress

import (
	"net/http"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/httpdate"
	"github.com/mosaic-edge/mosaic/internal/useragent"
)

// gzipAllowed applies the checks NGINX makes before gzip on top of
// Accept-Encoding (ngx_http_gzip_ok): gzip_disable msie6, gzip_http_version,
// gzip_proxied for requests that came through a proxy, and the gzip_disable
// patterns. As in NGINX with ngx_brotli, they govern gzip (and gunzip) only.
// h is the header of w's response; w may be nil (see proxiedAllowed).
// fileDated says that h's Last-Modified is a served file's date
// (header.FileDated), which gzip_proxied no_last_modified does not count.
func (c *config) gzipAllowed(w http.ResponseWriter, r *http.Request, h http.Header, fileDated bool) bool {
	return gzipGateAllows(&c.gzipGate, w, r, h, fileDated)
}

// gzipGateAllows is gzipAllowed for g. gzip_static on makes the same checks
// before serving a .gz file, with h empty: no response header exists yet.
func gzipGateAllows(g *GzipOptions, w http.ResponseWriter, r *http.Request, h http.Header, fileDated bool) bool {
	ua := r.Header.Get("User-Agent")
	if g.Disable.MSIE6 && useragent.MSIE6(ua) {
		return false
	}
	if v := g.HTTPVersion; r.ProtoMajor < v.Major || (r.ProtoMajor == v.Major && r.ProtoMinor < v.Minor) {
		return false
	}
	if len(r.Header["Via"]) > 0 && !proxiedAllowed(g.Proxied, w, r, h, fileDated) {
		return false
	}
	if ua != "" {
		for _, re := range g.Disable.Patterns {
			if ok, err := re.MatchString(ua); ok || err != nil {
				return false
			}
		}
	}
	return true
}

// proxiedAllowed is gzip_proxied, in NGINX's order of checks. Note the
// fall-through at the end, which is NGINX's too: a response with neither
// Expires nor Cache-Control is compressed unless no_last_modified or
// no_etag rules it out. A response without Date is "expired" by the time
// its Date goes out with (header.ResponseTime of w), as NGINX compares
// with its cached time: a later reading made "expires 0" expired when a
// second ended between the two. w may be nil (the time is then now).
// no_last_modified counts a Last-Modified line, not a file's date
// (fileDated): NGINX's static module keeps the date apart from the header
// list until the response's header is written, after the gzip filter, so
// a static file is compressed where an upstream's answer with the same
// line is not.
func proxiedAllowed(p Proxied, w http.ResponseWriter, r *http.Request, h http.Header, fileDated bool) bool {
	switch {
	case p == 0:
		return false
	case p&ProxiedAny != 0:
		return true
	case p&ProxiedAuth != 0 && len(r.Header["Authorization"]) > 0:
		return true
	}
	if e := h["Expires"]; len(e) > 0 {
		if p&ProxiedExpired == 0 {
			return false
		}
		expires, ok := httpdate.Parse(e[0])
		if !ok {
			return false
		}
		var date time.Time
		if d := h["Date"]; len(d) > 0 {
			if date, ok = httpdate.Parse(d[0]); !ok {
				return false
			}
		} else {
			date = header.ResponseTime(w).Truncate(time.Second)
		}
		return expires.Before(date)
	}
	if cc := h["Cache-Control"]; len(cc) > 0 {
		return (p&ProxiedNoCache != 0 && bareDirective(cc, "no-cache")) ||
			(p&ProxiedNoStore != 0 && bareDirective(cc, "no-store")) ||
			(p&ProxiedPrivate != 0 && bareDirective(cc, "private"))
	}
	if p&ProxiedNoLastModified != 0 && len(h["Last-Modified"]) > 0 && !fileDated {
		return false
	}
	if p&ProxiedNoETag != 0 && len(h["Etag"]) > 0 {
		return false
	}
	return true
}

// bareDirective reports whether a Cache-Control list holds name on its own,
// without an argument or parameter, as NGINX's list parser matches it
// (ngx_http_parse_multi_header_lines). `no-cache="Set-Cookie"` or
// `private="X"` restrict the directive to those fields and leave the body
// storable by a shared cache, which could then hand the compressed body to
// a client that cannot decode it; gzip_proxied must not count them.
func bareDirective(values []string, name string) bool {
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(header.TrimOWS(item), name) {
				return true
			}
		}
	}
	return false
}

// refusesGzip reports whether the client of r does not take gzip, by
// Accept-Encoding or by the gzip_* checks: with gunzip on, a gzip body of
// header h, w's response, goes to it decoded.
func (c *config) refusesGzip(w http.ResponseWriter, r *http.Request, h http.Header) bool {
	takesGzip := c.gzipTable.Negotiate(acceptEncoding(r.Header)).Contains(Gzip)
	return !takesGzip || !c.gzipAllowed(w, r, h, false)
}

// GunzipTest returns NGINX's test of whether its gunzip filter decodes the
// body of w's response, with header h, to request r, with the gzip directives
// of opts: gunzip is on, the body is gzip (that coding alone), and the
// client does not take gzip (Accept-Encoding, gzip_http_version,
// gzip_proxied, gzip_disable). nil when gunzip is off. Package gunzip
// decodes by it; a handler that cuts byte ranges out of whole responses
// (a proxy's forced ranges) sends such a response whole, as NGINX's range
// filter, which runs after gunzip, finds no length to cut.
//
// w gives gzip_proxied's "expired" the response's time, which its Date
// goes out with (header.ResponseTime), rather than a reading of its own;
// it may be nil (the time is then now).
func GunzipTest(opts Options) (func(w http.ResponseWriter, r *http.Request, h http.Header) bool, error) {
	if !opts.Gunzip {
		return nil, nil
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return func(w http.ResponseWriter, r *http.Request, h http.Header) bool {
		return header.GzipBody(h) && cfg.refusesGzip(w, r, h)
	}, nil
}
