package server

import (
	"io"
	"os"
	"testing"
	"time"
)

// timeoutMarker is a deadliner that counts the body timeouts it is told.
type timeoutMarker struct{ timedOut int }

func (m *timeoutMarker) SetReadDeadline(time.Time) error  { return nil }
func (m *timeoutMarker) SetWriteDeadline(time.Time) error { return nil }
func (m *timeoutMarker) BodyTimedOut()                    { m.timedOut++ }

// deadlineErr is a body whose reads fail as a read past its deadline
// does.
type deadlineErr struct{}

func (deadlineErr) Read([]byte) (int, error) { return 0, os.ErrDeadlineExceeded }
func (deadlineErr) Close() error             { return nil }

// A read that fails past the deadline the body set (client_body_timeout)
// is a body timeout for the writer; one that fails before it, a handler
// having cut the read short with a deadline of its own, is not.
func TestDeadlineBodyTellsTimeoutFromCut(t *testing.T) {
	for _, c := range []struct {
		timeout time.Duration
		want    int
	}{{0, 1}, {time.Hour, 0}} {
		m := &timeoutMarker{}
		b := &deadlineBody{ReadCloser: deadlineErr{}, d: m, timeout: c.timeout}
		if _, err := b.Read(make([]byte, 1)); err != os.ErrDeadlineExceeded {
			t.Fatalf("read: %v", err)
		}
		if m.timedOut != c.want {
			t.Errorf("timeout %v: told %d times, want %d", c.timeout, m.timedOut, c.want)
		}
	}
	// After the request's end the writer is not touched.
	b := &deadlineBody{ReadCloser: deadlineErr{}, timeout: 0}
	if _, err := io.ReadAll(b); err != os.ErrDeadlineExceeded {
		t.Errorf("read after the end: %v", err)
	}
}
