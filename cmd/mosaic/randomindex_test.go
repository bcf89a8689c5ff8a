package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestRandomIndexMatchesNGINX serves the same directories with
// random_index from Debian's NGINX and mosaic: every answer for the
// directory is one of its regular files (a symbolic link to one
// included), never a name starting with "." nor a subdirectory; a
// directory without such a file falls through to index (403 without
// one); a missing directory, a file named as a directory, one with a
// symbolic link that loops, a FIFO named as a directory (mosaic waited
// in open(2) for a writer, with no answer), POST and another method
// answer as NGINX's.
func TestRandomIndexMatchesNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	files := map[string]string{"a.txt": "A", "b.txt": "B", "c d.txt": "C D"}
	for name, body := range files {
		writeFile(t, filepath.Join(root, "r", name), body)
	}
	writeFile(t, filepath.Join(root, "r", ".hidden"), "HIDDEN")
	writeFile(t, filepath.Join(root, "r", "sub", "x.txt"), "SUB")
	if err := os.Symlink("a.txt", filepath.Join(root, "r", "link")); err != nil {
		t.Fatal(err)
	}
	files["link"] = "A"
	writeFile(t, filepath.Join(root, "dots", ".one"), "1")
	writeFile(t, filepath.Join(root, "dots", "sub", "x"), "x")
	writeFile(t, filepath.Join(root, "idx", ".one"), "1")
	writeFile(t, filepath.Join(root, "idx", "index.html"), "INDEX")
	// A symbolic link that cannot be followed for another reason than a
	// missing target fails the whole directory in NGINX (500); a
	// dangling one is skipped.
	writeFile(t, filepath.Join(root, "loop", "a.txt"), "A")
	writeFile(t, filepath.Join(root, "dangling", "a.txt"), "A")
	for link, to := range map[string]string{"loop/self": "self", "dangling/gone": "nowhere"} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d; root %s;
			location / { random_index on; add_header X-Args "[$args]"; }
			location /idx/ { random_index off; }
		}`, port, root)
	})
	for _, port := range []int{mport, nport} {
		got := map[string]bool{}
		for i := 0; i < 60; i++ {
			// The arguments go along with the redirect to the file.
			resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET /r/?q=1 HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
			ok := resp.StatusCode == 200 && (body == "A" || body == "B" || body == "C D") && resp.Header.Get("X-Args") == "[q=1]"
			if !ok {
				t.Fatalf("port %d: %d %q %v", port, resp.StatusCode, body, resp.Header)
			}
			got[body] = true
		}
		if len(got) < 3 {
			t.Errorf("port %d: only %v in 60 answers", port, got)
		}
	}
	for _, head := range []string{
		"GET /dots/ HTTP/1.1", "GET /idx/ HTTP/1.1", "GET /missing/ HTTP/1.1", "GET /r/a.txt/ HTTP/1.1",
		"HEAD /r/ HTTP/1.1", "POST /r/ HTTP/1.1\r\nContent-Length: 0", "DELETE /r/ HTTP/1.1", "GET /r/sub/ HTTP/1.1",
		"GET /loop/ HTTP/1.1", "GET /dangling/ HTTP/1.1", "GET /fifo/ HTTP/1.1",
	} {
		sameAnswer(t, mport, nport, head+"\r\nHost: a.test", "")
	}
}

// TestRandomIndexErrorsMatchNGINX: random_index takes on or off, in a
// location only.
func TestRandomIndexErrorsMatchNGINX(t *testing.T) {
	t.Parallel()
	nginx := nginxPath(t)
	srv := "events {}\nhttp {\nserver {\nlisten 127.0.0.1:1;\n"
	for _, c := range []struct{ conf, want string }{
		{srv + "location / {\nrandom_index x;\n}\n}\n}", `invalid value "x" in "random_index" directive, it must be "on" or "off"`},
		{srv + "location / {\nrandom_index;\n}\n}\n}", `invalid number of arguments in "random_index" directive`},
		{srv + "random_index on;\n}\n}", `"random_index" directive is not allowed here`},
		{srv + "location / {\nempty_gif x;\n}\n}\n}", `invalid number of arguments in "empty_gif" directive`},
		{srv + "empty_gif;\n}\n}", `"empty_gif" directive is not allowed here`},
		{srv + "location / {\nrandom_index on;\nlocation /a/ { random_index off; empty_gif; }\n}\n}\n}", ""},
	} {
		checkBothT(t, nginx, c.conf, c.want)
	}
}
