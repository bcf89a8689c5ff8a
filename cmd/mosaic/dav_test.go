package main

import (
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// davTree lists the files below dir: each path with its type, its
// permission and, for a file, its content.
func davTree(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", rel, fi.Mode())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %q", b)
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestDAVMatchesNGINX runs the same WebDAV requests, one after the
// other, against NGINX and mosaic, each writing below its own root:
// after each, the status, the Location, Content-Type, Connection and
// (for success) Content-Length fields, ports aside, and the whole tree
// must agree.
func TestDAVMatchesNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	dir := t.TempDir()
	roots := map[string]string{}
	for _, who := range []string{"nginx", "mosaic"} {
		root := filepath.Join(dir, who, "www")
		roots[who] = root
		writeFile(t, filepath.Join(root, "dav/old.txt"), "old")
		writeFile(t, filepath.Join(root, "dav/tree/a.txt"), "a")
		writeFile(t, filepath.Join(root, "dav/tree/sub/b.txt"), "b")
		writeFile(t, filepath.Join(root, "full/keep.txt"), "k")
		writeFile(t, filepath.Join(root, "ro/keep.txt"), "k")
		writeFile(t, filepath.Join(root, "aliased/a.txt"), "a")
		writeFile(t, filepath.Join(dir, who, "outside.txt"), "outside")
		for _, l := range []string{"link.txt", "link2.txt"} {
			if err := os.Symlink("../../outside.txt", filepath.Join(root, "dav", l)); err != nil {
				t.Fatal(err)
			}
		}
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		w := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d; root %s; client_body_temp_path %s;
			client_max_body_size 64;
			location /dav/ { dav_methods PUT DELETE MKCOL COPY MOVE; dav_access group:rw all:r; }
			location /full/ { dav_methods put delete; create_full_put_path on; min_delete_depth 3; }
			location /ro/ { dav_methods off; }
			location /al/ { alias %s/aliased/; dav_methods PUT MKCOL COPY MOVE DELETE; }
		}`, port, roots[w], filepath.Join(dir, w, "davbody"), roots[w])
	})
	steps := []struct{ head, body string }{
		{"PUT /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5", "hello"},
		// A chunked body that breaks its framing is answered 400.
		{"PUT /dav/badchunk.txt HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked", "zz\r\nabc\r\n0\r\n\r\n"},
		{"PUT /dav/badchunk2.txt HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked", "3\r\nabcXX0\r\n\r\n"},
		{"PUT /dav/old.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 3", "new"},
		{"PUT /dav/empty.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 0", ""},
		{"PUT /dav/chunked.txt HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked", "3\r\nabc\r\n0\r\n\r\n"},
		{"PUT /dav/dated.txt HTTP/1.1\r\nHost: a.test\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 1", "d"},
		{"PUT /dav/big.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 65", strings.Repeat("x", 65)},
		{"PUT /dav/big.txt HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked", "41\r\n" + strings.Repeat("x", 65) + "\r\n0\r\n\r\n"},
		{"PUT /dav/dir/ HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1", "x"},
		{"PUT /dav/tree HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1", "x"},
		{"PUT /dav/missing/x.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1", "x"},
		{"PUT /dav/old.txt/x HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1", "x"},
		{"PUT /dav/r.txt HTTP/1.1\r\nHost: a.test\r\nContent-Range: bytes 0-0/1\r\nContent-Length: 1", "x"},
		{"PUT /dav/sp%20a%22ce%3F%7B.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1", "s"},
		{"PUT /full/a/b/c.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1", "c"},
		{"PUT /ro/x.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1", "x"},
		{"MKCOL /full/x/ HTTP/1.1\r\nHost: a.test", ""},
		{"GET /dav/new.txt HTTP/1.1\r\nHost: a.test", ""},
		{"PUT /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nIf-Unmodified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 5", "hello"},
		{"PUT /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nIf-Match: \"x\"\r\nContent-Length: 5", "hello"},
		{"PUT /dav/new.txt HTTP/1.0\r\nContent-Length: 5", "hello"},
		{"PUT /dav/http10.txt HTTP/1.0\r\nContent-Length: 2", "10"},
		{"PUT /al/b.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1", "b"},
		// A Destination shorter than the alias's prefix is 400 (audit10).
		{"COPY /al/a.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /a", ""},
		{"COPY /al/a.txt HTTP/1.1\r\nHost: a.test\r\nDestination: http://a.test/al", ""},
		{"MOVE /al/b.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /x", ""},
		{"MKCOL /al/c/ HTTP/1.1\r\nHost: a.test", ""},
		{"COPY /al/a.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /al/c/a.txt", ""},
		{"MOVE /al/b.txt HTTP/1.1\r\nHost: a.test\r\nDestination: http://a.test/al/c/b.txt", ""},
		{"DELETE /al/c/ HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /al/a.txt HTTP/1.1\r\nHost: a.test\r\nDepth: infinity", ""},

		{"MKCOL /dav/col/ HTTP/1.1\r\nHost: a.test", ""},
		{"MKCOL /dav/col/ HTTP/1.1\r\nHost: a.test", ""},
		{"MKCOL /dav/col2 HTTP/1.1\r\nHost: a.test", ""},
		{"MKCOL /dav/no/col/ HTTP/1.1\r\nHost: a.test", ""},
		{"MKCOL /dav/old.txt/ HTTP/1.1\r\nHost: a.test", ""},
		{"MKCOL /dav/b/ HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1", "x"},

		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/copy.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/copy.txt\r\nOverwrite: F", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/copy.txt\r\nOverwrite: t", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/copy.txt\r\nOverwrite: x", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: http://a.test/dav/abs.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: http://a.test:99/dav/port.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: http://b.test/dav/other.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: https://a.test/dav/s.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: http://a.test", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/../outside2.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/%2e%2e/outside3.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/nul%00.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/enc%41.txt?x=1", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test", ""},
		{"COPY /dav/new.txt HTTP/1.0\r\nDestination: http://a.test/dav/h10.txt", ""},
		{"COPY /dav/new.txt HTTP/1.0\r\nDestination: /dav/h10.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: A.test\r\nDestination: http://a.test/dav/case.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: http://A.test/dav/case2.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: http://a.testing/dav/longer.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav//./dots.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/q.txt?", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/qd/?", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/x.txt\r\nDepth: Infinity", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/d1.txt\r\nDepth: 0", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/d1.txt\r\nDepth: 1", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/col/", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/col", ""},
		{"COPY /dav/nothere.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/n2.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/nodir/n.txt", ""},
		{"COPY /dav/tree/ HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/tree2/", ""},
		{"COPY /dav/tree HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/tree3", ""},
		{"COPY /dav/tree/ HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/tree2/\r\nOverwrite: F", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/c.txt\r\nContent-Length: 1", "x"},
		// audit10's hostile Destinations.
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/%2e%2e/%2e%2e/up.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/..%2fup.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/tree%2fy.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/..", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/.", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: //a.test/dav/pr.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: http://a.test@evil/dav/at.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: http://a.test/dav/%0d%0aX:y.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/back\\..\\slash.txt", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: ", ""},
		{"DELETE /dav/tree/a.txt/.. HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /dav/%2e%2e/dav HTTP/1.1\r\nHost: a.test", ""},

		{"MOVE /dav/copy.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/moved.txt", ""},
		{"MOVE /dav/moved.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/deep/er/moved.txt", ""},
		{"MOVE /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/abs.txt\r\nOverwrite: F", ""},
		{"MOVE /dav/tree2/ HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/tree4/\r\nDepth: 0", ""},
		{"MOVE /dav/tree2/ HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/tree4/", ""},
		{"MOVE /dav/tree4/ HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/col/", ""},

		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/copy.txt", ""},
		{"COPY /dav/tree/ HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/copy.txt/", ""},
		{"COPY /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/col/", ""},
		{"PUT /dav/link.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1", "l"},
		{"MOVE /dav/link2.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /dav/link3.txt", ""},
		{"DELETE /dav/abs.txt HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /dav/abs.txt HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /dav/new.txt/ HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDepth: 1", ""},
		{"DELETE /dav/new.txt HTTP/1.1\r\nHost: a.test\r\nDepth: infinity", ""},
		{"DELETE /dav/tree HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /dav/tree/ HTTP/1.1\r\nHost: a.test\r\nDepth: 0", ""},
		{"DELETE /dav/tree/ HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /dav/link3.txt HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /dav/empty.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1", "x"},
		{"DELETE /dav/empty.txt HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked", "1\r\nx\r\n0\r\n\r\n"},
		{"MKCOL /dav/chunk/ HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked", "0\r\n\r\n"},
		{"DELETE /full/keep.txt HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /full/a/b/c.txt HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /full/a/ HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /ro/keep.txt HTTP/1.1\r\nHost: a.test", ""},
		{"DELETE /dav/ HTTP/1.1\r\nHost: a.test\r\nDepth: 1", ""},
	}
	for _, s := range steps {
		req := s.head + "\r\nConnection: close\r\n\r\n" + s.body
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
		line := strings.SplitN(s.head, "\r\n", 2)[0]
		if m.StatusCode != n.StatusCode || m.StatusCode < 300 && mb != nb {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", line, m.StatusCode, mb, n.StatusCode, nb)
		}
		// Content-Length only where there is no error page, which names
		// each server; Allow is static's (its 405 names the methods).
		for _, f := range []string{"Location", "Content-Length", "Content-Type", "Connection"} {
			mv := strings.ReplaceAll(m.Header.Get(f), fmt.Sprint(mport), "PORT")
			nv := strings.ReplaceAll(n.Header.Get(f), fmt.Sprint(nport), "PORT")
			if mv != nv && (f != "Content-Length" || m.StatusCode < 300) {
				t.Errorf("%s: %s: mosaic %q, nginx %q", line, f, mv, nv)
			}
		}
		if mt, nt := davTree(t, roots["mosaic"]), davTree(t, roots["nginx"]); mt != nt {
			t.Fatalf("%s: the trees differ:\nmosaic:\n%s\nnginx:\n%s", line, mt, nt)
		}
		if m.StatusCode == http.StatusNoContent && mb != "" {
			t.Errorf("%s: a 204 with a body %q", line, mb)
		}
	}
	// A client that stops in the middle of its body leaves no file, and
	// gets no answer.
	for _, port := range []int{mport, nport} {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(c, "PUT /dav/partial.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 10\r\n\r\nabc")
		c.(*net.TCPConn).CloseWrite()
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if b, _ := io.ReadAll(c); len(b) != 0 {
			t.Errorf("%d: a broken PUT answered %q", port, b)
		}
		c.Close()
	}
	if mt, nt := davTree(t, roots["mosaic"]), davTree(t, roots["nginx"]); mt != nt || strings.Contains(mt, "partial") {
		t.Errorf("after a broken PUT:\nmosaic:\n%s\nnginx:\n%s", mt, nt)
	}
	// The dated PUT's file has the client's Date as its time.
	for who, root := range roots {
		fi, err := os.Stat(filepath.Join(root, "dav/dated.txt"))
		if err != nil || fi.ModTime().Unix() != 784111777 {
			t.Errorf("%s: dated.txt: %v %v", who, fi, err)
		}
	}
}

// TestDAVDirectiveErrorsMatchNGINX: the WebDAV directives' bad lines are
// refused with NGINX's words, at the same line.
func TestDAVDirectiveErrorsMatchNGINX(t *testing.T) {
	t.Parallel()
	nginx := nginxPath(t)
	srv := "events {}\nhttp {\nserver {\nlisten 127.0.0.1:1;\nlocation / {\n"
	for _, c := range []struct{ line, want string }{
		{`dav_methods PUT GET;`, `invalid value "GET"`},
		{`dav_methods off; dav_methods put Put;`, ""},
		{`dav_methods;`, `invalid number of arguments in "dav_methods" directive`},
		{`dav_access user:rw group:x;`, `invalid value "group:x"`},
		{`dav_access users:rw;`, `invalid value "users:rw"`},
		{`dav_access User:rw;`, `invalid value "User:rw"`},
		{`dav_access all:r; dav_access all:r;`, `"dav_access" directive is duplicate`},
		{`dav_access user:r group:r all:r all:rw;`, `invalid number of arguments in "dav_access" directive`},
		{`dav_access user:r group:r all:r;`, ""},
		{`min_delete_depth -1;`, `"min_delete_depth" directive invalid number`},
		{`min_delete_depth 2; min_delete_depth 3;`, `"min_delete_depth" directive is duplicate`},
		{`create_full_put_path yes;`, `invalid value "yes" in "create_full_put_path" directive, it must be "on" or "off"`},
		{`create_full_put_path on; create_full_put_path on;`, `"create_full_put_path" directive is duplicate`},
	} {
		checkBothT(t, nginx, srv+c.line+"\n}\n}\n}", c.want)
	}
	checkBothT(t, nginx, srv+"if ($arg_x) { dav_methods PUT; }\n}\n}\n}", `"dav_methods" directive is not allowed here`)
}

// TestDAVInheritedAsNGINX: dav_methods set for the server reaches its
// locations; "off" in one turns them off there, and the static files
// answer the methods dav does not take.
func TestDAVInheritedAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "www/a/f.txt"), "f")
		writeFile(t, filepath.Join(dir, who, "www/b/f.txt"), "f")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		w := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d; root %s; dav_methods DELETE MKCOL;
			location /a/ { }
			location /b/ { dav_methods off; }
		}`, port, filepath.Join(dir, w, "www"))
	})
	reqs := []string{
		"PUT /a/x.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1",
		"POST /a/f.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1",
		"MKCOL /b/c/ HTTP/1.1\r\nHost: a.test",
		"DELETE /b/f.txt HTTP/1.1\r\nHost: a.test",
		"MKCOL /a/c/ HTTP/1.1\r\nHost: a.test",
		"DELETE /a/f.txt HTTP/1.1\r\nHost: a.test",
		"DELETE /a/f.txt HTTP/1.1\r\nHost: a.test",
		"GET /b/f.txt HTTP/1.1\r\nHost: a.test",
	}
	sameDAVAnswers(t, mport, nport, dir, "www", reqs)
}

