package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ssl_dhparam loads with a notice that says why it does nothing (Go's TLS
// has only ECDHE key exchange), as ssl_buffer_size's notice says why.
func TestSSLDhparamNoticeGivesReason(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mosaic.conf")
	writeFile(t, path, "http { ssl_dhparam /nonexistent/dh.pem; ssl_buffer_size 4k; server { listen 127.0.0.1:1; } }\n")
	out, err := exec.Command(binPath, "-t", "-c", path).CombinedOutput()
	if err != nil {
		t.Fatalf("-t: %v\n%s", err, out)
	}
	for _, want := range []string{
		`[notice] ignoring "ssl_dhparam" directive in ` + path + `:1: Go's TLS negotiates keys with ECDHE only`,
		`[notice] ignoring "ssl_buffer_size": Go's TLS stack sizes its records itself`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("-t output lacks %q:\n%s", want, out)
		}
	}
}

// proxy_protocol towards an upstream is a directive of NGINX's stream
// module: NGINX's http refuses it as unknown, and so does mosaic.
func TestHTTPProxyProtocolRefusedAsNGINX(t *testing.T) {
	const block = `server { listen 127.0.0.1:1; location / { proxy_pass http://127.0.0.1:2; proxy_protocol on; } }`
	dir := t.TempDir()
	mconf := filepath.Join(dir, "mosaic.conf")
	writeFile(t, mconf, "http { "+block+" }\n")
	out, err := exec.Command(binPath, "-t", "-c", mconf).CombinedOutput()
	if want := `[emerg] unknown directive "proxy_protocol" in ` + mconf + `:1`; err == nil || !strings.Contains(string(out), want) {
		t.Errorf("mosaic -t: %v, want %q in:\n%s", err, want, out)
	}
	nginx := nginxPath(t)
	nconf := filepath.Join(dir, "nginx.conf")
	writeFile(t, nconf, "pid "+dir+"/nginx.pid; error_log "+dir+"/error.log; events {}\nhttp { "+block+" }\n")
	nout, nerr := exec.Command(nginx, "-t", "-p", dir, "-c", nconf, "-e", filepath.Join(dir, "error.log")).CombinedOutput()
	if nerr == nil || !strings.Contains(string(nout), `unknown directive "proxy_protocol"`) {
		t.Errorf("nginx -t: %v\n%s", nerr, nout)
	}
}
