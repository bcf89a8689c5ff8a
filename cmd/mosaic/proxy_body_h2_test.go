package main

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// TestProxyBodyShortStreamAnsweredAsNGINX: an HTTP/2 stream that ends
// (END_STREAM) before its Content-Length is no connection gone: NGINX
// ("client prematurely closed stream: only 2 out of 10 bytes of request
// body received") answers with its 400 page. mosaic reset the stream.
func TestProxyBodyShortStreamAnsweredAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer origin.Close()
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format s escape=json '$status "$request_completion"';
			access_log %s/%s.log s;
			server { listen 127.0.0.1:%d ssl http2; ssl_certificate %s; ssl_certificate_key %s;
				location / { proxy_pass http://%s; } }`,
			dir, who, port, cert, key, origin.Listener.Addr())
	})
	got := map[string]string{}
	for who, port := range map[string]int{"m": mport, "n": nport} {
		c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write([]byte(http2.ClientPreface))
		fr := http2.NewFramer(c, c)
		_ = fr.WriteSettings()
		var block bytes.Buffer
		enc := hpack.NewEncoder(&block)
		for _, f := range [][2]string{{":method", "POST"}, {":scheme", "https"}, {":authority", "x"}, {":path", "/p"}, {"content-length", "10"}} {
			_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndHeaders: true})
		_ = fr.WriteData(1, true, []byte("ab"))
		_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
		answer := "nothing"
	frames:
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				break
			}
			switch f := f.(type) {
			case *http2.HeadersFrame:
				fields, _ := hpack.NewDecoder(4096, nil).DecodeFull(f.HeaderBlockFragment())
				answer = "status " + fields[0].Value
				break frames
			case *http2.RSTStreamFrame:
				answer = "reset " + f.ErrCode.String()
				break frames
			case *http2.SettingsFrame:
				if !f.IsAck() {
					_ = fr.WriteSettingsAck()
				}
			}
		}
		c.Close()
		got[who] = answer + "; log " + waitLog(t, filepath.Join(dir, who+".log"), 1)[0]
	}
	if got["m"] != got["n"] {
		t.Errorf("mosaic %s\nNGINX  %s", got["m"], got["n"])
	}
}
