package grpcproxy_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/mosaic-edge/mosaic/grpcproxy"
)

// refusingUpstream speaks h2c and refuses every other stream
// (REFUSED_STREAM: it was not processed, RFC 9113 8.7), the first of
// each connection included; it answers the others with an empty 200.
func refusingUpstream(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go refuseHalf(c)
		}
	}()
	return l.Addr().String()
}

func refuseHalf(c net.Conn) {
	defer c.Close()
	if _, err := io.ReadFull(c, make([]byte, len(http2.ClientPreface))); err != nil {
		return
	}
	fr := http2.NewFramer(c, c)
	if fr.WriteSettings() != nil {
		return
	}
	streams := 0
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				fr.WriteSettingsAck()
			}
		case *http2.HeadersFrame:
			if streams++; streams%2 == 1 {
				fr.WriteRSTStream(f.StreamID, http2.ErrCodeRefusedStream)
				continue
			}
			var b bytes.Buffer
			e := hpack.NewEncoder(&b)
			e.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
			e.WriteField(hpack.HeaderField{Name: "grpc-status", Value: "0"})
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: f.StreamID, BlockFragment: b.Bytes(),
				EndHeaders: true, EndStream: true})
		}
	}
}

// A stream the upstream refused was never processed: Go's transport
// sends the request again on its own, which it can only do for a body
// it can rewind. A POST that came without a body or a length goes with
// an empty body of unknown length (no content-length, as NGINX): the
// refusal must not turn it into a 502 where one with no body at all
// went through.
func TestBodylessPostRetriedOnRefusedStream(t *testing.T) {
	h, err := grpcproxy.New(grpcproxy.Options{Select: func(*http.Request) grpcproxy.Selection {
		return &inTurn{addrs: []string{refusingUpstream(t)}}
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	for _, method := range []string{"GET", "POST"} {
		c, err := net.Dial("tcp", s.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, method+" /test.Echo/Unary HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		res.Body.Close()
		c.Close()
		if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Grpc-Status")+res.Trailer.Get("Grpc-Status"), "0") {
			t.Errorf("%s: %s, grpc-status %q", method, res.Status, res.Header.Get("Grpc-Status"))
		}
	}
}
