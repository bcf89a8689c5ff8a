package server

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// $document_root, $request_filename and $realpath_root as NGINX computes
// them: root without its last "/", alias with it, the prefix of an alias
// location replaced, a regular expression's alias alone; and after a
// try_files fallback and an error_page, those of the location that
// served last.
func TestPathVariables(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "www"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("www", filepath.Join(dir, "current")); err != nil {
		t.Fatal(err)
	}
	const vars = `"$document_root|$request_filename|$realpath_root|$uri|$args"`
	cfg := mustLoad(t, fmt.Sprintf(`http { server { listen 127.0.0.1:0; root %[1]s/www/;
		location /r/ { return 200 %[2]s; }
		location /a/ { alias %[1]s/current/; return 200 %[2]s; }
		location ~ ^/re/(.+)$ { alias %[1]s/www/$1; return 200 %[2]s; }
		location /vr/ { root %[1]s/$host; return 200 %[2]s; }
		location /tf/ { try_files /none /r/fallback; }
		location = /ep { error_page 404 /r/page?p=1; return 404; }
		location /rel/ { root rel/; return 200 %[2]s; }
		location /rela/ { alias rel/; return 200 %[2]s; }
	} }`, dir, vars))
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for uri, want := range map[string]string{
		"/r/x?q=1":  dir + "/www|" + dir + "/www/r/x|" + real + "/www|/r/x|q=1",
		"/a/b/c":    dir + "/current/|" + dir + "/current/b/c|" + real + "/www|/a/b/c|",
		"/re/f.txt": dir + "/www/f.txt|" + dir + "/www/f.txt||/re/f.txt|",
		"/vr/x":     dir + "/h.test|" + dir + "/h.test/vr/x||/vr/x|",
		"/tf/x?q=1": dir + "/www|" + dir + "/www/r/fallback|" + real + "/www|/r/fallback|",
		"/ep?q=2":   dir + "/www|" + dir + "/www/r/page|" + real + "/www|/r/page|p=1",
		// A fixed root, made once at load: relative ones from the
		// working directory, a root's last "/" dropped, an alias's kept.
		"/rel/x":  cwd + "/rel|" + cwd + "/rel/rel/x||/rel/x|",
		"/rela/x": cwd + "/rel/|" + cwd + "/rel/x||/rela/x|",
	} {
		_, got := serveText(t, cfg, "h.test", uri)
		if got != want {
			t.Errorf("%s: %q, want %q", uri, got, want)
		}
	}
}
