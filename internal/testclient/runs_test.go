package testclient

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestReadRuns: an answer sent in two pieces 600 ms apart reads as two
// runs split at a pause of 200 ms, the second holding the second piece,
// and parses whole. The client may read the first piece late under
// load, so the runs may begin less than 600 ms apart, never less than
// the pause.
func TestReadRuns(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10")
		io.WriteString(w, "hello")
		w.(http.Flusher).Flush()
		time.Sleep(600 * time.Millisecond)
		io.WriteString(w, "world")
	}))
	defer srv.Close()
	resp, body, runs, err := ReadRuns(strings.TrimPrefix(srv.URL, "http://"), "GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", 200*time.Millisecond, 10*time.Second)
	if err != nil || resp.StatusCode != 200 || body != "helloworld" {
		t.Fatalf("%v %q %v", resp, body, err)
	}
	if len(runs.Sizes) != 2 || runs.Sizes[1] != 5 || runs.At[1]-runs.At[0] < 200*time.Millisecond {
		t.Errorf("runs %v at %v; want two, the second of 5 bytes 600 ms on", runs.Sizes, runs.At)
	}
}

// TestStartMidSecond: it returns a fifth or more into a second of the
// wall clock (a sleep ends late, never early; the half-second ceiling
// is left to the load).
func TestStartMidSecond(t *testing.T) {
	for range 3 {
		StartMidSecond()
		now := time.Now()
		if frac := now.Sub(now.Truncate(time.Second)); frac < 200*time.Millisecond {
			t.Errorf("returned %v into a second, want 200 ms or more", frac)
		}
		time.Sleep(400 * time.Millisecond)
	}
}
