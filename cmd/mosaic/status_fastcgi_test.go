package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMetricsFastCGIUpstreamLabel: a FastCGI location has no $proxy_host
// (as in NGINX, TestFastCGIProxyPortAsNGINX), yet the metrics endpoint
// still labels its upstream times with the group's name, which the
// status module reads from the proxy's record (proxy.UpstreamName), not
// from the variable.
func TestMetricsFastCGIUpstreamLabel(t *testing.T) {
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "p.php"), `<?php echo "ok\n";`)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(freePort(t)), 1)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { upstream php_up { server %s; }
		server { listen 127.0.0.1:%d; root %s/www;
			location /p { include %[3]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/p.php;
				fastcgi_pass php_up; }
			location = /metrics { metrics; } } }`, fpm.addr, port, dir), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if code, body := getBody(t, base+"/p"); code != 200 || body != "ok\n" {
		t.Fatalf("/p: %d %q", code, body)
	}
	_, m := getBody(t, base+"/metrics")
	if want := `mosaic_upstream_response_seconds_count{upstream="php_up"} 1`; !strings.Contains(m, want) {
		t.Errorf("metrics lack %q:\n%s", want, m)
	}
}
