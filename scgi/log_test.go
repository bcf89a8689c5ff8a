package scgi_test

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/gateway"
	"github.com/mosaic-edge/mosaic/internal/syncbuf"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/scgi"
)

// A head over MaxHeaderSize is 502 and the error log says what NGINX's
// says, "upstream sent too big header", not that the header is invalid.
func TestTooBigHeaderLogged(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		if req, err := scgi.ReadRequest(br, 0); err == nil {
			io.CopyN(io.Discard, br, req.ContentLength)
			io.WriteString(c, "X-Big: "+strings.Repeat("b", 2000)+"\r\n\r\nbody")
		}
	}()
	logs := &syncbuf.Buffer{}
	addr := ln.Addr().String()
	pass := proxy.Pass{Scheme: "scgi", Host: "127.0.0.1", Port: addr[strings.LastIndexByte(addr, ':')+1:]}
	h, err := proxy.New(proxy.Options{Pass: pass, Wire: &scgi.Wire{Stream: gateway.Stream{MaxHeaderSize: 1024}},
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 502 {
		t.Errorf("status %d, want 502", w.Code)
	}
	if want := "upstream sent too big header while reading response header from upstream"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs)
	}
}
