package main

import (
	"fmt"
	"io"
	"net/http"
	"testing"
)

// TestPlainHTTP2ListenAsNGINX: "listen ... http2" without ssl speaks
// HTTP/2 with prior knowledge (h2c), as NGINX 1.22 does; mosaic served
// HTTP/1.1 alone there and answered the preface with a 505.
func TestPlainHTTP2ListenAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d http2;
			location / { return 200 "$scheme $server_protocol $host $request_uri"; }
			location /denied { deny all; } }`, port)
	})
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &protos, Proxy: nil}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for _, path := range []string{"/a?b=c", "/denied"} {
		var answers [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
			req.Host = "a.example"
			resp, err := client.Do(req)
			if err != nil {
				answers[i] = err.Error()
				continue
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answers[i] = fmt.Sprintf("%s %d", resp.Proto, resp.StatusCode)
			if resp.StatusCode == http.StatusOK {
				answers[i] += fmt.Sprintf(" %q", body)
			}
		}
		if answers[0] != answers[1] {
			t.Errorf("%s: mosaic %s\nNGINX  %s", path, answers[0], answers[1])
		}
	}
}
