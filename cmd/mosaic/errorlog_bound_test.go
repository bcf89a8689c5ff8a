package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A 64 KB URI that reaches the error log (a 404 whose file name is too
// long, with log_not_found on) writes one line of at most NGINX's
// NGX_MAX_ERROR_STR (2,048 bytes, newline included), in NGINX and in
// mosaic; before, mosaic quoted the whole path, 64 KB a request.
func TestErrorLogLineBoundedAsNGINX(t *testing.T) {
	uri := "/" + strings.Repeat("x", 64<<10)
	block := func(dir string, port int) string {
		return fmt.Sprintf(`large_client_header_buffers 4 128k;
			server { listen 127.0.0.1:%d; root %s; }`, port, dir)
	}
	check := func(who, log string) {
		t.Helper()
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for l := range strings.Lines(string(b)) {
			if len(l) > 2048 {
				t.Errorf("%s: a line of %d bytes: %.120q...", who, len(l), l)
			}
			found = found || strings.Contains(l, "xxxxxxxxxxxxxxxx")
		}
		if !found {
			t.Errorf("%s: no line quotes the URI: %q", who, b)
		}
	}

	dir := t.TempDir()
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf("error_log %s/error.log error; http { %s }", dir, block(dir, port)), port)
	if status, _ := rawGet(t, port, uri); status != 404 {
		t.Fatalf("mosaic: status %d, want 404", status)
	}
	check("mosaic", filepath.Join(dir, "error.log"))

	ndir := t.TempDir()
	nport := freePort(t)
	startNGINX(t, ndir, block(ndir, nport), nport)
	if status, _ := rawGet(t, nport, uri); status != 404 {
		t.Fatalf("nginx: status %d, want 404", status)
	}
	check("nginx", filepath.Join(ndir, "error.log"))
}
