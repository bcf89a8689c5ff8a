package gateway

import (
	"net"
	"net/http"
	"strconv"

	"github.com/mosaic-edge/mosaic/vars"
)

// cgiValues compute the CGI variables of Debian's *_params files from a
// request alone, for a gateway used as plain net/http middleware, where
// no configuration's $variables exist.
var cgiValues = map[string]vars.Getter{
	"QUERY_STRING":   func(r *http.Request, _ *vars.State) string { return r.URL.RawQuery },
	"REQUEST_METHOD": func(r *http.Request, _ *vars.State) string { return r.Method },
	"CONTENT_TYPE":   func(r *http.Request, _ *vars.State) string { return r.Header.Get("Content-Type") },
	"CONTENT_LENGTH": func(r *http.Request, _ *vars.State) string {
		if r.ContentLength <= 0 {
			return ""
		}
		return strconv.FormatInt(r.ContentLength, 10)
	},
	"REQUEST_URI": func(r *http.Request, st *vars.State) string {
		// $request_uri, as fastcgi_params has it: the client's target,
		// which the State keeps (r.RequestURI is the URI a proxy sends:
		// "set $args" puts the new arguments there, a rewrite empties it).
		if u := requestURI(r, st); u != "" {
			return u
		}
		return r.URL.RequestURI() // a request built in-process
	},
	"PATH_INFO":       func(r *http.Request, _ *vars.State) string { return r.URL.Path },
	"DOCUMENT_URI":    func(r *http.Request, _ *vars.State) string { return r.URL.Path },
	"SERVER_PROTOCOL": func(r *http.Request, _ *vars.State) string { return r.Proto },
	"REQUEST_SCHEME": func(r *http.Request, _ *vars.State) string {
		if r.TLS != nil {
			return "https"
		}
		return "http"
	},
	"HTTPS": func(r *http.Request, _ *vars.State) string {
		if r.TLS != nil {
			return "on"
		}
		return ""
	},
	"REMOTE_ADDR": func(r *http.Request, _ *vars.State) string { h, _ := splitHostPort(r.RemoteAddr); return h },
	"REMOTE_PORT": func(r *http.Request, _ *vars.State) string { _, p := splitHostPort(r.RemoteAddr); return p },
	"SERVER_PORT": func(r *http.Request, _ *vars.State) string {
		if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			_, p := splitHostPort(a.String())
			return p
		}
		return ""
	},
	"SERVER_NAME": func(r *http.Request, _ *vars.State) string {
		if h, _ := splitHostPort(r.Host); h != "" {
			return h
		}
		return r.Host
	},
}

// requestURI is $request_uri's getter.
var requestURI, _ = vars.Lookup("request_uri")

// CGIParams returns the parameters called names, each computed from the
// request alone as its $variable in Debian's *_params would be; HTTPS is
// left out when empty, as "if_not_empty" leaves it. It panics on a name
// it does not know: the names are a program's constants.
func CGIParams(names ...string) []Param {
	list := make([]Param, len(names))
	for i, name := range names {
		v, ok := cgiValues[name]
		if !ok {
			panic("gateway: no request value for CGI variable " + name)
		}
		list[i] = Param{Name: name, Value: v, IfNotEmpty: name == "HTTPS"}
	}
	return list
}

func splitHostPort(addr string) (host, port string) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", ""
	}
	return host, port
}
