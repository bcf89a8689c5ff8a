package testclient

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestReadRuns: an answer sent in two pieces 300 ms apart reads as two
// runs split at a pause of 200 ms, the second holding the second piece,
// and parses whole.
func TestReadRuns(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10")
		io.WriteString(w, "hello")
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond)
		io.WriteString(w, "world")
	}))
	defer srv.Close()
	resp, body, runs, err := ReadRuns(strings.TrimPrefix(srv.URL, "http://"), "GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", 200*time.Millisecond, 10*time.Second)
	if err != nil || resp.StatusCode != 200 || body != "helloworld" {
		t.Fatalf("%v %q %v", resp, body, err)
	}
	if len(runs.Sizes) != 2 || runs.Sizes[1] != 5 || runs.At[1]-runs.At[0] < 300*time.Millisecond {
		t.Errorf("runs %v at %v; want two, the second of 5 bytes 300 ms on", runs.Sizes, runs.At)
	}
}
