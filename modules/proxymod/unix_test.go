package proxymod_test

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// An origin on a Unix-domain socket, reached three ways as NGINX allows:
// an upstream "server unix:path", "proxy_pass http://unix:path:/uri" and
// "proxy_pass http://unix:path" (the request's URI unchanged). The Host
// header is "localhost" and $proxy_port empty, as NGINX sends them.
func TestUnixSocketOrigin(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "app.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	origin := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s host=%s proxy_port=[%s]", r.Method, r.RequestURI, r.Host, r.Header.Get("X-Proxy-Port"))
	})}
	go origin.Serve(ln)
	t.Cleanup(func() { origin.Close() })

	base := servertest.Start(t, fmt.Sprintf(`http {
		upstream app { server unix:%[1]s max_fails=0; keepalive 2; }
		proxy_set_header X-Proxy-Port $proxy_port;
		server {
			listen 127.0.0.1:0;
			location /up/     { proxy_pass http://app; }
			location /direct/ { proxy_pass http://unix:%[1]s:/base/; }
			location /plain/  { proxy_pass http://unix:%[1]s; }
		}
	}`, sock))
	for path, want := range map[string]string{
		"/up/a?x=1":   "GET /up/a?x=1 host=app proxy_port=[80]",
		"/direct/b/c": "GET /base/b/c host=localhost proxy_port=[]",
		"/plain/d":    "GET /plain/d host=localhost proxy_port=[]",
	} {
		resp, body := testclient.Get(t, base+path)
		if resp.StatusCode != 200 || body != want {
			t.Errorf("%s: %d %q, want %q", path, resp.StatusCode, body, want)
		}
	}
}

func TestUnixSocketErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`http { server { location / { proxy_pass http://unix:; } } }`, `no path in the unix domain socket in "http://unix:" in test.conf:1`},
		{`http { upstream u { server unix:; } server { location / { proxy_pass http://u; } } }`, `no path in the unix domain socket in upstream "unix:" in test.conf:1`},
	} {
		servertest.WantError(t, tc.src, tc.want)
	}
}
