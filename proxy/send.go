package proxy

import (
	"errors"
	"net/http"
	"time"
)

// sendGrace is how long a finished exchange waits for a body write in
// flight before it closes the connection under the writer.
const sendGrace = 250 * time.Millisecond

// What the body goroutine is doing, for an exchange that has to stop it.
const (
	sendWriting int32 = iota // writing to the upstream, or between steps
	sendReading              // waiting for the client's next piece of body
)

// startSending streams the body from its own goroutine, so that the
// response can be read while the upload is still going, as NGINX reads a
// response that arrives before the request body is complete.
func (x *exchange) startSending(c *conn) {
	x.sending = true
	x.sendErr = nil
	x.body.state.Store(sendWriting)
	done := make(chan struct{})
	x.sendDone = done
	go func() {
		bp := bufPool.Get().(*[]byte)
		err := x.body.writeTo(c.bw, *bp)
		bufPool.Put(bp)
		if err == nil {
			c.dc.arm()
		}
		x.sendErr = err
		close(done)
		if err == nil {
			return
		}
		var ce *clientError
		if errors.As(err, &ce) || isTimeout(err) {
			// Nothing more will be sent: end the exchange.
			c.abort()
		} else {
			// The upstream stopped reading; it may still answer.
			c.dc.arm()
		}
	}()
}

// sendFinished reports whether the body goroutine has ended.
func (x *exchange) sendFinished() bool {
	select {
	case <-x.sendDone:
		return true
	default:
		return false
	}
}

// waitSending waits for the body goroutine and reports whether it ended by
// itself. If the exchange is over while it still runs, the upstream wants
// no more of the body: the connection is closed under it (after a moment,
// when a write may be just completing). After a failure, a goroutine
// waiting for the client's body is cut short too, and the client's
// connection is closed after the error response; after a complete
// response it ends with the client's next piece of body, as net/http
// would wait for it anyway.
func (x *exchange) waitSending(c *conn, failed bool) (finished bool) {
	if !x.sending {
		return true
	}
	x.sending = false
	if x.sendFinished() {
		return true
	}
	if !failed && x.body.state.Load() == sendWriting {
		t := time.NewTimer(sendGrace)
		select {
		case <-x.sendDone:
			t.Stop()
			return true
		case <-t.C:
		}
	}
	c.abort()
	if failed && x.body.state.Load() == sendReading {
		x.cutClient = true
		// net/http cancels the request's context on any failed read of
		// the connection, this deadline's too (and a read that has just
		// taken the body's last byte may have begun its next): from here
		// on a cancellation is the cut's, not the client's leaving.
		x.cutCancels = x.ctx.Err() == nil
		if http.NewResponseController(x.w).SetReadDeadline(time.Now()) == nil && x.r.ProtoMajor == 1 {
			// The rest of the body stays unread: this connection cannot
			// carry another request.
			x.w.Header().Set("Connection", "close")
		}
	}
	<-x.sendDone
	return false
}

// headerFailure classifies a failed header read. The body goroutine's
// failure is the cause when it came first, or when the client's body broke
// off by itself; failures that closing the connection under the goroutine
// provoked are not.
func (x *exchange) headerFailure(c *conn, err error, reused bool) *failure {
	if x.sending {
		finished := x.waitSending(c, true)
		var ce *clientError
		cutShort := x.cutClient && isTimeout(x.sendErr)
		if x.sendErr != nil && (finished || (errors.As(x.sendErr, &ce) && !cutShort)) {
			return x.classify(x.sendErr, phaseSend, reused, c)
		}
	}
	return x.classify(err, phaseHeader, reused, c)
}
