package vars

import (
	"net/http"
	"strconv"
	"strings"
)

// Variables of a request's end and of what surrounds its body: whether
// it completed, the file its body was saved in, the trailers sent and
// received, and the kernel's view of the client's TCP connection.
func init() {
	// $request_completion is "OK" or empty, never without a value. NGINX
	// keeps a variable's value as first read in a request: a response
	// that reads it before the request has ended (return "...
	// $request_completion") leaves it empty for the access log too.
	RegisterValue("request_completion", func(_ *http.Request, st *State) (string, bool) {
		if st == nil {
			return "", true
		}
		if v, ok := st.Get("request_completion"); ok {
			return v, true
		}
		v := ""
		if st.Complete {
			v = "OK"
		}
		st.Set("request_completion", v)
		return v, true
	})
	Register("request_body_file", func(_ *http.Request, st *State) string {
		return read(st).RequestBodyFile
	})
	RegisterPrefix("sent_trailer_", func(name string) Getter {
		return func(_ *http.Request, st *State) string {
			if st == nil {
				return ""
			}
			return sentTrailer(st.Header, name)
		}
	})
	RegisterPrefix("upstream_trailer_", func(name string) Getter {
		return func(_ *http.Request, st *State) string {
			return headerVar(read(st).UpstreamTrailer, name)
		}
	})
	for i, n := range []string{"tcpinfo_rtt", "tcpinfo_rttvar", "tcpinfo_snd_cwnd", "tcpinfo_rcv_space"} {
		Register(n, func(_ *http.Request, st *State) string {
			if st == nil || st.Conn == nil || st.Conn.sock == nil {
				return ""
			}
			v, ok := tcpInfo(st.Conn.sock)
			if !ok {
				return ""
			}
			return strconv.FormatUint(uint64(v[i]), 10)
		})
	}
}

// sentTrailer is a trailer field of the response: one that a handler
// set under http.TrailerPrefix, or one announced in the Trailer field
// and set after the body.
func sentTrailer(h http.Header, name string) string {
	if h == nil {
		return ""
	}
	if v := headerVar(trailerFields(h), name); v != "" {
		return v
	}
	for _, t := range h["Trailer"] {
		for _, k := range strings.Split(t, ",") {
			if k = strings.TrimSpace(k); k != "" && varName(k) == name {
				return headerVar(h, name)
			}
		}
	}
	return ""
}

// trailerFields returns the fields of h set under http.TrailerPrefix,
// without it; nil when there are none (the usual case, unallocated).
func trailerFields(h http.Header) http.Header {
	var t http.Header
	for k, v := range h {
		if name, ok := strings.CutPrefix(k, http.TrailerPrefix); ok {
			if t == nil {
				t = http.Header{}
			}
			t[http.CanonicalHeaderKey(name)] = v
		}
	}
	return t
}