// TestDAVAliasDirectoryKept: an alias written without its trailing
// slash names the location's directory as a name in its parent; a DELETE
// of the location's URI, or a MOVE onto it, is still refused (403) and
// the directory kept, as with "root" or an alias that ends in "/"; and
// no link in it leads to a directory beside it. So in a regex location
// inside the alias's location, which inherits the alias with its prefix.
func TestDAVAliasDirectoryKept(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "data/a.txt"), "a")
	writeFile(t, filepath.Join(dir, "data/sub/b.txt"), "b")
	writeFile(t, filepath.Join(dir, "other/c.txt"), "c")
	if err := os.Symlink("../other", filepath.Join(dir, "data/up")); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`events {} http { server {
		listen 127.0.0.1:{port};
		location /al { alias %[1]s/data; dav_methods DELETE MOVE; }
		location /nr { alias %[1]s/data; location ~ ^/nr { dav_methods DELETE MOVE; } }
	} }`, dir), port)
	for _, req := range []string{
		"DELETE /al/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
		"MOVE /al/sub/ HTTP/1.1\r\nHost: a.test\r\nDestination: /al/\r\n\r\n",
		"DELETE /al/up/c.txt HTTP/1.1\r\nHost: a.test\r\n\r\n",
		"DELETE /nr/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
		"MOVE /nr/sub/ HTTP/1.1\r\nHost: a.test\r\nDestination: /nr/\r\n\r\n",
		"DELETE /nr/up/c.txt HTTP/1.1\r\nHost: a.test\r\n\r\n",
	} {
		status, _, _, _ := mirrorAsk(t, port, strings.Replace(req, "\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1))
		if status != http.StatusForbidden {
			t.Errorf("%q: status %d, want 403", req, status)
		}
		if _, err := os.Stat(filepath.Join(dir, "data/a.txt")); err != nil {
			t.Fatalf("%q: the alias directory's file: %v", req, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "other/c.txt")); err != nil {
			t.Fatalf("%q: the file beside the alias directory: %v", req, err)
		}
	}
}

// TestDAVNestedAliasAsNGINX: WebDAV in a location inside an alias's
// location writes where the static files are read: the alias replaces
// the declaring location's prefix, so PUT /al/sub/x.txt makes
// www/sub/x.txt, as in NGINX, and not www/x.txt; so with an alias
// written without its trailing slash (/ns/sub/x.txt is wwwsub/x.txt,
// bounded by the alias's parent). A regex location's alias is the whole
// path in its limit_except block too, and with create_full_put_path
// makes the directories its capture names (bounded by the alias's
// literal directory, not the file's own, which did not exist: 500). So
// is a directory it names (a value ending in "/"): MKCOL makes it and
// DELETE removes it, as NGINX does (bounded by that directory itself,
// the root to open was missing, 409, or was the root, 403). A
// Destination that climbs with ".." is refused.
func TestDAVNestedAliasAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "data", "www/sub/a.txt"), "a")
		writeFile(t, filepath.Join(dir, who, "data", "www/a.txt"), "top a")
		writeFile(t, filepath.Join(dir, who, "data", "wwwsub/a.txt"), "beside a")
		writeFile(t, filepath.Join(dir, who, "data", "secret.txt"), "secret")
		writeFile(t, filepath.Join(dir, who, "data", "www/old/o.txt"), "old")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		w := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "data")
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location /al/ { alias %[2]s/www/;
				location /al/sub/ { dav_methods PUT DELETE MKCOL COPY MOVE; }
			}
			location /ns/ { alias %[2]s/www;
				location /ns/sub/ { dav_methods PUT DELETE; }
			}
			location ~ ^/re/(.+)$ { alias %[2]s/www/$1; dav_methods PUT DELETE MKCOL;
				limit_except GET { allow all; }
			}
			location ~ ^/rf/(.+)$ { alias %[2]s/www/$1; dav_methods PUT; create_full_put_path on; }
		}`, port, w)
	})
	reqs := []string{
		"PUT /al/sub/x.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1",
		"MKCOL /al/sub/c/ HTTP/1.1\r\nHost: a.test",
		"COPY /al/sub/a.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /al/sub/c/b.txt",
		"MOVE /al/sub/x.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /al/sub/y.txt",
		"COPY /al/sub/a.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /al/sub/..%2f..%2fsecret.txt",
		// Shorter than /al/sub/ but not than /al/, the prefix the alias
		// replaces: NGINX's check (9739e75) takes the declaring one's.
		"COPY /al/sub/a.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /al/z",
		"COPY /al/sub/a.txt HTTP/1.1\r\nHost: a.test\r\nDestination: /al",
		"DELETE /al/sub/a.txt HTTP/1.1\r\nHost: a.test",
		"PUT /ns/sub/x.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1",
		"DELETE /ns/sub/a.txt HTTP/1.1\r\nHost: a.test",
		"PUT /al/sub/..%2f..%2fsecret.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1",
		"PUT /re/sub/r.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1",
		"DELETE /re/a.txt HTTP/1.1\r\nHost: a.test",
		"PUT /rf/new/deep/n.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1",
		"MKCOL /re/newc/ HTTP/1.1\r\nHost: a.test",
		"DELETE /re/old/ HTTP/1.1\r\nHost: a.test",
	}
	sameDAVAnswers(t, mport, nport, dir, "data", reqs)
}

// sameDAVAnswers sends each request to both servers, with a one-byte
// body where it says "Content-Length: 1", compares the answers, then the
// trees below DIR/mosaic/sub and DIR/nginx/sub that they wrote.
func sameDAVAnswers(t *testing.T, mport, nport int, dir, sub string, reqs []string) {
	t.Helper()
	for _, c := range reqs {
		body := ""
		if strings.Contains(c, "Content-Length: 1") {
			body = "x"
		}
		sameAnswer(t, mport, nport, c, body)
	}
	if mt, nt := davTree(t, filepath.Join(dir, "mosaic", sub)), davTree(t, filepath.Join(dir, "nginx", sub)); mt != nt {
		t.Errorf("the trees differ:\nmosaic:\n%s\nnginx:\n%s", mt, nt)
	}
}
