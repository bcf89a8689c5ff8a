package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/fastcgi"
)

// The application sees the same parameters through mosaic as through
// NGINX where their names or values are long enough (128 bytes and more)
// for FastCGI's four-byte lengths, or empty: configured ones, one left
// out by if_not_empty, and the request's header lines. (A configured
// name of 128 bytes or more is not among them: php-fpm drops NGINX
// 1.22's connection for it, a 502, where mosaic's request is served.)
func TestFastCGILongAndEmptyPairsAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "p.php"), `<?php
$out = [];
foreach ($_SERVER as $k => $v) {
	if (str_starts_with($k, 'HTTP_') || str_starts_with($k, 'P_')) { $out[$k] = $v; }
}
ksort($out);
foreach ($out as $k => $v) { echo $k, '=', strlen($v), ':', $v, "\n"; }
`)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), filepath.Join(dir, "php.sock"), 1)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/www;
			location / { include %s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/p.php;
				fastcgi_param P_URI $request_uri; fastcgi_param P_EMPTY "";
				fastcgi_param P_EMPTY_VAR $http_x_none; fastcgi_param P_SKIPPED $http_x_none if_not_empty;
				fastcgi_param P_LONG_LITERAL %s;
				fastcgi_pass %s; } }`, port, dir, dir, strings.Repeat("l", 127)+"x", fpm.addr)
	})
	uri := "/" + strings.Repeat("u", 200)
	var bodies [2]string
	for i, port := range []int{mport, nport} {
		req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, uri), nil)
		req.Host = "site.test"
		req.Header["X-Empty"] = []string{""}
		req.Header.Set("X-"+strings.Repeat("a", 130), "v")
		req.Header.Set("X-Long", strings.Repeat("h", 300))
		req.Header.Set("X-Short", "127"+strings.Repeat("s", 124))
		_, bodies[i] = doRequest(t, req)
	}
	mb, nb := bodies[0], bodies[1]
	if !strings.Contains(nb, "P_URI=201:"+uri) || !strings.Contains(nb, "HTTP_X_EMPTY=0:") {
		t.Fatalf("NGINX's answer is not the script's:\n%s", nb)
	}
	if mb != nb {
		t.Errorf("the parameters\nmosaic: %s\nnginx:  %s", mb, nb)
	}
}

// Parameters that fill a PARAMS record's 65,535 bytes exactly reach the
// application, as with NGINX; a byte more is 500 in both ("fastcgi
// request record is too big"), where mosaic used to split them over two
// records. Each server's own probe gives the size of the pairs beside
// the padding header, so the boundary is exact for each.
func TestFastCGIParamsRecordLimitAsNGINX(t *testing.T) {
	nginxPath(t)
	app := fastcgiApp(t, func(names, values []string) string {
		var pairs []byte
		for i := range names {
			pairs = fastcgi.AppendPair(pairs, names[i], values[i])
		}
		n := strconv.Itoa(len(pairs))
		return "Content-Type: text/plain\r\nContent-Length: " + strconv.Itoa(len(n)) + "\r\n\r\n" + n
	})
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`large_client_header_buffers 4 128k;
			server { listen 127.0.0.1:%d; location / { fastcgi_param P_URI $request_uri; fastcgi_pass %s; } }`, port, app)
	})
	get := func(port, pad int) (int, string) {
		req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/p", port), nil)
		req.Header.Set("X-Pad", strings.Repeat("p", pad))
		resp, body := doRequest(t, req)
		return resp.StatusCode, body
	}
	for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
		code, body := get(port, 200)
		size, err := strconv.Atoi(body)
		if code != 200 || err != nil {
			t.Fatalf("%s: probe %d %q", who, code, body)
		}
		pad := 200 + 65535 - size // X-Pad's four-byte length holds from 128 on
		if code, body := get(port, pad); code != 200 || body != "65535" {
			t.Errorf("%s: 65,535 bytes of pairs: %d %q, want 200 \"65535\"", who, code, body)
		}
		if code, _ := get(port, pad+1); code != 500 {
			t.Errorf("%s: 65,536 bytes of pairs: %d, want 500", who, code)
		}
	}
}
