package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefererMatchesNGINX sends the same Referers to Debian's NGINX and
// mosaic on the same valid_referers lists and compares $invalid_referer:
// none and blocked, server_names with a plain and a regex server name,
// the three wildcard forms, a path prefix, regexes, the scheme's case,
// ports, a trailing dot, a host too long to look up, inheritance by a
// nested location and an "if" block, and the classic hotlink location.
func TestRefererMatchesNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "img", "a.png"), "png")
	writeFile(t, filepath.Join(dir, "img", "a.txt"), "txt")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d; server_name s1.test "~^re\d+\.test$";
			root %s;
			valid_referers none blocked a.test;
			location /srv { return 200 "[$invalid_referer]"; }
			location /b {
				valid_referers server_names *.x.test x.* .dot.test b.test/p ~foo\.test/q;
				location /b/nested { return 200 "nested[$invalid_referer]"; }
				if ($invalid_referer) { return 200 "if[$invalid_referer]"; }
				return 200 "[$invalid_referer]";
			}
			location /c { valid_referers blocked c.test; valid_referers ~^r\.test; return 200 "[$invalid_referer]"; }
			location /d { valid_referers d.test; return 200 "[$invalid_referer]"; }
			location ~* \.(png|jpg)$ {
				valid_referers none blocked server_names *.example.com;
				if ($invalid_referer) { return 403; }
			}
		}
		server {
			listen 127.0.0.1:%[1]d; server_name other.test;
			location / { valid_referers server_names; return 200 "[$invalid_referer]"; }
		}`, port, filepath.Join(dir, "img"))
	})
	long := "http://" + strings.Repeat("a", 252) + ".x.test/"
	refs := []string{"", "http://a.test/", "http://b.test/", "junk", "http://short",
		"http://s1.test/", "http://re12.test/", "http://rex.test/", "http://y.x.test", "http://x.test/",
		"http://x.com/", "http://dot.test:8/", "http://a.dot.test/", "http://b.test/p", "http://b.test/px",
		"http://b.test", "http://b.test:80/pz", "http://b.test:80/P", "https://FOO.test/q1", "HTTP://B.TEST/p",
		"http://s1.test.", "http://x.", "ftp://s1.test/", "http://zz.test/foo.test/q", "http://c.test",
		"http://c.tes", "https://r.test/", "http://d.test/", "hTTpS://www.example.com/page",
		"http://example.com/", long, "http://a" + long[7:], "http://:80/", "http:///a.test"}
	for _, path := range []string{"/srv", "/b", "/b/nested", "/c", "/d", "/a.png", "/a.txt"} {
		for _, ref := range refs {
			head := "GET " + path + " HTTP/1.1\r\nHost: s1.test"
			if ref != "" {
				head += "\r\nReferer: " + ref
			}
			sameAnswer(t, mport, nport, head, "")
		}
	}
	// An empty field is a Referer (blocked); of two, the first counts.
	for _, path := range []string{"/srv", "/c", "/d"} {
		for _, fields := range []string{"Referer: ", "Referer: http://a.test/\r\nReferer: junk", "Referer: junk\r\nReferer: http://d.test/"} {
			sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: s1.test\r\n"+fields, "")
		}
	}
	for _, ref := range []string{"", "http://other.test/", "http://s1.test/"} {
		head := "GET / HTTP/1.1\r\nHost: other.test"
		if ref != "" {
			head += "\r\nReferer: " + ref
		}
		sameAnswer(t, mport, nport, head, "")
	}
}

// TestRefererErrorsMatchNGINX: the lines NGINX refuses, refused by mosaic
// with the same words and line. Two errors NGINX finds while merging,
// where it names the end of the server block or no line at all; mosaic
// names the valid_referers line.
func TestRefererErrorsMatchNGINX(t *testing.T) {
	t.Parallel()
	nginx := nginxPath(t)
	srv := "server {\nlisten 127.0.0.1:1; server_name s1.test;\nlocation / {\n"
	for _, c := range []struct{ line, want string }{
		{`valid_referers "";`, `invalid referer ""`},
		{`valid_referers ~;`, `empty regex in "~"`},
		{`valid_referers a*b;`, `invalid hostname or wildcard "a*b"`},
		{`valid_referers a.test A.test;`, `conflicting parameter "a.test"`},
		{`valid_referers ~(;`, `pcre2_compile() failed: missing closing parenthesis in "("`},
		{`referer_hash_max_size x;`, `"referer_hash_max_size" directive invalid number`},
		{"referer_hash_bucket_size 1;\nreferer_hash_bucket_size 2;", `"referer_hash_bucket_size" directive is duplicate`},
		{`valid_referers none; valid_referers x.test; referer_hash_max_size 4096;`, ""},
	} {
		checkBothT(t, nginx, "events {}\nhttp {\n"+srv+c.line+"\n}\n}\n}", c.want)
	}
	checkBothT(t, nginx, "events {}\nhttp {\nvalid_referers none;\n}", `"valid_referers" directive is not allowed here`)
	for _, c := range []struct{ line, want string }{
		{`valid_referers server_names s1.test;`, `conflicting parameter "s1.test"`},
		{`valid_referers none;`, `the "none" or "blocked" referers are specified in the "valid_referers" directive without any valid referer`},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "test.conf")
		writeFile(t, path, "pid "+dir+"/nginx.pid;\nerror_log "+dir+"/error.log;\nevents {}\nhttp {\n"+srv+c.line+"\n}\n}\n}\n")
		mout, _ := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		nout, _ := exec.Command(nginx, "-t", "-p", dir, "-c", path, "-e", filepath.Join(dir, "error.log")).CombinedOutput()
		if !strings.Contains(string(nout), "[emerg] "+c.want) {
			t.Errorf("%q: nginx said %s", c.line, nout)
		}
		if !strings.Contains(string(mout), "[emerg] "+c.want+" in "+path+":8") {
			t.Errorf("%q: mosaic said %s", c.line, mout)
		}
	}
}

// TestRefererEmptyServerNameMatchesNGINX: the empty name of a server
// without server_name (or with server_name "") is one of the names that
// "server_names" adds, as NGINX keeps it in the list: it is a valid
// referer that satisfies "none", and the Referers with an empty host are
// valid, the others not.
func TestRefererEmptyServerNameMatchesNGINX(t *testing.T) {
	nginx := nginxPath(t)
	checkBothT(t, nginx, "events {}\nhttp {\nserver {\nlisten 127.0.0.1:1;\nlocation / { valid_referers none server_names; }\n}\n}", "")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d; server_name "" e.test;
			location / { valid_referers server_names; return 200 "[$invalid_referer]"; }
			location /n { valid_referers none blocked server_names; return 200 "[$invalid_referer]"; }
		}`, port)
	})
	for _, path := range []string{"/", "/n"} {
		for _, ref := range []string{"", "http://e.test/", "http://x.test/", "http:///a.test", "http://:80/", "junk"} {
			head := "GET " + path + " HTTP/1.1\r\nHost: e.test"
			if ref != "" {
				head += "\r\nReferer: " + ref
			}
			sameAnswer(t, mport, nport, head, "")
		}
	}
}
