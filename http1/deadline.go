package http1

import "time"

// Deadlines cost: setting one modifies a runtime timer, a few percent of
// a small response's CPU when done several times per request. The
// connection remembers the deadlines it armed itself, and a request
// re-arms one only when it has been changed since, is for another
// duration, or is older than a tenth of its duration (so a wait or a
// write gets 0.9 to 1 times its timeout, as NGINX's timers, which it
// updates once per event loop, are also approximate).

// armRead arms the read deadline for waiting d for a request (no limit
// when d is zero).
func (c *conn) armRead(now time.Time, d time.Duration) {
	if c.rdTouched.Swap(false) {
		c.rdValid = false
	}
	if c.rdValid && c.rdFor == d && (d == 0 || now.Sub(c.rdAt) < d/10) {
		return
	}
	var t time.Time
	if d > 0 {
		t = now.Add(d)
	}
	_ = c.rwc.SetReadDeadline(t)
	c.rdValid, c.rdFor, c.rdAt = true, d, now
}

// setRead sets the read deadline for another purpose. Any goroutine may
// call it; the connection re-arms its own deadline before the next wait.
func (c *conn) setRead(t time.Time) {
	c.rdTouched.Store(true)
	_ = c.rwc.SetReadDeadline(t)
}

// armWrite arms the write deadline for a write of the response: d from
// now (no limit when d is zero).
func (w *response) armWrite(now time.Time) {
	c, d := w.c, w.sendTimeout
	if w.ownDeadline {
		return // the handler set the deadline itself
	}
	if c.wdValid && c.wdFor == d && (d == 0 || now.Sub(c.wdAt) < d/10) {
		return
	}
	var t time.Time
	if d > 0 {
		t = now.Add(d)
	}
	_ = c.rwc.SetWriteDeadline(t)
	c.wdValid, c.wdFor, c.wdAt = true, d, now
}
