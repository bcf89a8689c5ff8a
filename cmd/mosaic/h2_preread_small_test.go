package main

import (
	"fmt"
	"slices"
	"testing"
)

// TestH2PrereadSmallEarlyBodyAsNGINX (fidelity12): with
// http2_body_preread_size under 65,535, a client that opens a stream
// with a body before it acknowledged the server's SETTINGS, and sends
// past the preread size (within HTTP/2's initial 65,535), has that stream
// reset by both servers and the connection's next stream answered. The
// reset's code differs, and the test pins both: NGINX refuses such a
// stream as its HEADERS come (REFUSED_STREAM, ngx_http_v2_state_headers,
// which a client may send again); Go's HTTP/2 server, which has no hook
// for the acknowledgement, resets it when the DATA pass the window
// (FLOW_CONTROL_ERROR). mosaic's `return` answers without reading the
// body, so its 200 can reach the client before the DATA pass the window
// (a CI run on a loaded machine saw it): for mosaic either is the
// documented behaviour. See server/README.md, fidelity12.
func TestH2PrereadSmallEarlyBodyAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d http2; http2_body_preread_size 16k;
			location / { return 200 "ok"; } }`, port)
	})
	want := map[string][]string{"mosaic": {"reset FLOW_CONTROL_ERROR", "200"}, "NGINX": {"reset REFUSED_STREAM"}}
	for who, port := range map[string]int{"mosaic": mport, "NGINX": nport} {
		h := dialH2C(t, port)
		h.headers(t, 1, false, ":method", "POST", ":scheme", "http", ":authority", "a.example", ":path", "/",
			"content-length", "40000")
		chunk := make([]byte, 10000)
		for i := range 4 {
			if err := h.fr.WriteData(1, i == 3, chunk); err != nil {
				t.Fatalf("%s: DATA: %v", who, err)
			}
		}
		if got := h.status(1); !slices.Contains(want[who], got) {
			t.Errorf("%s: stream 1 %s, want %s", who, got, want[who])
		}
		h.headers(t, 3, true, h2cGet("/")...)
		if got := h.status(3); got != "200" {
			t.Errorf("%s: the next stream %s, want 200", who, got)
		}
	}
}
