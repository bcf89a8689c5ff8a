package proxy

import (
	"io"
	"log/slog"
	"net/http"
	"time"
)

// switchProtocols follows a 101 from the upstream: the client's connection
// is taken over, the 101 passed on, and bytes flow both ways until either
// side closes, or until neither side has sent anything for ReadTimeout
// (the idle limit NGINX applies to WebSocket connections).
func (x *exchange) switchProtocols(c *conn, resp *http.Response, a *attempt) {
	h := x.h
	if x.sending {
		// A body sent with an upgrade request precedes the switch.
		<-x.sendDone
		x.sending = false
	}
	// From here the tunnel closes both connections itself.
	x.stop.Stop()
	client, brw, err := http.NewResponseController(x.w).Hijack()
	if err != nil {
		c.close()
		a.total = time.Since(x.tryStart)
		a.count(c)
		x.logFailure(slog.LevelError, "cannot switch protocols: the client connection cannot be taken over", c.peer.addr, err)
		x.errorResponse(http.StatusBadGateway)
		return
	}
	defer client.Close()
	if x.st != nil {
		x.st.Status = http.StatusSwitchingProtocols
	}
	// net/http may have left deadlines on the hijacked connection.
	_ = client.SetDeadline(time.Time{})

	hdr := make(http.Header, len(resp.Header))
	h.copyHeader(hdr, resp.Header, true, false) // a 101 answers HTTP/1.1 only
	brw.Writer.WriteString("HTTP/1.1 101 Switching Protocols\r\n")
	_ = hdr.Write(brw.Writer)
	brw.Writer.WriteString("\r\n")
	header := int64(brw.Writer.Buffered())
	if err := brw.Writer.Flush(); err != nil {
		c.close()
		a.total = time.Since(x.tryStart)
		a.count(c)
		return
	}

	// NGINX counts what the tunnel sends the client after the 101 header
	// as the response's body: $body_bytes_sent and $bytes_sent say it.
	toClient := &sentCounter{w: &deadlineConn{Conn: client, send: h.sendTimeout}}
	if x.st != nil {
		defer func() {
			x.st.HeaderBytes += header
			x.st.BodyBytes += toClient.n
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Bytes the client sent after its request wait in brw.Reader.
		// Through c, which counts them for $upstream_bytes_sent, as
		// NGINX counts a tunnel's bytes.
		// The client's bytes restart the upstream's idle limit too: NGINX
		// re-arms its read timer on every event of the tunnel, whichever
		// way it goes, so a stream that only the client talks on stays.
		pipe(c, brw.Reader, c.dc.refreshReads)
		c.abort()
		_ = client.Close()
	}()
	pipe(toClient, c.br, nil)
	c.abort()
	_ = client.Close()
	<-done
	c.close()
	a.total = time.Since(x.tryStart)
	a.count(c)
}

// pipe copies src to dst until either fails or src ends, calling wrote
// (if not nil) after each write.
func pipe(dst io.Writer, src io.Reader, wrote func()) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
			if wrote != nil {
				wrote()
			}
		}
		if err != nil {
			return
		}
	}
}

// sentCounter counts the bytes written through it.
type sentCounter struct {
	w io.Writer
	n int64
}

func (c *sentCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
