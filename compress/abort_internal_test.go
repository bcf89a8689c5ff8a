package compress

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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

// watched wraps h so that the end of each request it serves comes on
// ended: the value it panicked with, or nil, the panic going on to the
// server. What h logged is then safe to read.
func watched(h http.Handler) (_ http.Handler, ended <-chan any) {
	c := make(chan any, 1)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			c <- p
			if p != nil {
				panic(p)
			}
		}()
		h.ServeHTTP(w, r)
	}), c
}

// ending waits for a watched handler's end, for a minute at most.
func ending(t *testing.T, ended <-chan any) any {
	t.Helper()
	select {
	case p := <-ended:
		return p
	case <-time.After(time.Minute):
		t.Fatal("the handler never returned")
		return nil
	}
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
			var logs bytes.Buffer
			opts := DefaultOptions()
			opts.Gzip.Enable = true
			opts.Gzip.Types = []string{"text/plain"}
			opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
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
			h, ended := watched(h)
			resp, err := askGzip(t, h)
			switch {
			case !tc.sent && err == nil:
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				t.Fatalf("answered %d, ETag %q, Content-Encoding %q, %d bytes; want the connection closed",
					resp.StatusCode, resp.Header.Get("ETag"), resp.Header.Get("Content-Encoding"), len(b))
			case tc.sent && err != nil:
				t.Fatal(err)
			case tc.sent:
				_, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
					t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
				}
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("reading the body: %v, want it cut short", err)
				}
			}
			if p := ending(t, ended); p != http.ErrAbortHandler {
				t.Errorf("the handler ended with %v, want http.ErrAbortHandler", p)
			}
			if !strings.Contains(logs.String(), `level=ERROR msg="compress: response aborted"`) {
				t.Errorf("logged %q, want the abort at error level", logs.String())
			}
		})
	}
}

// A client that leaves during the body makes the writes to it fail: no
// failure of the encoder, so nothing is logged at error level and the
// handler returns (no abort: the connection is gone already), in each
// coding.
func TestClientGoneIsNoEncoderFailure(t *testing.T) {
	for _, coding := range []Encoding{Brotli, Zstd, Gzip} {
		t.Run(coding.String(), func(t *testing.T) {
			var logs bytes.Buffer
			opts := DefaultOptions()
			opts.Brotli.Enable = coding == Brotli
			opts.Zstd.Enable = coding == Zstd
			opts.Gzip.Enable = coding == Gzip
			opts.Brotli.Types, opts.Zstd.Types, opts.Gzip.Types = []string{"*"}, []string{"*"}, []string{"*"}
			opts.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			var failed error
			// Random pieces, each new: incompressible, even against the
			// pieces before, so the output is as long as the body.
			piece, rng := make([]byte, 64<<10), rand.NewChaCha8([32]byte{5, 6})
			h, err := New(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				// Until a write fails, 64 MB at most: far more than the
				// connection's buffers hold once the client is gone.
				for range 1024 {
					_, _ = rng.Read(piece)
					if _, failed = w.Write(piece); failed != nil {
						return
					}
				}
			}), opts)
			if err != nil {
				t.Fatal(err)
			}
			h, ended := watched(h)
			srv := httptest.NewServer(h)
			defer srv.Close()
			c, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			_ = c.SetDeadline(time.Now().Add(time.Minute))
			fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: a.test\r\nAccept-Encoding: %v\r\n\r\n", coding)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			if ce := resp.Header.Get("Content-Encoding"); ce != coding.String() {
				t.Errorf("Content-Encoding %q", ce)
			}
			// Away with the rest unread: the kernel resets the connection.
			c.Close()
			if p := ending(t, ended); p != nil {
				t.Errorf("the handler panicked: %v", p)
			}
			if failed == nil {
				t.Error("no write failed: not the path under test")
			}
			if strings.Contains(logs.String(), "level=ERROR") {
				t.Errorf("a client gone logged an error: %q", logs.String())
			}
		})
	}
}
