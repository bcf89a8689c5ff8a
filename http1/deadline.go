package http1

import "time"

// Deadlines cost: setting one modifies a runtime timer, a few percent of
// a small response's CPU when done several times per request. The
// connection remembers the deadlines it armed itself, and a request
// re-arms one only when it has been changed since, is for another
// duration, or is older than a tenth of its duration (so a wait or a
// write gets 0.9 to 1 times its timeout, as NGINX's timers, which it
// updates once per event loop, are also approximate).

// armed is a deadline the connection set itself: d from at (none when d
// is zero), valid while nothing else has moved it.
type armed struct {
	valid bool
	d     time.Duration
	at    time.Time
}

// arm sets the read or write deadline to d from now, unless a of the
// same duration is still fresh.
func (c *conn) arm(a *armed, read bool, now time.Time, d time.Duration) {
	if a.valid && a.d == d && (d == 0 || now.Sub(a.at) < d/10) {
		return
	}
	var t time.Time
	if d > 0 {
		t = now.Add(d)
	}
	if read {
		_ = c.rwc.SetReadDeadline(t)
	} else {
		_ = c.rwc.SetWriteDeadline(t)
	}
	*a = armed{valid: true, d: d, at: now}
}

// armRead arms the read deadline for waiting d for a request.
func (c *conn) armRead(now time.Time, d time.Duration) {
	if c.rdTouched.Swap(false) {
		c.rd.valid = false
	}
	c.arm(&c.rd, true, now, d)
}

// setRead sets the read deadline for another purpose. Any goroutine may
// call it; the connection re-arms its own deadline before the next wait.
func (c *conn) setRead(t time.Time) {
	c.rdTouched.Store(true)
	_ = c.rwc.SetReadDeadline(t)
}

// armWrite arms the write deadline for a write of the response, unless
// the handler set one itself.
func (w *response) armWrite(now time.Time) {
	w.c.lastWrite = now
	if !w.ownDeadline {
		w.c.arm(&w.c.wd, false, now, w.sendTimeout)
	}
}
