package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// TestH2PrereadZeroAsNGINX (audit8): with http2_body_preread_size 0 NGINX
// tells a client a stream's window is 0 (SETTINGS_INITIAL_WINDOW_SIZE)
// and opens it with a WINDOW_UPDATE once the handler reads the body;
// mosaic cannot say 0 (Go's HTTP/2 server reads a window of 0 as its
// default, and refreshes a small one only as a handler reads, a round
// trip per window), so it gives the stream 1 MiB, held with every other
// stream by the connection's 1 MiB (h2ConnWindow): neither window it
// gives ever goes past 1 MiB, where NGINX opens its connection's to
// 2^31-1. A client that follows the
// windows it is given uploads the same body to both, with the same
// answer.
func TestH2PrereadZeroAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "read %d", n)
	}))
	t.Cleanup(origin.Close)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`client_max_body_size 8m;
			server { listen 127.0.0.1:%d http2; http2_body_preread_size 0;
				location / { proxy_pass %s; } }`, port, origin.URL)
	})
	const size = 3 << 20
	answers := map[string]string{}
	for who, port := range map[string]int{"mosaic": mport, "NGINX": nport} {
		h := dialH2C(t, port)
		_ = h.SetDeadline(time.Now().Add(30 * time.Second))
		stream, conn := int64(65535), int64(65535) // RFC 9113's initial windows
		// The server's SETTINGS, acknowledged before the stream opens:
		// NGINX refuses a stream with a body sent before that with a
		// preread size under 65,535.
		var initial int64 = -1
		for initial < 0 {
			f, err := h.fr.ReadFrame()
			if err != nil {
				t.Fatalf("%s: SETTINGS: %v", who, err)
			}
			if s, ok := f.(*http2.SettingsFrame); ok && !s.IsAck() {
				initial = 65535
				if v, ok := s.Value(http2.SettingInitialWindowSize); ok {
					initial = int64(v)
				}
				_ = h.fr.WriteSettingsAck()
			}
		}
		stream = initial
		peak := max(stream, conn) // the widest window given
		h.headers(t, 1, false, ":method", "POST", ":scheme", "http", ":authority", "a.example", ":path", "/", "content-length", fmt.Sprint(size))
		chunk := make([]byte, 16<<10)
		status, body, ended := "", "", false
		for sent := int64(0); !ended; {
			if n := min(int64(len(chunk)), stream, conn, size-sent); sent >= 0 && n > 0 {
				if err := h.fr.WriteData(1, sent+n == size, chunk[:n]); err != nil {
					t.Fatalf("%s: DATA: %v", who, err)
				}
				sent, stream, conn = sent+n, stream-n, conn-n
				if sent == size {
					sent = -1 // all sent
				}
				continue
			}
			f, err := h.fr.ReadFrame()
			if err != nil {
				t.Fatalf("%s: %d of %d bytes sent, windows %d and %d: %v", who, sent, size, stream, conn, err)
			}
			switch f := f.(type) {
			case *http2.WindowUpdateFrame:
				if f.StreamID == 0 {
					conn += int64(f.Increment)
				} else {
					stream += int64(f.Increment)
				}
				peak = max(peak, stream, conn)
			case *http2.MetaHeadersFrame:
				status, ended = f.PseudoValue("status"), f.StreamEnded()
			case *http2.DataFrame:
				body, ended = body+string(f.Data()), f.StreamEnded()
			case *http2.RSTStreamFrame:
				t.Fatalf("%s: stream reset %v after %d bytes", who, f.ErrCode, sent)
			case *http2.GoAwayFrame:
				t.Fatalf("%s: GOAWAY %v after %d bytes", who, f.ErrCode, sent)
			}
		}
		t.Logf("%s: initial stream window %d, widest window %d; %s %q", who, initial, peak, status, body)
		if who == "mosaic" && peak > 1<<20 {
			t.Errorf("mosaic opened a window to %d bytes; want 1 MiB at most, the connection's window", peak)
		}
		answers[who] = status + " " + body
		if want := map[string]int64{"mosaic": 1 << 20, "NGINX": 0}[who]; initial != want {
			t.Errorf("%s: SETTINGS_INITIAL_WINDOW_SIZE %d, want %d", who, initial, want)
		}
	}
	if want := fmt.Sprintf("200 read %d", size); answers["mosaic"] != want || answers["NGINX"] != want {
		t.Errorf("answers %q, want %q from both", answers, want)
	}
}
