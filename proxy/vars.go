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
	// received and sent are the bytes read from and written to the
	// connection for this try, header and body, as the protocol carries
	// them without TLS ($upstream_bytes_received, $upstream_bytes_sent).
	received, sent int64
}

// count records the bytes c has carried for the try.
func (a *attempt) count(c *conn) {
	if c != nil {
		a.received, a.sent = c.nread, c.nsent.Load()
	}
}

// publishProxy sets the variables that header values may refer to.
// A Wire's request (FastCGI, uwsgi, ...) has no $proxy_port, as NGINX's
// has none outside the proxy module; it keeps $proxy_host, the upstream's
// name in the status module's metrics. (A FastCGI request then sets ten
// values, which the State holds without an allocation.)
func (x *exchange) publishProxy() {
	x.st.Set("proxy_host", x.h.proxyHost)
	if x.h.wire == nil {
		x.st.Set("proxy_port", x.h.proxyPort)
	}
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
	// The six values are written one after the other and copied into one
	// string that each is a piece of: one allocation for all.
	var buf [192]byte
	b := buf[:0]
	var ends [6]int
	for v := range ends {
		for i, a := range x.attempts {
			if i > 0 {
				b = append(b, ", "...)
			}
			switch v {
			case 0:
				b = appendSeconds(b, a.total)
			case 1:
				b = appendSeconds(b, a.connect)
			case 2:
				b = appendSeconds(b, a.header)
			case 3:
				b = strconv.AppendInt(b, a.length, 10)
			case 4:
				b = strconv.AppendInt(b, a.received, 10)
			default:
				b = strconv.AppendInt(b, a.sent, 10)
			}
		}
		ends[v] = len(b)
	}
	all := string(b)
	x.st.Set("upstream_response_time", all[:ends[0]])
	x.st.Set("upstream_connect_time", all[ends[0]:ends[1]])
	x.st.Set("upstream_header_time", all[ends[1]:ends[2]])
	x.st.Set("upstream_response_length", all[ends[2]:ends[3]])
	x.st.Set("upstream_bytes_received", all[ends[3]:ends[4]])
	x.st.Set("upstream_bytes_sent", all[ends[4]:ends[5]])
}

// publishTried sets $upstream_addr and $upstream_status, which no longer
// change once an upstream's answer is passed on.
func (x *exchange) publishTried() {
	if x.st == nil || len(x.attempts) == 0 {
		return
	}
	x.triedPublished = true
	if len(x.attempts) == 1 {
		// The usual case, without an allocation.
		a := x.attempts[0]
		x.st.Set("upstream_addr", a.addr)
		x.st.Set("upstream_status", statusText(a.status))
		return
	}
	var addr, status []byte
	for i, a := range x.attempts {
		if i > 0 {
			addr = append(addr, ", "...)
			status = append(status, ", "...)
		}
		addr = append(addr, a.addr...)
		status = append(status, statusText(a.status)...)
	}
	x.st.Set("upstream_addr", string(addr))
	x.st.Set("upstream_status", string(status))
}

// statusTexts are the three digits of the statuses 100 to 599.
var statusTexts = func() (t [500]string) {
	for i := range t {
		t[i] = strconv.Itoa(100 + i)
	}
	return t
}()

// statusText is an attempt's status as $upstream_status shows it: "-"
// for none.
func statusText(code int) string {
	switch {
	case code <= 0:
		return "-"
	case code >= 100 && code < 600:
		return statusTexts[code-100]
	}
	return strconv.Itoa(code)
}

// appendSeconds formats d as seconds with milliseconds ("0.012"), or "-"
// for a negative d (a stage never reached).
func appendSeconds(b []byte, d time.Duration) []byte {
	if d < 0 {
		return append(b, '-')
	}
	ms := d.Milliseconds()
	// The milliseconds are always three digits, written by hand: three
	// such values are formatted for every request.
	if s := ms / 1000; s < 10 {
		b = append(b, byte('0'+s))
	} else {
		b = strconv.AppendInt(b, s, 10)
	}
	frac := ms % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
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
	if strings.HasPrefix(r.RemoteAddr, "unix:") {
		return r.RemoteAddr // a Unix-domain socket's peer, "unix:" as NGINX's
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
