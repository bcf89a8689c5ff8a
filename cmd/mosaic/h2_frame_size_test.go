package main

import (
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// TestH2ReadFrameSizeBounded (audit6): an HTTP/2 connection, h2c and
// over TLS, takes frames of at most 16,384 bytes (the protocol's initial
// SETTINGS_MAX_FRAME_SIZE), says so in its SETTINGS, and ends with
// FRAME_SIZE_ERROR a connection that sends a larger one. Go's server
// reads a whole frame into a buffer of the length its header announces
// before it looks at it, and took frames of 1 MiB: a frame header alone,
// nine bytes, held a megabyte of memory for as long as the client
// stalled (NGINX reads frames through a state machine and holds no
// frame whole, whatever size it allows).
func TestH2ReadFrameSizeBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	plain, secure := freePort(t), freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { ssl_certificate %s; ssl_certificate_key %s;
		server { listen 127.0.0.1:{port} http2; listen 127.0.0.1:%d ssl http2; return 200 "ok"; } }`, cert, key, secure), plain)
	dial := map[string]func() net.Conn{
		"h2c": func() net.Conn {
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", plain))
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
		"tls": func() net.Conn {
			c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", secure),
				&tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
	}
	for name, d := range dial {
		h := startH2(t, d())
		_ = h.SetDeadline(time.Now().Add(5 * time.Second))
		advertised := uint32(16384) // the initial value, unless SETTINGS says otherwise
		for {
			f, err := h.fr.ReadFrame()
			if err != nil {
				t.Fatalf("%s: reading the server's SETTINGS: %v", name, err)
			}
			if s, ok := f.(*http2.SettingsFrame); ok && !s.IsAck() {
				if v, ok := s.Value(http2.SettingMaxFrameSize); ok {
					advertised = v
				}
				break
			}
		}
		if advertised != 16384 {
			t.Errorf("%s: SETTINGS_MAX_FRAME_SIZE %d, want 16384", name, advertised)
		}
		// A frame of an unknown type, which a receiver ignores, one byte
		// over the limit, then a PING: answered only if the frame was
		// taken.
		big := make([]byte, 9+16385)
		big[0], big[1], big[2] = 0, 0x40, 0x01 // length 16385
		big[3] = 0xfa
		binary.BigEndian.PutUint32(big[5:], 0)
		if _, err := h.Write(big); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_ = h.fr.WritePing(false, [8]byte{1})
		got := "no answer"
		for {
			f, err := h.fr.ReadFrame()
			if err != nil {
				break
			}
			if g, ok := f.(*http2.GoAwayFrame); ok {
				got = "GOAWAY " + g.ErrCode.String()
				break
			}
			if p, ok := f.(*http2.PingFrame); ok && p.IsAck() {
				got = "PING answered"
				break
			}
		}
		if got != "GOAWAY FRAME_SIZE_ERROR" {
			t.Errorf("%s: a frame of 16,385 bytes: %s, want GOAWAY FRAME_SIZE_ERROR", name, got)
		}
	}
}
