package main

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

const subOutServer = `
    server {
        listen 127.0.0.1:{port};
        root {dir}/www;
        location / { ssi on; }
        location /roomy/ { subrequest_output_buffer_size 16k; }
    }
`

// TestSubrequestOutputBufferSizeMatchesNGINX: include set= puts at most
// the included location's subrequest_output_buffer_size (a memory page by
// default) in its variable; a longer answer ends the request with no
// response, its connection closed, as in NGINX.
func TestSubrequestOutputBufferSizeMatchesNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	big := strings.Repeat("b", 10000)
	writeFile(t, filepath.Join(dir, "www/small.txt"), "small")
	writeFile(t, filepath.Join(dir, "www/big.txt"), big)
	writeFile(t, filepath.Join(dir, "www/roomy/big.txt"), big)
	writeFile(t, filepath.Join(dir, "www/small.html"), `A<!--# include virtual="/small.txt" set="x" -->[<!--# echo var="x" -->]B`)
	writeFile(t, filepath.Join(dir, "www/big.html"), `A<!--# include virtual="/big.txt" set="x" -->[<!--# echo var="x" -->]B`)
	writeFile(t, filepath.Join(dir, "www/roomy.html"), `A<!--# include virtual="/roomy/big.txt" set="x" -->[<!--# echo var="x" -->]B`)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return strings.NewReplacer("{dir}", dir, "{port}", fmt.Sprint(port)).Replace(subOutServer)
	})
	for _, c := range []struct {
		path, want string // "" for no response
	}{
		{"/small.html", "A[small]B"},
		{"/roomy.html", "A[" + big + "]B"},
		{"/big.html", ""},
	} {
		for _, s := range []struct {
			name string
			port int
		}{{"mosaic", mport}, {"nginx", nport}} {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", s.port, c.path))
			if c.want == "" {
				if err == nil {
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					t.Errorf("%s %s: status %d, %d bytes; want the connection closed without a response", s.name, c.path, resp.StatusCode, len(body))
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", s.name, c.path, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != c.want {
				t.Errorf("%s %s: %.60q (%d bytes), want %.60q", s.name, c.path, body, len(body), c.want)
			}
		}
	}
}
