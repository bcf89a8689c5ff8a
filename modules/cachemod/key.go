package cachemod

import (
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/vars"
)

// defaultKeyTemplate is what a purge's url= is keyed by without
// proxy_cache_key: the URL itself, as the cache sent it upstream, which
// is the key a location that caches makes (see keyStart).
const defaultKeyTemplate = "$scheme://$proxy_host$request_uri"

// keyStart is what NGINX's default key starts with (its proxy's
// key_start, ngx_http_proxy_set_vars): proxy_pass's scheme, "://" and
// host with the port unless it is the scheme's, or "unix:PATH:" for a
// socket; the URI the proxy sends follows. It is neither the documented
// $scheme$proxy_host (the client's scheme, no "://") nor the client's
// scheme at all: a location reached over http and https shares entries.
func keyStart(p proxy.Pass) string {
	if p.Unix != "" {
		return p.Scheme + "://unix:" + p.Unix + ":"
	}
	return p.Scheme + "://" + p.ProxyHost()
}

// keyTemplate is a compiled proxy_cache_key. $proxy_host is the proxy's
// variable, published only when the proxy runs, which is after the cache
// has looked the key up; the server knows its value from the location's
// proxy_pass, so the template is cut at each $proxy_host and the value is
// put between the pieces.
type keyTemplate struct {
	raw    string
	pieces []*vars.Template // len(pieces)-1 $proxy_host between them
}

// compileKey compiles a proxy_cache_key value with the shared registry's
// variables.
func compileKey(s string) (*keyTemplate, error) { return compileKeyWith(s, vars.Compile) }

// compileKeyWith compiles a proxy_cache_key value with compile, which a
// directive gives as the configuration's (its map variables included).
func compileKeyWith(s string, compile func(string) (*vars.Template, error)) (*keyTemplate, error) {
	k := &keyTemplate{raw: s}
	rest := s
	for {
		i, n := proxyHostRef(rest)
		if i < 0 {
			break
		}
		t, err := compile(rest[:i])
		if err != nil {
			return nil, err
		}
		k.pieces = append(k.pieces, t)
		rest = rest[i+n:]
	}
	t, err := compile(rest)
	if err != nil {
		return nil, err
	}
	k.pieces = append(k.pieces, t)
	return k, nil
}

// proxyHostRef finds the first "$proxy_host" or "${proxy_host}" in s and
// returns its index and length, or -1.
func proxyHostRef(s string) (int, int) {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '$')
		if i < 0 {
			return -1, 0
		}
		i += off
		rest := s[i+1:]
		switch {
		case strings.HasPrefix(rest, "{proxy_host}"):
			return i, len("${proxy_host}")
		case strings.HasPrefix(rest, "proxy_host") &&
			(len(rest) == len("proxy_host") || !isVarByte(rest[len("proxy_host")])):
			return i, len("$proxy_host")
		}
		off = i + 1
	}
}

func isVarByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// eval computes the key of r with proxyHost standing for $proxy_host and
// the other variables read from r and st (which may be nil).
func (k *keyTemplate) eval(r *http.Request, st *vars.State, proxyHost string) string {
	if len(k.pieces) == 1 {
		return k.pieces[0].EvalState(r, st)
	}
	var b strings.Builder
	for i, t := range k.pieces {
		if i > 0 {
			b.WriteString(proxyHost)
		}
		b.WriteString(t.EvalState(r, st))
	}
	return b.String()
}
