package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpstreamRangeStatusAsNGINX: NGINX's range filter cuts or refuses a
// proxied 200 (proxy_force_ranges) or a cached one (while the cache
// fills, and on a hit) after add_header ran for the 200, so their values
// see $status 200, and a map of $status, evaluated there first, keeps
// its 200 value for the access log, whose own $status is 206 or 416.
// mosaic's proxy and cache cut the 200 themselves, and the values and
// the map saw 206 (or 416). The same for the whole that NGINX's slice
// filter makes a 200 of. add_header's Last-Modified, given to the 200,
// stays on its 206 (the backend's /r/ has none of its own).
func TestUpstreamRangeStatusAsNGINX(t *testing.T) {
	dir := t.TempDir()
	mport, nport := startBothSite(t, dir, func(sub string, port, bport int) string {
		return fmt.Sprintf(`log_format s '$request_uri $status $ms';
			map $status $ms { default "m$status"; }
			proxy_cache_path %[1]s/cache keys_zone=z:1m;
			server { listen 127.0.0.1:%[3]d; root %[1]s/site; location /r/ { return 200 "0123456789"; } }
			server { listen 127.0.0.1:%[2]d; access_log %[1]s/access.log s;
				add_header X-S $status always; add_header X-M $ms always;
				add_header Last-Modified "Thu, 01 Jan 2015 00:00:00 GMT";
				location /f/ { proxy_pass http://127.0.0.1:%[3]d/r/; proxy_force_ranges on; }
				location /c/ { proxy_pass http://127.0.0.1:%[3]d/; proxy_cache z; proxy_cache_valid 1h; }
				location /s/ { slice 4; proxy_set_header Range $slice_range; proxy_cache z;
					proxy_cache_key $uri$slice_range; proxy_cache_valid 200 206 1h;
					proxy_pass http://127.0.0.1:%[3]d/; } }`,
			sub, port, bport)
	})
	reqs := []struct{ path, rng string }{
		{"/f/a", "bytes=1-2"}, {"/f/a", "bytes=100-"},
		{"/c/a.txt", "bytes=1-2"},                             // a miss: the cache fills
		{"/c/a.txt", "bytes=2-3"}, {"/c/a.txt", "bytes=100-"}, // hits
		{"/s/a.txt", "bytes=1-2"}, {"/s/a.txt", "bytes=3-8"}, // slices
	}
	for _, rq := range reqs {
		req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a.test\r\nRange: %s\r\nConnection: close\r\n\r\n", rq.path, rq.rng)
		m := answerFields(t, sendUntilClosed(t, mport, req), "X-S", "X-M", "Content-Range", "Last-Modified")
		n := answerFields(t, sendUntilClosed(t, nport, req), "X-S", "X-M", "Content-Range", "Last-Modified")
		if m != n {
			t.Errorf("%s Range: %s\nmosaic %s\nNGINX  %s", rq.path, rq.rng, m, n)
		}
	}
	ml := waitLog(t, filepath.Join(dir, "mosaic/access.log"), len(reqs))
	nl := waitLog(t, filepath.Join(dir, "nginx/access.log"), len(reqs))
	for i := range nl {
		if i >= len(ml) || ml[i] != nl[i] {
			t.Errorf("access log line %d: mosaic %q, NGINX %q", i, ml, nl)
			break
		}
	}
}

// TestCacheRangeRefusedAsNGINX: NGINX's range filter refuses a range of
// a cached 200 (while the cache fills, and on a hit) as it refuses a
// static file's: the request ends in its HTML page for 416, which an
// error_page replaces, with the 200's add_header fields. mosaic's cache
// answered a text of its own, and error_page left it.
func TestCacheRangeRefusedAsNGINX(t *testing.T) {
	mport, nport := startBothSite(t, t.TempDir(), func(sub string, port, bport int) string {
		return fmt.Sprintf(`proxy_cache_path %[1]s/cache keys_zone=z:1m;
			server { listen 127.0.0.1:%[3]d; root %[1]s/site; }
			server { listen 127.0.0.1:%[2]d; root %[1]s/site;
				proxy_cache z; proxy_cache_valid 1h; add_header X-A a;
				location /c/ { proxy_pass http://127.0.0.1:%[3]d/; }
				location /e/ { proxy_pass http://127.0.0.1:%[3]d/; error_page 416 /x.html; } }`,
			sub, port, bport)
	})
	// Each path twice: a miss, then a hit.
	for _, path := range []string{"/c/a.txt", "/c/a.txt", "/e/a.txt", "/e/a.txt"} {
		req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a.test\r\nRange: bytes=100-\r\nConnection: close\r\n\r\n", path)
		mraw, nraw := sendUntilClosed(t, mport, req), sendUntilClosed(t, nport, req)
		m := answerFields(t, mraw, "X-A", "Content-Range", "Content-Type")
		n := answerFields(t, nraw, "X-A", "Content-Range", "Content-Type")
		if page := strings.HasSuffix(nraw, "\r\n\r\nerror page\n"); m != n || page != strings.HasSuffix(mraw, "\r\n\r\nerror page\n") {
			t.Errorf("%s\nmosaic %s\n%s\nNGINX  %s\n%s", path, m, mraw, n, nraw)
		}
	}
}

// startBothSite starts NGINX and mosaic on block (startBoth), each with
// a.txt and x.html in the folder "site" of its own folder, and a port
// for a backend server besides its own; block gets that folder, the
// port and the backend's.
func startBothSite(t *testing.T, dir string, block func(sub string, port, bport int) string) (mport, nport int) {
	t.Helper()
	nginxPath(t)
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "site/a.txt"), "0123456789")
		writeFile(t, filepath.Join(dir, who, "site/x.html"), "error page\n")
	}
	bports := map[string]int{"m": freePort(t), "n": freePort(t)}
	return startBoth(t, dir, func(who string, port int) string {
		return block(filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who]), port, bports[who])
	})
}
