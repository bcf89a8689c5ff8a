package proxy

import (
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHTTPSUpstream(t *testing.T) {
	cc := &connCounter{}
	origin := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Host+" "+r.RequestURI+" "+r.Proto)
	}))
	origin.Config.ConnState = cc.hook
	origin.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshake below
	origin.StartTLS()
	defer origin.Close()
	addr := strings.TrimPrefix(origin.URL, "https://")

	// NGINX's defaults: the certificate is not verified.
	f := newFront(t, proxyTo(t, "https://"+addr+"/tls/", Options{LocationPrefix: "/"}))
	if status, body, _ := get(t, f.URL+"/x?y"); status != 200 || body != addr+" /tls/x?y HTTP/1.0" {
		t.Errorf("got %d %q", status, body)
	}

	// With keepalive the TLS connection is reused.
	up := mustUpstream(t, "secure", 2, server(addr))
	before := cc.count()
	f = newFront(t, proxyTo(t, "https://secure", Options{Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders}))
	for i := 0; i < 5; i++ {
		if status, _, _ := get(t, f.URL+"/"); status != 200 {
			t.Fatalf("status %d", status)
		}
	}
	if got := cc.count() - before; got != 1 {
		t.Errorf("%d TLS connections for 5 requests, want 1", got)
	}

	// Verification against a pool that lacks the origin's CA fails the
	// handshake, which is a connect failure.
	strict := newFront(t, proxyTo(t, "https://"+addr, Options{TLSConfig: &tls.Config{ServerName: "example.com"}}))
	if status, _, _ := get(t, strict.URL+"/"); status != 502 {
		t.Errorf("unverifiable upstream: status %d, want 502", status)
	}
}
