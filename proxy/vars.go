package proxy

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// attempt is one try of one server, for the $upstream_* variables.
type attempt struct {
	addr    string
	status  int // 0: no response
	start   time.Time
	connect time.Duration // -1: never connected
	header  time.Duration // -1: no response header
	total   time.Duration
	length  int64 // body bytes received ($upstream_response_length)
}

// publishProxy sets the variables that header values may refer to.
func (x *exchange) publishProxy() {
	x.st.Set("proxy_host", x.h.proxyHost)
	x.st.Set("proxy_port", x.h.proxyPort)
	x.st.Set("proxy_add_x_forwarded_for", ForwardedFor(x.r))
}

// publishUpstream sets $upstream_addr, $upstream_status and the timings,
// one entry per server tried, joined with ", " as NGINX does. The servers
// and their statuses may have gone out already (publishTried); the
// timings are final only now.
func (x *exchange) publishUpstream() {
	if x.st == nil || len(x.attempts) == 0 {
		return
	}
	if !x.triedPublished {
		x.publishTried()
	}
	var rt, ct, ht, rl []byte
	for i, a := range x.attempts {
		if i > 0 {
			rt = append(rt, ", "...)
			ct = append(ct, ", "...)
			ht = append(ht, ", "...)
			rl = append(rl, ", "...)
		}
		rt = appendSeconds(rt, a.total)
		ct = appendSeconds(ct, a.connect)
		ht = appendSeconds(ht, a.header)
		rl = strconv.AppendInt(rl, a.length, 10)
	}
	x.st.Set("upstream_response_time", string(rt))
	x.st.Set("upstream_connect_time", string(ct))
	x.st.Set("upstream_header_time", string(ht))
	x.st.Set("upstream_response_length", string(rl))
}

// publishTried sets $upstream_addr and $upstream_status, which no longer
// change once an upstream's answer is passed on.
func (x *exchange) publishTried() {
	if x.st == nil || len(x.attempts) == 0 {
		return
	}
	x.triedPublished = true
	var addr, status []byte
	for i, a := range x.attempts {
		if i > 0 {
			addr = append(addr, ", "...)
			status = append(status, ", "...)
		}
		addr = append(addr, a.addr...)
		if a.status > 0 {
			status = strconv.AppendInt(status, int64(a.status), 10)
		} else {
			status = append(status, '-')
		}
	}
	x.st.Set("upstream_addr", string(addr))
	x.st.Set("upstream_status", string(status))
}

// appendSeconds formats d as seconds with milliseconds ("0.012"), or "-"
// for a negative d (a stage never reached).
func appendSeconds(b []byte, d time.Duration) []byte {
	if d < 0 {
		return append(b, '-')
	}
	ms := d.Milliseconds()
	b = strconv.AppendInt(b, ms/1000, 10)
	b = append(b, '.')
	frac := ms % 1000
	if frac < 100 {
		b = append(b, '0')
	}
	if frac < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, frac, 10)
}

// ForwardedFor is $proxy_add_x_forwarded_for: the client's X-Forwarded-For
// with the client's address appended, or the address alone.
func ForwardedFor(r *http.Request) string {
	ip := clientIP(r)
	xff := r.Header["X-Forwarded-For"]
	if len(xff) == 0 {
		return ip
	}
	return strings.Join(xff, ", ") + ", " + ip
}

// clientIP is $remote_addr: the host part of the request's RemoteAddr.
func clientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
