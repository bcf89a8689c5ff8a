package main

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestLimitConnHeldThroughErrorPage: limit_conn counts a request until it
// ends, through the error_page that serves it: with "error_page 404 =
// @app", a missing file is served by a slow upstream, and a second
// request of the client while the first waits is refused, as NGINX
// refuses it (the count belongs to the request, not to the location).
func TestLimitConnHeldThroughErrorPage(t *testing.T) {
	origins := []*heldOrigin{newHeldOrigin(t, "app"), newHeldOrigin(t, "app")}
	next := 0
	byServer := map[string]*heldOrigin{}
	bases := limitBoth(t, nil, func(listen, root string) string {
		o := origins[next]
		addr := o.addr
		next++
		// limitBoth starts mosaic first, then NGINX.
		byServer[map[int]string{1: "mosaic", 2: "nginx"}[next]] = o
		return fmt.Sprintf(`access_log off;
			limit_conn_zone $binary_remote_addr zone=addr:1m;
			server {
				%s
				limit_conn addr 1;
				add_header X-Limit $limit_conn_status always;
				location / { root %s; error_page 404 = @app; }
				location @app { proxy_pass http://%s; }
			}`, listen, root, addr)
	})
	results := map[string]string{}
	for name, base := range bases {
		h := byServer[name]
		var held sync.WaitGroup
		held.Add(1)
		go func() {
			defer held.Done()
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(base + "/missing/slow")
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		select {
		case <-h.arrived:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the request never reached the upstream", name)
		}
		code, lim := limitGet(t, base+"/missing/fast")
		close(h.release)
		held.Wait()
		results[name] = fmt.Sprint(code, " ", lim)
	}
	if want := "503 REJECTED"; results["mosaic"] != want {
		t.Errorf("mosaic: a second request while the first is in its error_page: %s, want %s", results["mosaic"], want)
	}
	if n, ok := results["nginx"]; ok && n != results["mosaic"] {
		t.Errorf("mosaic %s, NGINX %s", results["mosaic"], n)
	}
}
