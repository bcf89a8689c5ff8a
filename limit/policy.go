package limit

import (
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"time"

	"github.com/mosaic-edge/mosaic/internal/redisconn"
	"github.com/mosaic-edge/mosaic/vars"
)

// The names under which Policy records its outcome in the request's
// vars.State, read as $limit_req_status and $limit_conn_status.
const (
	VarReqStatus  = "limit_req_status"
	VarConnStatus = "limit_conn_status"
)

// LevelNotice is NGINX's "notice" log level, between info and warn.
const LevelNotice = slog.LevelInfo + 2

// LevelAlert is NGINX's "alert" level, of a zone that is full.
const LevelAlert = slog.LevelError + 8

// NoDelay as ReqLimit.Delay serves every request within the burst at
// once (NGINX's "nodelay"): no burst is larger. It is int's largest
// value, whatever int's size.
const NoDelay = math.MaxInt

// maxRequests is where a burst or a delay stops counting: a count of
// requests becomes thousandths in the buckets, and an excess of
// thousandths becomes milliseconds of delay, both in int64, so a larger
// one would overflow (NoDelay on a 64-bit platform would become -1000);
// no bucket fills that far (9,223,372,036,854 requests).
const maxRequests = math.MaxInt64 / 1000 / 1000

// milli is n requests in the thousandths the buckets count in, held at
// maxRequests.
func milli(n int) int64 { return min(int64(n), maxRequests) * 1000 }

// ReqLimit is one limit_req: a zone, the burst of requests beyond the
// rate that wait (or are served at once up to Delay) rather than being
// refused.
type ReqLimit struct {
	Zone  *ReqZone
	Burst int
	// Delay is how many requests of the burst are served without delay
	// (NGINX's "delay="); NoDelay serves them all at once.
	Delay int
}

// ConnLimit is one limit_conn: at most Max requests of a key in progress.
type ConnLimit struct {
	Zone *ConnZone
	Max  int
}

// Policy is the limits of a location, with NGINX's settings around them.
type Policy struct {
	Req []ReqLimit
	// ReqStatus answers a request over a rate limit; 0 means 503.
	ReqStatus int
	// ReqDryRun counts and logs, but neither delays nor refuses.
	ReqDryRun bool
	// ReqLogLevel is the level of "limiting requests"; delays are
	// logged one level lower (at info when it is info).
	ReqLogLevel slog.Level

	Conn       []ConnLimit
	ConnStatus int
	ConnDryRun bool
	// ConnLogLevel is the level of "limiting connections".
	ConnLogLevel slog.Level

	// Logger receives the messages; nil means slog.Default().
	Logger func(*http.Request) *slog.Logger
	// Reject answers a refused request; nil means a plain text answer.
	Reject func(w http.ResponseWriter, r *http.Request, code int)
	// Rejected, when set, hears of each request a limit refuses (not of a
	// dry run's): limit is "req" or "conn", zone the zone's name.
	Rejected func(limit, zone string)
	// AtEnd, when set, runs release once the request has ended and
	// reports whether it will: a server that serves an error page or an
	// internal redirect after the handler returns keeps the request's
	// limit_conn counts until then, as NGINX counts a request until it
	// frees it. Without it, or when it reports false, the counts end
	// when the handler returns.
	AtEnd func(r *http.Request, release func()) bool
}

var reqStatusNames = [...]string{"PASSED", "DELAYED", "REJECTED", "DELAYED_DRY_RUN", "REJECTED_DRY_RUN"}

const (
	reqPassed = iota
	reqDelayed
	reqRejected
	reqDelayedDryRun
	reqRejectedDryRun
)

