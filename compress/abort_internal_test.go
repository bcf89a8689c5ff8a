package compress

import (
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
)

// failingClose is an encoder whose Close fails, as a parallel stream's
// does when a segment fails to compress: the rest of the stream, and
// its end, never come.
type failingClose struct{ encoder }

func (failingClose) Close() error { return errors.New("encoder broke") }

// askGzip serves h on a test server and sends it a GET that accepts
// gzip, returning the answer as it came (the transport decodes nothing).
func askGzip(t *testing.T, h http.Handler) (*http.Response, error) {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	return tr.RoundTrip(req)
}

// A compressed response whose encoder fails to close is aborted, as
// NGINX's brotli and gzip filters abort theirs: the server closes the
// connection, with no response when the header was still held (not an
// empty 200 with the handler's ETag) and with the body cut short, no
// chunked end, when the header had gone out.
func TestFailedEncoderAborts(t *testing.T) {
	random := make([]byte, 200<<10) // its gzip outgrows the buffers: the header goes out
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for _, tc := range []struct {
		name string
		body []byte
		sent bool // the header went out before Close
	}{
		{"held", []byte("<html>" + string(make([]byte, 2000)) + "</html>"), false},
		{"streamed", random, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.Gzip.Enable = true
			opts.Gzip.Types = []string{"text/plain"}
			h, err := New(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.Header().Set("ETag", `"v1"`)
				_, _ = w.Write(tc.body)
				rw := w.(*responseWriter)
				if rw.state != stateCompress || rw.pending != nil || rw.headerSent != tc.sent {
					t.Errorf("state %v, one-shot %v, header sent %v: not the path under test", rw.state, rw.pending != nil, rw.headerSent)
				}
				rw.enc = failingClose{rw.enc}
			}), opts)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := askGzip(t, h)
			if !tc.sent {
				if err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					t.Fatalf("answered %d, ETag %q, Content-Encoding %q, %d bytes; want the connection closed",
						resp.StatusCode, resp.Header.Get("ETag"), resp.Header.Get("Content-Encoding"), len(b))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
			}
			if _, err := io.ReadAll(resp.Body); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("reading the body: %v, want it cut short", err)
			}
		})
	}
}
