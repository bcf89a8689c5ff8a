package server

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

// deadlineWriter is a writer whose deadlines the recorder keeps, as
// net/http's are for HTTP/2: it records the last write deadline set.
type deadlineWriter struct {
	h    http.Header
	body bytes.Buffer
	last time.Time
	sets int
}

func (d *deadlineWriter) Header() http.Header             { return d.h }
func (d *deadlineWriter) WriteHeader(int)                 {}
func (d *deadlineWriter) Write(p []byte) (int, error)     { return d.body.Write(p) }
func (d *deadlineWriter) SetReadDeadline(time.Time) error { return nil }
func (d *deadlineWriter) SetWriteDeadline(t time.Time) error {
	d.last, d.sets = t, d.sets+1
	return nil
}

// A body handed to ReadFrom on such a writer keeps the send timeout: its
// writes are armed, where the deadline was once lifted for the whole body.
func TestRecorderReadFromKeepsSendTimeout(t *testing.T) {
	d := &deadlineWriter{h: http.Header{}}
	rw := newRecorder(d, &vars.State{})
	rw.setConnection(&coreLoc{sendTimeout: Setting[time.Duration]{V: time.Minute}})
	body := bytes.Repeat([]byte("x"), 100<<10)
	n, err := rw.ReadFrom(bytes.NewReader(body))
	if err != nil || n != int64(len(body)) || d.body.Len() != len(body) {
		t.Fatalf("copied %d of %d bytes (%d written), %v", n, len(body), d.body.Len(), err)
	}
	if d.sets == 0 || d.last.IsZero() {
		t.Fatalf("the write deadline after the body: %v (%d sets); want one armed", d.last, d.sets)
	}
	if rw.st.BodyBytes != int64(len(body)) {
		t.Fatalf("BodyBytes %d, want %d", rw.st.BodyBytes, len(body))
	}
	rw.release()
}

// panicDeadliner fails the test when its deadlines are set once gone.
type panicDeadliner struct {
	t    *testing.T
	gone *bool
}

func (d panicDeadliner) SetReadDeadline(time.Time) error {
	if *d.gone {
		d.t.Error("the read deadline of a request that ended was set")
	}
	return nil
}
func (d panicDeadliner) SetWriteDeadline(time.Time) error { return nil }

// A reader that outlives its request (the body writer of an HTTP/2
// client to a gRPC upstream) reads the body without touching the
// deadlines of a writer the server has let go: Go's HTTP/2 server
// clears its writer when the handler returns, and setting a deadline on
// it then panics.
func TestDeadlineBodyAfterEnd(t *testing.T) {
	gone := false
	b := &deadlineBody{ReadCloser: io.NopCloser(strings.NewReader("abcdef")), d: panicDeadliner{t, &gone}, timeout: time.Second}
	p := make([]byte, 3)
	if n, _ := b.Read(p); n != 3 {
		t.Fatalf("read %d", n)
	}
	b.end()
	gone = true
	if n, _ := b.Read(p); n != 3 || string(p) != "def" {
		t.Fatalf("after end: %d %q", n, p)
	}
}