// Wrap returns next behind the policy's limits: the rate limits first,
// then the requests in progress, as NGINX's preaccess phase runs them.
// Each kind applies once per request: a request that passes through Wrap
// again (an internal redirect in mosaic) is not counted twice.
func (p *Policy) Wrap(next http.Handler) http.Handler {
	if len(p.Req) == 0 && len(p.Conn) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := vars.FromContext(r.Context())
		if len(p.Req) > 0 && !p.limitReq(w, r, st) {
			return
		}
		if len(p.Conn) > 0 {
			release, ok := p.limitConn(w, r, st)
			if !ok {
				return
			}
			if p.AtEnd == nil || !p.AtEnd(r, release) {
				defer release()
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (p *Policy) logger(r *http.Request) *slog.Logger {
	if p.Logger != nil {
		return p.Logger(r)
	}
	return slog.Default()
}

func (p *Policy) reject(w http.ResponseWriter, r *http.Request, code int) {
	if p.Reject != nil {
		p.Reject(w, r, code)
		return
	}
	http.Error(w, http.StatusText(code), code)
}

func (p *Policy) rejected(limit, zone string) {
	if p.Rejected != nil {
		p.Rejected(limit, zone)
	}
}

func setStatus(st *vars.State, name, v string) {
	st.Set(name, v)
}

func done(st *vars.State, name string) bool {
	_, ok := st.Get(name)
	return ok
}

// thousandths writes an excess as NGINX logs it: "2.500".
func thousandths(n int64) string { return fmt.Sprintf("%d.%03d", n/1000, n%1000) }

// limitReq applies the rate limits, as NGINX's limit_req handler: every
// limit whose key is not empty is looked up in order, the last one
// charged; if all are within their burst, the others are charged too,
// and the request waits for the longest delay any of them asks for.
func (p *Policy) limitReq(w http.ResponseWriter, r *http.Request, st *vars.State) bool {
	if done(st, VarReqStatus) {
		return true
	}
	ctx := r.Context()
	type hold struct {
		lim *ReqLimit
		h   heldReq
	}
	var holds []hold
	unlock := func() {
		for _, h := range holds {
			h.h.unlock()
		}
	}
	rc, seen := codeOK, false
	var excess int64
	var lim *ReqLimit
	for i := range p.Req {
		lim = &p.Req[i]
		key := lim.Zone.key(r)
		if key == "" {
			continue
		}
		if len(key) > 65535 {
			p.logger(r).Error(fmt.Sprintf("the value of the %q key is more than 65535 bytes", lim.Zone.name))
			continue
		}
		seen = true
		var h heldReq
		rc, excess, h = lim.Zone.store.lookup(ctx, key, milli(lim.Burst), i == len(p.Req)-1)
		if h != nil {
			holds = append(holds, hold{lim, h})
		}
		if rc != codeAgain {
			break
		}
	}
	if !seen {
		return true
	}
	dry := ""
	if p.ReqDryRun {
		dry = ", dry run"
	}
	if rc == codeBusy || rc == codeError {
		if rc == codeBusy {
			p.logger(r).Log(ctx, p.ReqLogLevel, fmt.Sprintf("limiting requests%s, excess: %s by zone %q", dry, thousandths(excess), lim.Zone.name))
		} else {
			p.logger(r).Log(ctx, LevelAlert, fmt.Sprintf("could not allocate node in limit_req zone %q", lim.Zone.name))
		}
		unlock()
		if p.ReqDryRun {
			setStatus(st, VarReqStatus, reqStatusNames[reqRejectedDryRun])
			return true
		}
		setStatus(st, VarReqStatus, reqStatusNames[reqRejected])
		p.rejected("req", lim.Zone.name)
		p.reject(w, r, statusOr(p.ReqStatus))
		return false
	}
	if rc == codeAgain {
		excess = 0
	}
	// The longest delay any limit asks for, the last one's first.
	var delay int64
	if e := excess - milli(lim.Delay); e > 0 {
		delay = e * 1000 / int64(lim.Zone.rate)
	}
	for _, h := range holds {
		e := h.h.account()
		over := e - milli(h.lim.Delay)
		if over <= 0 {
			continue
		}
		if d := over * 1000 / int64(h.lim.Zone.rate); d > delay {
			delay, excess, lim = d, e, h.lim
		}
	}
	if delay == 0 {
		setStatus(st, VarReqStatus, reqStatusNames[reqPassed])
		return true
	}
	p.logger(r).Log(ctx, delayLevel(p.ReqLogLevel), fmt.Sprintf("delaying request%s, excess: %s, by zone %q", dry, thousandths(excess), lim.Zone.name))
	if p.ReqDryRun {
		setStatus(st, VarReqStatus, reqStatusNames[reqDelayedDryRun])
		return true
	}
	setStatus(st, VarReqStatus, reqStatusNames[reqDelayed])
	// The wait ends early when the client goes away (false: nothing is
	// to be answered).
	return redisconn.SleepCtx(ctx, time.Duration(delay)*time.Millisecond)
}

// delayLevel is the level of "delaying request": one below the level of
// "limiting requests", info at the lowest.
func delayLevel(l slog.Level) slog.Level {
	switch {
	case l >= slog.LevelError:
		return slog.LevelWarn
	case l >= slog.LevelWarn:
		return LevelNotice
	}
	return slog.LevelInfo
}

func statusOr(code int) int {
	if code == 0 {
		return http.StatusServiceUnavailable
	}
	return code
}

// limitConn counts the request in every connection limit whose key is not
// empty, as NGINX's limit_conn handler: the first limit that is full
// refuses it, and the counts already taken are given back.
func (p *Policy) limitConn(w http.ResponseWriter, r *http.Request, st *vars.State) (func(), bool) {
	if done(st, VarConnStatus) {
		return func() {}, true
	}
	ctx := r.Context()
	var releases []func()
	releaseAll := func() {
		for _, f := range releases {
			f()
		}
	}
	for i := range p.Conn {
		lim := &p.Conn[i]
		key := lim.Zone.key(r)
		if key == "" {
			continue
		}
		if len(key) > 255 {
			p.logger(r).Error(fmt.Sprintf("the value of the %q key is more than 255 bytes", lim.Zone.name))
			continue
		}
		setStatus(st, VarConnStatus, "PASSED")
		rc, release := lim.Zone.store.acquire(ctx, key, lim.Max)
		if rc != codeOK {
			if rc == codeBusy {
				dry := ""
				if p.ConnDryRun {
					dry = ", dry run,"
				}
				p.logger(r).Log(ctx, p.ConnLogLevel, fmt.Sprintf("limiting connections%s by zone %q", dry, lim.Zone.name))
			} else {
				p.logger(r).Log(ctx, slog.LevelError+4, fmt.Sprintf("ngx_slab_alloc() failed: no memory in limit_conn_zone %q", lim.Zone.name))
			}
			releaseAll()
			if p.ConnDryRun {
				setStatus(st, VarConnStatus, "REJECTED_DRY_RUN")
				return func() {}, true
			}
			setStatus(st, VarConnStatus, "REJECTED")
			p.rejected("conn", lim.Zone.name)
			p.reject(w, r, statusOr(p.ConnStatus))
			return nil, false
		}
		releases = append(releases, release)
	}
	return releaseAll, true
}
