package main

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/mosaic-edge/mosaic/internal/procrss"
)

// TestH2BodyBeforeReadBounded (audit7): what a client may send on an
// HTTP/2 connection before any handler reads a body is the connection's
// receive window, 1 MiB (h2ConnWindow), however many streams it opens;
// a stream's window is http2_body_preread_size (64k by default, as
// NGINX's), and 0, which Go reads as its own 1 MiB, is still held by the
// connection's. 128 streams whose handlers wait on an auth_request that
// never answers take 1 MiB in all; a byte more is a FLOW_CONTROL_ERROR.
// NGINX opens its connection window to 2^31-1 and holds up to a preread
// buffer per stream: 128 × 64k, 8 MiB a connection.
func TestH2BodyBeforeReadBounded(t *testing.T) {
	stall, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 1024)
	go func() {
		for {
			c, err := stall.Accept()
			if err != nil {
				return
			}
			held <- c
		}
	}()
	t.Cleanup(func() {
		stall.Close()
		for len(held) > 0 {
			(<-held).Close()
		}
	})
	dir := t.TempDir()
	port, zero := freePort(t), freePort(t)
	// auth_request comes before the content handler, which never runs:
	// no handler reads a body.
	block := `location / { auth_request /auth; }
		location = /auth { internal; proxy_pass http://%s; }`
	p := startMosaic(t, dir, fmt.Sprintf(`http { client_max_body_size 8m;
		server { listen 127.0.0.1:{port} http2; `+block+` }
		server { listen 127.0.0.1:%d http2; http2_body_preread_size 0; `+block+` } }`,
		stall.Addr(), zero, stall.Addr()), port)
	waitPort(t, zero, p)

	for _, c := range []struct {
		port   int
		stream uint32
	}{{port, 64 << 10}, {zero, 1 << 20}} {
		h := dialH2C(t, c.port)
		_ = h.SetDeadline(time.Now().Add(30 * time.Second))
		stream, conn := uint32(65535), uint32(65535) // RFC 9113's initial windows
		for got := 0; got < 2; {
			f, err := h.fr.ReadFrame()
			if err != nil {
				t.Fatalf("port %d: reading SETTINGS and WINDOW_UPDATE: %v", c.port, err)
			}
			switch f := f.(type) {
			case *http2.SettingsFrame:
				if !f.IsAck() {
					if v, ok := f.Value(http2.SettingInitialWindowSize); ok {
						stream = v
					}
					_ = h.fr.WriteSettingsAck()
					got++
				}
			case *http2.WindowUpdateFrame:
				if f.StreamID == 0 {
					conn += f.Increment
					got++
				}
			}
		}
		if stream != c.stream || conn != 1<<20 {
			t.Errorf("port %d: stream window %d, connection window %d; want %d and 1 MiB", c.port, stream, conn, c.stream)
		}
		// 128 streams, each sent as much as its window lets it while the
		// connection's lasts.
		chunk := make([]byte, 16<<10)
		left := conn
		for i := range uint32(128) {
			id := 2*i + 1
			h.headers(t, id, false, ":method", "POST", ":scheme", "http", ":authority", "a.example", ":path", "/", "content-length", fmt.Sprint(4<<20))
			for sent := uint32(0); sent < stream && left > 0; {
				n := min(uint32(len(chunk)), stream-sent, left)
				if err := h.fr.WriteData(id, false, chunk[:n]); err != nil {
					t.Fatal(err)
				}
				sent, left = sent+n, left-n
			}
		}
		if left != 0 {
			t.Errorf("port %d: %d bytes of the connection's window left after 128 streams", c.port, left)
		}
		var rss int64
		if c.port == port {
			time.Sleep(200 * time.Millisecond)
			rss, _ = procrss.Of(p.cmd.Process.Pid)
		}
		// One byte more, on the last stream, which its own window allows,
		// is refused: FLOW_CONTROL_ERROR (Go resets the stream). A PING
		// after it makes the server write what it has.
		if err := h.fr.WriteData(2*127+1, false, chunk[:1]); err != nil {
			t.Fatal(err)
		}
		_ = h.fr.WritePing(false, [8]byte{1})
		refused := ""
		for refused == "" {
			f, err := h.fr.ReadFrame()
			if err != nil {
				t.Fatalf("port %d: a byte past the window: %v, want FLOW_CONTROL_ERROR", c.port, err)
			}
			switch f := f.(type) {
			case *http2.GoAwayFrame:
				refused = "GOAWAY " + f.ErrCode.String()
			case *http2.RSTStreamFrame:
				refused = fmt.Sprintf("RST_STREAM %d %v", f.StreamID, f.ErrCode)
			case *http2.WindowUpdateFrame:
				t.Errorf("port %d: WINDOW_UPDATE %d on stream %d, before any handler read", c.port, f.Increment, f.StreamID)
			}
		}
		if !strings.HasSuffix(refused, "FLOW_CONTROL_ERROR") || strings.HasPrefix(refused, "RST") && !strings.HasPrefix(refused, "RST_STREAM 255 ") {
			t.Errorf("port %d: a byte past the window: %s, want FLOW_CONTROL_ERROR", c.port, refused)
		}
		t.Logf("port %d: %d bytes taken on 128 streams, a byte more %s; resident %d KB with them held", c.port, conn, refused, rss>>10)
	}
}
