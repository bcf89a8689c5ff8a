package staticmod

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testfs"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// An atomic deploy switches the "current" symbolic link to a new release:
// the next requests (within about a second) are served from it, through
// try_files as well, as NGINX serves them at once; and when the name goes
// away, files answer 404.
func TestRootSymlinkSwitch(t *testing.T) {
	base := t.TempDir()
	for _, rel := range []string{"r1", "r2"} {
		dir := filepath.Join(base, "releases", rel)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "v.txt"), []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Only r2 has new.txt: try_files must find it after the switch.
	if err := os.WriteFile(filepath.Join(base, "releases", "r2", "new.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	cur := filepath.Join(base, "current")
	testfs.Relink(t, cur, "releases/r1")
	url := servertest.Start(t, fmt.Sprintf(`http { server { listen 127.0.0.1:0; root %s;
		location / { }
		location /tf/ { alias %s/; try_files $uri =418; }
	} }`, cur, cur))
	expect := func(path string, status int, body string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			resp, got := testclient.Get(t, url+path)
			if resp.StatusCode == status && (body == "" || got == body) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d %q, want %d %q", path, resp.StatusCode, got, status, body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	expect("/v.txt", 200, "r1")
	expect("/tf/v.txt", 200, "r1")
	expect("/tf/new.txt", 418, "")
	testfs.Relink(t, cur, "releases/r2")
	expect("/v.txt", 200, "r2")
	expect("/tf/v.txt", 200, "r2")
	expect("/tf/new.txt", 200, "new")
	if err := os.Remove(cur); err != nil {
		t.Fatal(err)
	}
	expect("/v.txt", 404, "")
	expect("/tf/v.txt", 418, "")
	// Once a request has found the root gone, the next ones, within the
	// second before its name is looked at again, find it gone too: the
	// handler forgets the root it used last, not only the map's entry.
	for range 5 {
		if resp, got := testclient.Get(t, url+"/v.txt"); resp.StatusCode != 404 {
			t.Fatalf("/v.txt after the root went away: %d %q, want 404", resp.StatusCode, got)
		}
	}
}

// A root with variables names another directory by request: requests
// that alternate between two roots, several at once, each get their own
// root's file (the handler's last-used entry is one key's, never
// another's), and a root that does not exist answers 404 between them.
func TestVariableRootsAlternate(t *testing.T) {
	base := t.TempDir()
	for _, rel := range []string{"r1", "r2"} {
		dir := filepath.Join(base, rel)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "v.txt"), []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	url := servertest.Start(t, fmt.Sprintf(`http { server { listen 127.0.0.1:0;
		location / { root %s/$arg_d; }
	} }`, base))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 30 {
				d := []string{"r1", "r2", "none"}[(g+i)%3]
				resp, got := testclient.Get(t, url+"/v.txt?d="+d)
				want, status := d, 200
				if d == "none" {
					want, status = "", 404
				}
				if resp.StatusCode != status || status == 200 && got != want {
					t.Errorf("d=%s: %d %q, want %d %q", d, resp.StatusCode, got, status, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
