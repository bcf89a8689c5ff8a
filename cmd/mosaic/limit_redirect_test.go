package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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
	type holder struct {
		arrived chan struct{}
		release chan struct{}
	}
	var origins []string
	holders := map[string]*holder{}
	for range 2 {
		h := &holder{arrived: make(chan struct{}, 10), release: make(chan struct{})}
		o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/slow") {
				h.arrived <- struct{}{}
				<-h.release
			}
			io.WriteString(w, "app")
		}))
		t.Cleanup(o.Close)
		t.Cleanup(func() {
			select {
			case <-h.release:
			default:
				close(h.release)
			}
		})
		origins = append(origins, o.Listener.Addr().String())
		holders[o.Listener.Addr().String()] = h
	}
	next := 0
	byServer := map[string]*holder{}
	bases := limitBoth(t, nil, func(listen, root string) string {
		addr := origins[next]
		next++
		if next == 1 {
			byServer["mosaic"] = holders[addr]
		} else {
			byServer["nginx"] = holders[addr]
		}
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
