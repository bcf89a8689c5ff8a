package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProxyPassVariableUserinfoAsNGINX: a "proxy_pass http://$arg_h"
// whose value carries userinfo. NGINX's request-time URL parser does not
// check the host's characters, so "user@host" is a name to resolve (502,
// "no resolver defined to resolve user@host" without a resolver), while
// "u:p@host" has an invalid port (500, "invalid port in upstream"). Both
// servers must answer alike and log NGINX's line.
func TestProxyPassVariableUserinfoAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	dir := t.TempDir()
	block := `server {
		listen 127.0.0.1:%d;
		location / { proxy_pass http://$arg_h; }
	}`
	mport, nport := freePort(t), freePort(t)
	ndir := filepath.Join(dir, "nginx")
	if err := os.MkdirAll(ndir, 0o755); err != nil {
		t.Fatal(err)
	}
	startNGINX(t, ndir, fmt.Sprintf(block, nport), nport)
	p := startMosaic(t, dir, fmt.Sprintf("http {\n"+block+"\n}\n", mport), mport)
	for _, c := range []struct{ h, log string }{
		{"user@127.0.0.1:1", `no resolver defined to resolve user@127.0.0.1`},
		{"user@localhost", `no resolver defined to resolve user@localhost`},
		{"u:p@127.0.0.1", `invalid port in upstream \"u:p@127.0.0.1\"`},
		{"u:p@127.0.0.1/x", `invalid port in upstream \"u:p@127.0.0.1/x\"`},
	} {
		var status [2]int
		for i, port := range []int{mport, nport} {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/a?h=%s", port, c.h))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			status[i] = resp.StatusCode
		}
		if status[0] != status[1] {
			t.Errorf("h=%s: mosaic %d, nginx %d", c.h, status[0], status[1])
		}
		waitOutput(t, p, c.log)
		nlog := strings.ReplaceAll(c.log, `\"`, `"`)
		deadline := time.Now().Add(5 * time.Second)
		for {
			b, _ := os.ReadFile(filepath.Join(ndir, "error.log"))
			if strings.Contains(string(b), nlog) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("NGINX's log lacks %q:\n%s", nlog, b)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
