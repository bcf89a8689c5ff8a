package proxy

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

// attempt is one try of one server, for the $upstream_* variables. Its
// start is the exchange's tryStart, as only the last try is being timed:
// without it the record, which holds the first try and is allocated for
// every request, keeps to the 128-byte size class (TestRecordSize).
type attempt struct {
	addr    string
	status  int           // 0: no response
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

// record is what a request's $upstream_* values and $proxy_host are
// computed from when they are read (a vars.Source): NGINX's getters
// compute them from the upstream's state of the request (u->state), and
// setting each as it became known cost every request ten State.Set calls
// and the timings' formatting, read or not. It is made for each request
// that has a State and outlives the exchange, which is recycled: the
// access log reads it after the response, from another goroutine too.
//
// What a reader may see grows by stages, each stored once its facts are
// written: the tries' servers and statuses (published), their timings and
// lengths as they stand when the response header goes out (header), then
// as they end (done). Nothing it shows changes after its stage: the tries
// are not appended to once published, and at the header stage the try
// being relayed shows what is final of it, its connect and header times,
// and headRecv, not its fields still being written.
type record struct {
	h *Handler      // $proxy_host
	r *http.Request // $proxy_add_x_forwarded_for
	// prev is the request's record from a location before an internal
	// redirect (error_page, X-Accel-Redirect): NGINX keeps one list of
	// states per request, and the values show the earlier location's
	// tries first, then " : " and this one's.
	prev  *record
	stage atomic.Int32
	// headRecv is the bytes read from the relayed try's connection when
	// its header was read ($upstream_bytes_received at the header
	// stage): at most a header's read buffer, so 32 bits, which keep the
	// record in its size class (TestRecordSize).
	headRecv uint32
	attempts []attempt // the tries, readable from stagePublished on
	first    [1]attempt
}

// The stages of a record.
const (
	stageProxy     = iota // $proxy_host and $proxy_add_x_forwarded_for
	stagePublished        // $upstream_addr and $upstream_status too
	stageHeader           // the timings and lengths as the header goes out
	stageDone             // the timings and lengths as they ended
)

// upstreamVar is one of the per-try values of the record.
type upstreamVar uint8

const (
	upAddr upstreamVar = iota
	upStatus
	upResponseTime // the first of those final only at stageDone
	upConnectTime
	upHeaderTime
	upResponseLength
	upBytesReceived
	upBytesSent
)

// Value computes a variable of the request's upstream (vars.Source).
func (rc *record) Value(name string) (string, bool) {
	var v upstreamVar
	switch name {
	case "proxy_host":
		if rc.h == nil || rc.h.wire != nil {
			return "", false // the proxy module's: none in a gateway's location
		}
		return rc.h.proxyHost, true
	case "proxy_add_x_forwarded_for":
		if rc.r == nil {
			return "", false // PublishLookup's: the registered getter computes it
		}
		return ForwardedFor(rc.r), true
	case "upstream_addr":
		v = upAddr
	case "upstream_status":
		v = upStatus
	case "upstream_response_time":
		v = upResponseTime
	case "upstream_connect_time":
		v = upConnectTime
	case "upstream_header_time":
		v = upHeaderTime
	case "upstream_response_length":
		v = upResponseLength
	case "upstream_bytes_received":
		v = upBytesReceived
	case "upstream_bytes_sent":
		v = upBytesSent
	default:
		return "", false
	}
	if rc.prev == nil && v <= upStatus {
		// One server tried, the usual case: a value without an
		// allocation.
		if tries := rc.tries(v); len(tries) == 1 {
			if v == upAddr {
				return tries[0].addr, true
			}
			return statusText(tries[0].status), true
		}
	}
	var buf [64]byte
	b, ok := rc.appendValue(buf[:0], v)
	return string(b), ok
}

// LeaveLocation is the record an internal redirect keeps
// (vars.LocatedSource): the tries so far, behind one of no handler, so
// that a location without proxy_pass has no $proxy_host, as NGINX
// clears the proxy module's context there, while the $upstream_* values
// still list the tries, and a proxied location after it joins its own
// to them (earlier skips the record without tries).
func (rc *record) LeaveLocation() vars.Source { return &record{prev: rc} }

// tries returns the tries whose value v may be read now.
func (rc *record) tries(v upstreamVar) []attempt {
	need := int32(stagePublished)
	if v >= upResponseTime {
		need = stageHeader
	}
	if rc.stage.Load() < need {
		return nil
	}
	return rc.attempts
}

// appendValue appends v of every try, the earlier locations' first, as
// NGINX lists them: ", " between the servers of one location, " : "
// between locations. It reports false where no try has the value yet.
func (rc *record) appendValue(b []byte, v upstreamVar) ([]byte, bool) {
	ok := false
	if rc.prev != nil {
		b, ok = rc.prev.appendValue(b, v)
	}
	tries := rc.tries(v)
	if len(tries) == 0 {
		return b, ok
	}
	if ok {
		b = append(b, " : "...)
	}
	// Before the exchange ends, the relayed try (the last) shows its
	// timings and lengths as they stand.
	relaying := v >= upResponseTime && rc.stage.Load() < stageDone
	for i := range tries {
		if i > 0 {
			b = append(b, ", "...)
		}
		if relaying && i == len(tries)-1 {
			b = rc.relayed(b, &tries[i], v)
		} else {
			b = tries[i].append(b, v)
		}
	}
	return b, true
}

// relayed appends v of the try whose response is being relayed, as NGINX
// shows it while the header goes out (add_header): its connect and
// header times, the bytes read with its header, and for the values NGINX
// sets when the try ends no response time ("-") and no body or request
// bytes counted yet (0).
func (rc *record) relayed(b []byte, a *attempt, v upstreamVar) []byte {
	switch v {
	case upConnectTime, upHeaderTime:
		return a.append(b, v)
	case upResponseTime:
		return append(b, '-')
	case upBytesReceived:
		return strconv.AppendUint(b, uint64(rc.headRecv), 10)
	}
	return append(b, '0')
}

// append appends the try's value v.
func (a *attempt) append(b []byte, v upstreamVar) []byte {
	switch v {
	case upAddr:
		return append(b, a.addr...)
	case upStatus:
		return append(b, statusText(a.status)...)
	case upResponseTime:
		return appendSeconds(b, a.total)
	case upConnectTime:
		return appendSeconds(b, a.connect)
	case upHeaderTime:
		return appendSeconds(b, a.header)
	case upResponseLength:
		return strconv.AppendInt(b, a.length, 10)
	case upBytesReceived:
		return strconv.AppendInt(b, a.received, 10)
	}
	return strconv.AppendInt(b, a.sent, 10)
}

// UpstreamName is the name of the upstream (the group, or the address)
// that st's request was sent to by a Handler: $proxy_host for the proxy,
// which a gateway's location (FastCGI, uwsgi, ...) does not have in
// NGINX, and the status module's label for both. It is "" for a request
// no Handler served.
func UpstreamName(st *vars.State) string {
	rc, _ := st.Source().(*record)
	for rc != nil && rc.h == nil {
		rc = rc.prev // left for a location without one: the tries' upstream
	}
	if rc != nil {
		return rc.h.proxyHost
	}
	return ""
}

// publishProxy gives the request's State the record its variables are
// computed from, the one of an earlier location of the request behind
// it, and sets $proxy_port. A Wire's request (FastCGI, uwsgi, ...) has no
// $proxy_port nor $proxy_host, as NGINX's has none outside the proxy
// module; the status module reads the upstream's name with UpstreamName.
func (x *exchange) publishProxy() {
	if x.h.wire == nil {
		x.st.Set("proxy_port", x.h.proxyPort)
	}
	rc := &record{h: x.h, r: x.r, prev: earlier(x.st)}
	x.rec, x.attempts = rc, rc.first[:0]
	x.st.SetSource(rc)
}

// PublishLookup sets $proxy_host and $proxy_port for a request a cache
// in front of the handler may answer itself: NGINX evaluates the proxy's
// URL before its cache lookup, so a HIT has them, while the $upstream_*
// values of the exchange that did not happen stay empty. The handler's
// own record, which has no tries, serves every such request: a HIT
// allocates nothing for it. A request that comes with the tries of an
// earlier location (an internal redirect) gets its own, to keep them.
func (h *Handler) PublishLookup(r *http.Request) {
	st := vars.FromContext(r.Context())
	if st == nil {
		return
	}
	if h.wire == nil {
		st.Set("proxy_port", h.proxyPort)
	}
	if prev := earlier(st); prev != nil {
		st.SetSource(&record{h: h, prev: prev})
		return
	}
	st.SetSource(&h.lookup)
}

// earlier is the record of st's earlier locations with tries to show,
// or nil: a record without any (PublishLookup's) adds nothing, and a
// record with no earlier one reads its values without an allocation.
func earlier(st *vars.State) *record {
	rc, _ := st.Source().(*record)
	for rc != nil && rc.stage.Load() < stagePublished {
		rc = rc.prev
	}
	return rc
}

// publishTried lets $upstream_addr and $upstream_status be read: the
// servers tried and their statuses no longer change once an upstream's
// answer is passed on, or the server's own error page is.
func (x *exchange) publishTried() {
	if x.rec != nil && x.rec.stage.Load() < stagePublished {
		x.rec.attempts = x.attempts
		x.rec.stage.Store(stagePublished)
	}
}

// publishHeader lets the timings and lengths be read as they stand when
// the relayed response's header goes out.
func (x *exchange) publishHeader() {
	x.publishTried()
	if x.rec != nil && x.rec.stage.Load() < stageHeader {
		x.rec.stage.Store(stageHeader)
	}
}

// publishUpstream lets the timings and lengths be read too, once the
// exchange is over.
func (x *exchange) publishUpstream() {
	if x.rec != nil {
		x.publishTried()
		x.rec.stage.Store(stageDone)
	}
}

// statusDigits holds the three digits of each status from 100 to 599,
// one after the other. As one string it is one pointer among the
// program's variables, which the collector reads at every cycle, where
// an array of 500 strings was 500 of them, each to an object of its own
// to mark.
var statusDigits = func() string {
	b := make([]byte, 0, 3*500)
	for code := 100; code < 600; code++ {
		b = strconv.AppendInt(b, int64(code), 10)
	}
	return string(b)
}()

// statusText is an attempt's status as $upstream_status shows it: "-"
// for none.
func statusText(code int) string {
	switch {
	case code <= 0:
		return "-"
	case code >= 100 && code < 600:
		at := 3 * (code - 100)
		return statusDigits[at : at+3]
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
