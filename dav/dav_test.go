package dav

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// site makes dir/www (the root) and dir/secret (outside it, with a
// file), and a handler for every method below the root.
func site(t *testing.T) (h *Handler, root, secret string) {
	t.Helper()
	dir := t.TempDir()
	root, secret = filepath.Join(dir, "www"), filepath.Join(dir, "secret")
	for _, d := range []string{root, secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(secret, "key"), "secret")
	write(t, filepath.Join(root, "f.txt"), "f")
	for name, to := range map[string]string{"out": "../secret", "key": "../secret/key"} {
		if err := os.Symlink(to, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	h = New(Options{
		Methods:  Put | Delete | Mkcol | Copy | Move,
		Path:     func(r *http.Request, uri string) (string, string) { return root, uri },
		TempFile: func() (*os.File, error) { return os.CreateTemp(dir, "body-") },
	})
	return h, root, secret
}

func write(t *testing.T, name, s string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func do(h http.Handler, method, target, body string, hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if body == "" {
		r.Body, r.ContentLength = http.NoBody, 0
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestNothingOutsideTheRoot: no method reads, writes or removes a file
// outside the root, whether through a link, "..", an escape or a NUL in
// the Destination.
func TestNothingOutsideTheRoot(t *testing.T) {
	h, root, secret := site(t)
	for _, c := range []struct {
		method, target, body string
		hdr                  []string
		want                 int
	}{
		{"PUT", "/out/new", "x", nil, http.StatusInternalServerError},
		{"MKCOL", "/out/d/", "", nil, http.StatusForbidden},
		{"DELETE", "/out/key", "", nil, http.StatusForbidden},
		{"DELETE", "/out/", "", nil, http.StatusForbidden},
		{"COPY", "/key", "", []string{"Destination", "/stolen"}, http.StatusForbidden},
		{"COPY", "/f.txt", "", []string{"Destination", "/out/key"}, http.StatusForbidden},
		{"MOVE", "/f.txt", "", []string{"Destination", "/out/moved"}, http.StatusForbidden},
		{"COPY", "/f.txt", "", []string{"Destination", "/../secret/x"}, http.StatusBadRequest},
		{"COPY", "/f.txt", "", []string{"Destination", "/%2e%2e/secret/x"}, http.StatusBadRequest},
		{"COPY", "/f.txt", "", []string{"Destination", "/x%00y"}, http.StatusBadRequest},
		{"COPY", "/f.txt", "", []string{"Destination", "http://example.com/../secret/x"}, http.StatusBadRequest},
		{"DELETE", "/", "", nil, http.StatusForbidden},
		{"COPY", "/f.txt/", "", []string{"Destination", "/"}, http.StatusForbidden},
	} {
		w := do(h, c.method, c.target, c.body, c.hdr...)
		if w.Code != c.want {
			t.Errorf("%s %s %v: %d, want %d", c.method, c.target, c.hdr, w.Code, c.want)
		}
	}
	entries, _ := os.ReadDir(secret)
	if len(entries) != 1 || entries[0].Name() != "key" {
		t.Errorf("the directory outside holds %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(secret, "key")); string(b) != "secret" {
		t.Errorf("the file outside holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "stolen")); err == nil {
		t.Error("the file outside was copied in")
	}
	// A link replaced by a PUT is the link, not what it names.
	if w := do(h, "PUT", "/key", "mine"); w.Code != http.StatusNoContent {
		t.Errorf("PUT over a link: %d", w.Code)
	}
	if b, _ := os.ReadFile(filepath.Join(secret, "key")); string(b) != "secret" {
		t.Errorf("the file outside holds %q", b)
	}
}

// failing is a body that breaks off after some bytes, as a client that
// goes away does.
type failing struct{ n int }

func (f *failing) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("connection reset")
	}
	n := min(len(p), f.n)
	for i := range n {
		p[i] = 'x'
	}
	f.n -= n
	return n, nil
}

// TestPartialBodyNeverVisible: a PUT whose body breaks off leaves the
// old file whole and no temporary file behind; one too large is 413.
func TestPartialBodyNeverVisible(t *testing.T) {
	h, root, _ := site(t)
	dir := filepath.Dir(root)
	r := httptest.NewRequest("PUT", "/f.txt", io.NopCloser(&failing{n: 10}))
	func() {
		defer func() {
			if v := recover(); v != http.ErrAbortHandler {
				t.Errorf("broken body: %v, want the request aborted", v)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), r)
	}()
	r = httptest.NewRequest("PUT", "/f.txt", strings.NewReader("too long"))
	w := httptest.NewRecorder()
	r.Body = http.MaxBytesReader(w, r.Body, 3)
	h.ServeHTTP(w, r)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("large body: %d", w.Code)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(b) != "f" {
		t.Errorf("f.txt holds %q", b)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "body-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// TestAccessAndOtherMethods: dav_access's permissions for files and the
// directories made for them; the methods not handled go to Next.
func TestAccessAndOtherMethods(t *testing.T) {
	h, root, _ := site(t)
	h.o.Access, h.o.CreateFullPutPath = 0o664, true
	h.o.Methods &^= Delete
	h.o.Next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(299) })
	if w := do(h, "PUT", "/a/b/c.txt", "c"); w.Code != http.StatusCreated || w.Header().Get("Location") != "/a/b/c.txt" {
		t.Fatalf("PUT: %d %v", w.Code, w.Header())
	}
	for name, want := range map[string]os.FileMode{"a/b/c.txt": 0o664, "a": os.ModeDir | 0o775, "a/b": os.ModeDir | 0o775} {
		fi, err := os.Stat(filepath.Join(root, name))
		// The directories' permissions pass through the umask.
		if err != nil || fi.Mode()&^0o022 != want&^0o022 {
			t.Errorf("%s: %v %v, want %v", name, fi.Mode(), err, want)
		}
	}
	if w := do(h, "DELETE", "/f.txt", ""); w.Code != 299 {
		t.Errorf("DELETE went to %d", w.Code)
	}
	if w := do(h, "GET", "/f.txt", ""); w.Code != 299 {
		t.Errorf("GET went to %d", w.Code)
	}
}

// TestCopyMoveOverlapRefused (audit10): as NGINX 1.31's
// ngx_http_dav_validate_paths, a COPY or MOVE onto its own source, or of
// a collection into itself or onto a collection that holds it, is
// refused with 403 before anything is touched: deleting the destination
// would delete the source (MOVE /d/e/ onto /d/ emptied /d/), or the copy
// would copy itself.
func TestCopyMoveOverlapRefused(t *testing.T) {
	h, root, _ := site(t)
	if err := os.MkdirAll(filepath.Join(root, "d/e"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "d/e/g.txt"), "g")
	before := tree(t, root)
	for _, c := range []struct{ method, uri, dest string }{
		{"COPY", "/d/", "/d/"}, {"COPY", "/d/", "/d/e/x/"}, {"MOVE", "/d/", "/d/x/"},
		{"MOVE", "/d/e/", "/d/"}, {"COPY", "/d/e/", "/d/"}, {"MOVE", "/d/e/", "/"},
		{"COPY", "/f.txt", "/f.txt"}, {"MOVE", "/f.txt", "//f.txt"}, {"MOVE", "/d/e/", "/d//e/"},
	} {
		if w := do(h, c.method, c.uri, "", "Destination", c.dest); w.Code != http.StatusForbidden {
			t.Errorf("%s %s to %s: %d", c.method, c.uri, c.dest, w.Code)
		}
		if after := tree(t, root); after != before {
			t.Fatalf("%s %s to %s changed the tree:\n%s\nwas:\n%s", c.method, c.uri, c.dest, after, before)
		}
	}
	// A sibling whose name starts with the source's is no overlap.
	if w := do(h, "COPY", "/d/e/", "", "Destination", "/d/e2/"); w.Code != http.StatusCreated {
		t.Errorf("COPY /d/e/ to /d/e2/: %d", w.Code)
	}
}

// tree lists the paths below root with each file's content.
func tree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(p)
		if d.Type().IsRegular() {
			c, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", c)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// FuzzDestination: whatever the Destination, the path it gives holds no
// NUL and no ".." segment, and reading it never panics.
func FuzzDestination(f *testing.F) {
	for _, s := range []string{"/a", "http://h.test/a", "http://h.test:1/a/", "https://h.test/a", "http://h.testx/a", "/%2e%2e/a", "/a%00", "", "http://", "/a?b"} {
		f.Add(s)
	}
	h := New(Options{Path: func(*http.Request, string) (string, string) { return "/nonexistent", "" }})
	f.Fuzz(func(t *testing.T, dest string) {
		r := httptest.NewRequest("COPY", "http://h.test/a", nil)
		r.Header["Destination"] = []string{dest}
		uri, _, code := h.destination(r)
		if code != 0 {
			return
		}
		if !strings.HasPrefix(uri, "/") || strings.IndexByte(uri, 0) >= 0 || strings.Contains(uri+"/", "/../") {
			t.Fatalf("%q gave %q", dest, uri)
		}
	})
}

// TestDestinationRules: the scheme is the connection's, the host part
// must start with the request's host (lowercased, without its port), and
// a path must follow it.
func TestDestinationRules(t *testing.T) {
	h := New(Options{Path: func(*http.Request, string) (string, string) { return "/nonexistent", "" }})
	for _, c := range []struct {
		host, dest string
		tls        bool
		uri        string
	}{
		{"h.test", "/a%20b", false, "/a b"},
		{"h.test:8080", "http://h.test/a", false, "/a"},
		{"H.test", "http://h.test:1/a", false, "/a"},
		{"h.test", "http://h.testing/a", false, "/a"},
		{"h.test", "https://h.test/a", true, "/a"},
		{"h.test", "https://h.test/a", false, ""},
		{"h.test", "http://h.test/a", true, ""},
		{"h.test", "http://H.test/a", false, ""},
		{"h.test", "http://h.test", false, ""},
		{"", "http://h.test/a", false, ""},
		{"h.test", "h.test/a", false, ""},
	} {
		r := httptest.NewRequest("COPY", "/x", nil)
		r.Host = c.host
		if !c.tls {
			r.TLS = nil
		} else if r.TLS == nil {
			r.TLS = &tls.ConnectionState{}
		}
		r.Header.Set("Destination", c.dest)
		uri, _, code := h.destination(r)
		if uri != c.uri || (code == 0) != (c.uri != "") {
			t.Errorf("%q %q tls %v: %q %d, want %q", c.host, c.dest, c.tls, uri, code, c.uri)
		}
	}
}

// TestAliasShortDestination (audit10): in a location whose alias
// replaces a prefix of AliasPrefix bytes, a Destination shorter than the
// prefix names nothing below the alias and is refused with 400, as NGINX
// (1.29.7, Debian's 1.22.1 patched) refuses it; a shorter one with the
// wrong shape is still a 409 first.
func TestAliasShortDestination(t *testing.T) {
	h, root, _ := site(t)
	h.o.AliasPrefix = len("/alias/")
	before := tree(t, root)
	for _, c := range []struct {
		dest string
		code int
	}{{"/al", http.StatusBadRequest}, {"/alias", http.StatusBadRequest}, {"http://example.com/x", http.StatusBadRequest}, {"/a/", http.StatusConflict}} {
		r := httptest.NewRequest("COPY", "/alias/f.txt", nil)
		r.Header.Set("Destination", c.dest)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.code {
			t.Errorf("Destination %s: %d, want %d", c.dest, w.Code, c.code)
		}
	}
	if after := tree(t, root); after != before {
		t.Errorf("the tree changed:\n%s\nwas:\n%s", after, before)
	}
}

// TestCopyMoveOverlapThroughLinkRefused (audit10): a symbolic link
// inside the root (ld -> d) hides the overlap from the paths: COPY /d/
// onto /ld/x/ copied d into itself level after level (1,280 levels in
// two minutes, os.Root resolving each from the root), and MOVE /d/e2/
// onto /ld/e2/, the same directory, deleted the source with the
// destination; a link to the root (lr -> .) puts the root on every
// path's way. The directories on the way are compared by identity; a
// link as the destination itself is only replaced, which harms nothing.
func TestCopyMoveOverlapThroughLinkRefused(t *testing.T) {
	h, root, _ := site(t)
	if err := os.MkdirAll(filepath.Join(root, "d/e"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "d/e/g.txt"), "g")
	if err := os.Symlink("d", filepath.Join(root, "ld")); err != nil {
		t.Fatal(err)
	}
	// A link to the root itself: the root is on every path's way.
	if err := os.Symlink(".", filepath.Join(root, "lr")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, root)
	for _, c := range []struct{ method, uri, dest string }{
		{"MOVE", "/d/e/", "/d/e2/"}, // not refused: put back below
		{"MOVE", "/ld/e2/", "/d/"}, {"MOVE", "/ld/e2/", "/ld/"}, {"MOVE", "/d/e2/", "/ld/e2/"},
		{"COPY", "/ld/", "/d/x/"}, {"COPY", "/d/", "/ld/x/"}, {"MOVE", "/d/", "/ld/e2/y/"},
		{"COPY", "/lr/", "/x/"}, {"COPY", "/lr/", "/d/x/"}, {"MOVE", "/lr/", "/d/x/"},
	} {
		done := make(chan int, 1)
		go func() { done <- do(h, c.method, c.uri, "", "Destination", c.dest).Code }()
		var code int
		select {
		case code = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s %s to %s: no answer in 20s", c.method, c.uri, c.dest)
		}
		if c.dest == "/d/e2/" {
			if code != http.StatusCreated {
				t.Fatalf("%s %s to %s: %d", c.method, c.uri, c.dest, code)
			}
			continue
		}
		if code != http.StatusForbidden {
			t.Errorf("%s %s to %s: %d, want 403", c.method, c.uri, c.dest, code)
		}
	}
	if w := do(h, "MOVE", "/d/e2/", "", "Destination", "/d/e/"); w.Code != http.StatusCreated {
		t.Fatalf("MOVE back: %d", w.Code)
	}
	if after := tree(t, root); after != before {
		t.Errorf("the tree changed:\n%s\nwas:\n%s", after, before)
	}
	// A link as the destination is replaced, not followed: harmless.
	if w := do(h, "COPY", "/d/", "", "Destination", "/ld/"); w.Code != http.StatusCreated {
		t.Errorf("COPY /d/ onto the link /ld/: %d", w.Code)
	}
}
