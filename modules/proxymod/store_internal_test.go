package proxymod

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStoreLastModified: proxy_store gives the file the upstream's
// Last-Modified as NGINX's ngx_http_upstream_store reads it, with
// ngx_parse_http_time: a date without "GMT" is one; a field that is no
// date, or NGINX's error time -1, leaves the file the time it was
// written.
func TestStoreLastModified(t *testing.T) {
	dir := t.TempDir()
	want := time.Date(2020, 9, 13, 12, 26, 40, 0, time.UTC)
	for i, c := range []struct {
		lastMod string
		set     bool
	}{
		{"Sun, 13 Sep 2020 12:26:40 GMT", true},
		{"Sun, 13 Sep 2020 12:26:40", true},
		{"Sunday, 13-Sep-20 12:26:40", true},
		{"13 Sep 2020", false},
		{"Wed, 31 Dec 1969 23:59:59 GMT", false},
		{"", false},
	} {
		tmp, err := os.CreateTemp(dir, "tmp-")
		if err != nil {
			t.Fatal(err)
		}
		s := &storeWriter{tmp: tmp, lastMod: c.lastMod}
		target := filepath.Join(dir, "out", string(rune('a'+i)))
		if err := s.keep(target, 0o644); err != nil {
			t.Fatalf("%q: %v", c.lastMod, err)
		}
		fi, err := os.Stat(target)
		if err != nil {
			t.Fatal(err)
		}
		if set := fi.ModTime().Equal(want); set != c.set {
			t.Errorf("Last-Modified %q: file time %v, want the date %v", c.lastMod, fi.ModTime().UTC(), c.set)
		}
		if !c.set && time.Since(fi.ModTime()) > time.Minute {
			t.Errorf("Last-Modified %q: file time %v, not the time it was written", c.lastMod, fi.ModTime().UTC())
		}
	}
}
