package http1

import "sync/atomic"

// ConnStats counts connections and requests the way NGINX's stub_status
// reports them. Several servers (listeners, and the servers of successive
// configurations) may share one; its zero value is ready.
//
// A connection counts as waiting from its accept (its TLS handshake
// included) and between requests, parked or not; as reading from the
// first byte of a request until its header has been read; as writing
// while its handler runs and its response goes out. A connection handed
// to another protocol's server (HTTP/2, an upgrade) leaves the counts;
// that server may count it with Adjust and BeginRequest.
type ConnStats struct {
	accepted, requests                atomic.Uint64
	active, reading, writing, waiting atomic.Int64
}

// ConnCounts is a snapshot of ConnStats.
type ConnCounts struct {
	Accepted uint64 // connections accepted (NGINX's accepts and handled)
	Requests uint64 // requests begun
	Active   int64  // open connections
	Reading  int64  // reading a request header
	Writing  int64  // serving a request
	Waiting  int64  // idle, waiting for a request
}

// Counts returns the current counts. They are read one by one, so a
// connection changing state meanwhile may be seen in two states or none.
func (s *ConnStats) Counts() ConnCounts {
	return ConnCounts{
		Accepted: s.accepted.Load(),
		Requests: s.requests.Load(),
		Active:   max(s.active.Load(), 0),
		Reading:  max(s.reading.Load(), 0),
		Writing:  max(s.writing.Load(), 0),
		Waiting:  max(s.waiting.Load(), 0),
	}
}

// Adjust adds to the open and waiting connections, for a server of
// another protocol that took a connection over.
func (s *ConnStats) Adjust(active, waiting int64) {
	s.active.Add(active)
	s.waiting.Add(waiting)
}

// BeginRequest counts a request of another protocol's server as begun
// and writing; EndRequest ends it.
func (s *ConnStats) BeginRequest() {
	s.requests.Add(1)
	s.writing.Add(1)
}

// EndRequest ends what BeginRequest counted.
func (s *ConnStats) EndRequest() { s.writing.Add(-1) }

// The states a connection is counted in.
const (
	statNone int8 = iota
	statWaiting
	statReading
	statWriting
)

// setStat moves c to the state st in its server's ConnStats: from none
// it is accepted, to none it has gone. It runs on the goroutine that
// owns the connection.
func (c *conn) setStat(st int8) {
	s := c.srv.Stats
	if s == nil || c.stat == st {
		return
	}
	switch {
	case c.stat == statNone:
		s.accepted.Add(1)
		s.active.Add(1)
	case st == statNone:
		s.active.Add(-1)
	}
	if st == statReading {
		s.requests.Add(1)
	}
	s.move(c.stat, -1)
	s.move(st, 1)
	c.stat = st
}

func (s *ConnStats) move(st int8, n int64) {
	switch st {
	case statWaiting:
		s.waiting.Add(n)
	case statReading:
		s.reading.Add(n)
	case statWriting:
		s.writing.Add(n)
	}
}

// othersOpen reports whether a connection other than the caller's is
// open on the servers s counts, whose next request may be ready before
// the caller's. Requests being read or served do not tell it: a
// connection whose request has arrived, and whose goroutine the poller
// has made ready, counts as waiting until that goroutine runs and takes
// the first byte. Without counts (nil) it says yes: it cannot tell.
func (s *ConnStats) othersOpen() bool {
	return s == nil || s.active.Load() > 1
}
