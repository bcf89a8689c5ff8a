package vars

import (
	"net"
	"net/http"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
)

// The variables of NGINX's core and log modules that derive from the
// request, the connection and the response record.
func init() {
	pid := strconv.Itoa(os.Getpid())
	host, _ := os.Hostname()

	Register("remote_addr", func(r *http.Request, _ *State) string { return splitHost(r.RemoteAddr) })
	Register("remote_port", func(r *http.Request, _ *State) string { return splitPort(r.RemoteAddr) })
	Register("remote_user", func(r *http.Request, _ *State) string {
		u, _, _ := r.BasicAuth()
		return u
	})
	Register("server_addr", func(r *http.Request, _ *State) string { return splitHost(localAddr(r)) })
	Register("server_port", func(r *http.Request, _ *State) string { return splitPort(localAddr(r)) })
	Register("server_protocol", func(r *http.Request, _ *State) string { return r.Proto })
	Register("server_name", func(_ *http.Request, st *State) string {
		if st == nil {
			return ""
		}
		return st.ServerName
	})
	Register("hostname", func(*http.Request, *State) string { return host })
	Register("pid", func(*http.Request, *State) string { return pid })
	Register("connection", func(_ *http.Request, st *State) string {
		if st == nil {
			return ""
		}
		return strconv.FormatUint(st.ConnID, 10)
	})

	Register("request", func(r *http.Request, st *State) string {
		return r.Method + " " + requestURI(r, st) + " " + r.Proto
	})
	Register("request_method", func(r *http.Request, _ *State) string { return r.Method })
	Register("request_uri", requestURI)
	uri := func(r *http.Request, _ *State) string { return r.URL.Path }
	Register("uri", uri)
	Register("document_uri", uri)
	args := func(r *http.Request, _ *State) string { return r.URL.RawQuery }
	Register("args", args)
	Register("query_string", args)
	Register("is_args", func(r *http.Request, _ *State) string {
		if r.URL.RawQuery != "" {
			return "?"
		}
		return ""
	})
	Register("host", hostVar)
	Register("scheme", func(r *http.Request, _ *State) string {
		if r.TLS != nil {
			return "https"
		}
		return "http"
	})
	Register("https", func(r *http.Request, _ *State) string {
		if r.TLS != nil {
			return "on"
		}
		return ""
	})
	Register("content_type", func(r *http.Request, _ *State) string { return r.Header.Get("Content-Type") })
	Register("content_length", func(r *http.Request, _ *State) string { return r.Header.Get("Content-Length") })

	Register("status", func(_ *http.Request, st *State) string {
		if st == nil || st.Status == 0 {
			return "000"
		}
		return strconv.Itoa(st.Status)
	})
	Register("body_bytes_sent", func(_ *http.Request, st *State) string {
		if st == nil {
			return "0"
		}
		return strconv.FormatInt(st.BodyBytes, 10)
	})
	Register("bytes_sent", func(_ *http.Request, st *State) string {
		if st == nil {
			return "0"
		}
		return strconv.FormatInt(st.HeaderBytes+st.BodyBytes, 10)
	})
	Register("request_time", func(_ *http.Request, st *State) string {
		if st == nil || st.Start.IsZero() {
			return "0.000"
		}
		return strconv.FormatFloat(time.Since(st.Start).Seconds(), 'f', 3, 64)
	})
	Register("msec", func(*http.Request, *State) string {
		now := time.Now()
		return strconv.FormatInt(now.Unix(), 10) + "." + pad3(now.Nanosecond()/1e6)
	})
	Register("time_local", func(*http.Request, *State) string {
		return time.Now().Format("02/Jan/2006:15:04:05 -0700")
	})
	Register("time_iso8601", func(*http.Request, *State) string {
		return time.Now().Format("2006-01-02T15:04:05-07:00")
	})

	RegisterPrefix("http_", func(name string) Getter {
		key := headerKey(name)
		return func(r *http.Request, _ *State) string { return header.Join(r.Header, key) }
	})
	RegisterPrefix("sent_http_", func(name string) Getter {
		key := headerKey(name)
		return func(_ *http.Request, st *State) string {
			if st == nil || st.Header == nil {
				return ""
			}
			return strings.Join(st.Header[key], ", ")
		}
	})
	RegisterPrefix("arg_", func(name string) Getter {
		return func(r *http.Request, _ *State) string { return queryArg(r.URL.RawQuery, name) }
	})
	RegisterPrefix("cookie_", func(name string) Getter {
		return func(r *http.Request, _ *State) string {
			c, err := r.Cookie(name)
			if err != nil {
				return ""
			}
			return c.Value
		}
	})
}

// requestURI is $request_uri: the client's, unchanged by redirects.
func requestURI(r *http.Request, st *State) string {
	if st != nil && st.RequestURI != "" {
		return st.RequestURI
	}
	return r.RequestURI
}

// headerKey maps a variable suffix such as "user_agent" to the canonical
// header name "User-Agent".
func headerKey(name string) string {
	return textproto.CanonicalMIMEHeaderKey(strings.ReplaceAll(name, "_", "-"))
}

// queryArg returns the raw value of the first argument called name, as
// NGINX's $arg_NAME does (no percent-decoding, case-insensitive name).
func queryArg(q, name string) string {
	for q != "" {
		var kv string
		kv, q, _ = strings.Cut(q, "&")
		k, v, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// hostVar follows NGINX's $host: the host from the request line or Host
// header, lowercased and without the port, else the server name.
func hostVar(r *http.Request, st *State) string {
	if st != nil && st.Host != "" {
		return st.Host
	}
	if h, ok := reqrule.Host(r.Host); ok && h != "" {
		return h
	}
	if st != nil {
		return st.ServerName
	}
	return ""
}

func localAddr(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return a.String()
	}
	return ""
}

func splitHost(addr string) string {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return h
}

func splitPort(addr string) string {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	return p
}

func pad3(n int) string {
	s := strconv.Itoa(n)
	return strings.Repeat("0", 3-len(s)) + s
}
