package main

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// TestProxyH2BodyWithoutLengthAsNGINX: an HTTP/2 request body without
// content-length, under proxy_request_buffering off, goes to an HTTP/1.1
// upstream chunked even when it came whole with its head (HEADERS and
// DATA with END_STREAM in one write) or empty, as NGINX sends it: the
// rule that sends an HTTP/1.x chunked body that arrived whole with its
// length (chunked.Complete) has no HTTP/2 counterpart in NGINX 1.22. To
// an HTTP/1.0 upstream both buffer the body and send its length.
func TestProxyH2BodyWithoutLengthAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%d %v", r.ContentLength, r.TransferEncoding)
	}))
	defer origin.Close()
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d ssl http2; ssl_certificate %s; ssl_certificate_key %s;
				proxy_request_buffering off;
				location /11 { proxy_pass http://%s; proxy_http_version 1.1; }
				location /10 { proxy_pass http://%[4]s; } }`,
			port, cert, key, origin.Listener.Addr())
	})
	for _, path := range []string{"/11", "/10"} {
		for _, body := range []string{"hello", ""} {
			m, n := h2PostWhole(t, mport, path, body), h2PostWhole(t, nport, path, body)
			if m != n {
				t.Errorf("%s %q: upstream saw %q from mosaic, %q from NGINX", path, body, m, n)
			}
		}
	}
}

// h2PostWhole posts body to path without content-length, its HEADERS and
// DATA (END_STREAM on HEADERS for an empty body) in one write, and
// returns the response's body.
func h2PostWhole(t *testing.T, port int, path, body string) string {
	t.Helper()
	c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out, block bytes.Buffer
	out.WriteString(http2.ClientPreface)
	fw := http2.NewFramer(&out, nil)
	_ = fw.WriteSettings()
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "https"}, {":authority", "x"}, {":path", path}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	_ = fw.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndHeaders: true, EndStream: body == ""})
	if body != "" {
		_ = fw.WriteData(1, true, []byte(body))
	}
	if _, err := c.Write(out.Bytes()); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	fr := http2.NewFramer(c, c)
	var got []byte
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("%s on port %d: %v", path, port, err)
		}
		switch f := f.(type) {
		case *http2.DataFrame:
			got = append(got, f.Data()...)
			if f.StreamEnded() {
				return string(got)
			}
		case *http2.RSTStreamFrame:
			return "reset " + f.ErrCode.String()
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		}
	}
}
