package proxy

import (
	"net"
	"testing"
	"time"
)

// deadlineLog is a connection that records the deadlines set on it.
type deadlineLog struct {
	net.Conn
	reads, writes []time.Time
}

func (d *deadlineLog) SetReadDeadline(t time.Time) error {
	d.reads = append(d.reads, t)
	return nil
}

func (d *deadlineLog) SetWriteDeadline(t time.Time) error {
	d.writes = append(d.writes, t)
	return nil
}

func (d *deadlineLog) Read(p []byte) (int, error)  { return len(p), nil }
func (d *deadlineLog) Write(p []byte) (int, error) { return len(p), nil }

// A kept connection's requests renew a deadline only when it is not
// fresh: set for another timeout, lifted, or older than a tenth of its
// timeout. Reads of a request whose body is still going out are untimed
// until arm, and so are those of a request without a read timeout.
func TestDeadlinesMovedWhenStale(t *testing.T) {
	log := &deadlineLog{}
	c := &conn{dc: &deadlineConn{Conn: log}}
	request := func(read time.Duration, streamed bool) {
		c.begin(read, time.Minute, streamed, time.Now())
		c.dc.Write([]byte("request"))
		c.dc.arm()
		c.dc.Read(make([]byte, 8))
		c.dc.Read(make([]byte, 8))
	}
	count := func(what string, reads, writes int) {
		t.Helper()
		if len(log.reads) != reads || len(log.writes) != writes {
			t.Errorf("%s: %d read and %d write deadlines set, want %d and %d", what, len(log.reads), len(log.writes), reads, writes)
		}
	}
	request(time.Minute, false)
	count("first request", 1, 1)
	if d := time.Until(log.reads[0]); d < 59*time.Second || d > time.Minute {
		t.Errorf("read deadline %v ahead", d)
	}
	request(time.Minute, false)
	request(time.Minute, false)
	count("two more requests", 1, 1)
	request(time.Hour, false)
	count("another read timeout", 2, 1)
	request(time.Hour, true)
	count("a streamed body", 4, 1)
	if !log.reads[2].IsZero() || log.reads[3].IsZero() {
		t.Errorf("a streamed body's reads: deadlines %v, want lifted then set", log.reads[2:])
	}
	request(0, false)
	count("no read timeout", 5, 1)
	if !log.reads[4].IsZero() {
		t.Errorf("without a read timeout the deadline is %v", log.reads[4])
	}

	// A deadline older than a tenth of its timeout is renewed.
	log = &deadlineLog{}
	c = &conn{dc: &deadlineConn{Conn: log}}
	c.begin(20*time.Millisecond, 20*time.Millisecond, false, time.Now())
	c.dc.arm()
	c.dc.Write(nil)
	time.Sleep(5 * time.Millisecond)
	c.dc.Read(nil)
	c.dc.Write(nil)
	count("after a quarter of the timeout", 2, 2)
}

// The write of a request without a body takes the time begin was given
// (one the caller has just read) for its deadline, the writes after it
// the clock's; after armIdle the first read sets the read deadline.
func TestDeadlinesFromBeginsTime(t *testing.T) {
	log := &deadlineLog{}
	c := &conn{dc: &deadlineConn{Conn: log}}
	given := time.Now().Add(-time.Hour) // stale: the next write renews it
	c.begin(time.Minute, time.Minute, false, given)
	c.dc.Write([]byte("request"))
	if len(log.writes) != 1 || !log.writes[0].Equal(given.Add(time.Minute)) {
		t.Fatalf("write deadlines %v, want %v", log.writes, given.Add(time.Minute))
	}
	c.dc.Write([]byte("more"))
	if len(log.writes) != 2 || time.Until(log.writes[1]) < 59*time.Second {
		t.Errorf("write deadlines %v: the second one not from the clock", log.writes)
	}
	c.dc.armIdle()
	if len(log.reads) != 0 {
		t.Fatalf("armIdle set read deadlines %v", log.reads)
	}
	c.dc.Read(make([]byte, 8))
	if len(log.reads) != 1 || time.Until(log.reads[0]) < 59*time.Second {
		t.Errorf("read deadlines %v, want one a minute ahead", log.reads)
	}

	// A streamed body's writes read the clock, however late they come.
	c.begin(time.Minute, time.Hour, true, given)
	c.dc.Write([]byte("body"))
	if d := time.Until(log.writes[len(log.writes)-1]); d < 59*time.Minute {
		t.Errorf("a streamed body's write deadline %v ahead, want an hour", d)
	}
}
