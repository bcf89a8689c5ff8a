package main

import (
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/securelink"
)

// TestSecureLinkMatchesNGINX sends the same links to Debian's NGINX and
// mosaic and compares $secure_link and $secure_link_expires: valid,
// expired and tampered hashes, bad expiry times, padding, the standard
// base64 alphabet, non-canonical last characters, lengths NGINX refuses,
// a location without secure_link_md5, inheritance, the usual 403/410
// gate, and the secure_link_secret form.
func TestSecureLinkMatchesNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d;
			secure_link_md5 "$secure_link_expires$uri secret";
			location /s/ {
				secure_link $arg_md5,$arg_expires;
				return 200 "[$secure_link][$secure_link_expires]";
			}
			location /first/ {
				secure_link $arg_md5,$arg_expires;
				return 200 "[$secure_link_expires][$secure_link]";
			}
			location /n/ {
				secure_link $arg_md5;
				secure_link_md5 "$uri secret";
				return 200 "[$secure_link][$secure_link_expires]";
			}
			location /gate/ {
				secure_link $arg_md5,$arg_expires;
				if ($secure_link = "") { return 403; }
				if ($secure_link = "0") { return 410; }
				return 200 "ok";
			}
			location /p/ {
				secure_link_secret word;
				return 200 "[$secure_link]";
				location /p/in/ { return 200 "in[$secure_link]"; }
			}
			location /none/ { return 200 "[$secure_link][$secure_link_expires]"; }
		}`, port)
	})
	now := time.Now().Unix()
	future, past := strconv.FormatInt(now+3600, 10), strconv.FormatInt(now-3600, 10)
	sign := func(exp, uri string) string { return securelink.Hash(exp + uri + " secret") }
	// A path whose hash holds "-" or "_", to try it in the standard
	// alphabet.
	var urlPath, urlHash string
	for i := 0; ; i++ {
		urlPath = fmt.Sprintf("/s/f%d", i)
		if urlHash = sign(future, urlPath); strings.ContainsAny(urlHash, "-_") {
			break
		}
	}
	std := strings.NewReplacer("-", "+", "_", "/").Replace(urlHash)
	good := sign(future, "/s/a")
	// The last of 22 characters carries 2 bits of the hash and 4 that
	// NGINX ignores.
	last := good[len(good)-1]
	alphabet := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	loose := good[:21] + string(alphabet[strings.IndexByte(alphabet, last)^1])
	tampered := good[:5] + string(alphabet[(strings.IndexByte(alphabet, good[5])+1)%64]) + good[6:]
	q := func(md5, exp string) string {
		return "?md5=" + url.QueryEscape(md5) + "&expires=" + url.QueryEscape(exp)
	}
	targets := []string{
		"/s/a" + q(good, future),
		"/s/a" + q(sign(past, "/s/a"), past),
		"/s/b" + q(good, future),
		"/s/a" + q(good, past),
		"/s/a" + q(tampered, future),
		"/s/a" + q(loose, future),
		"/s/a" + q(good+"==", future),
		"/s/a" + q(good+"=x", future),
		"/s/a" + q(good+"=xy", future),
		"/s/a" + q(good+"A", future),
		"/s/a" + q(good[:21], future),
		"/s/a" + q(good[:20], future),
		"/s/a" + q("", future),
		"/s/a" + q(good, "0"),
		"/s/a" + q(good, "abc"),
		"/s/a" + q(good, ""),
		"/s/a" + q(good, "-5"),
		"/s/a" + q(good, "+5"),
		"/s/a" + q(good, "99999999999999999999"),
		"/s/a" + q(good, "9223372036854775807"),
		"/s/a" + q(good, future+","+future),
		"/s/a?md5=" + good,
		"/s/a",
		urlPath + q(urlHash, future),
		urlPath + q(std, future),
		"/first/a" + q(sign(future, "/first/a"), future),
		"/n/a?md5=" + securelink.Hash("/n/a secret"),
		"/n/a?md5=" + securelink.Hash("/n/a secret") + "%2C" + future,
		"/n/a?md5=" + good,
		"/gate/a" + q(sign(future, "/gate/a"), future),
		"/gate/a" + q(sign(past, "/gate/a"), past),
		"/gate/a" + q(good, future),
		"/none/a" + q(good, future),
		"/p/" + securelink.SecretHash("link/x.zip", "word") + "/link/x.zip",
		"/p/" + strings.ToUpper(securelink.SecretHash("link/x.zip", "word")) + "/link/x.zip",
		"/p/" + securelink.SecretHash("x.zip?a=1", "word") + "/x.zip?a=1",
		"/p/" + securelink.SecretHash("x.zip", "word") + "/x.zip?a=1",
		"/p/" + securelink.SecretHash("x.zip", "other") + "/x.zip",
		"/p/" + securelink.SecretHash("", "word") + "/",
		"/p/" + securelink.SecretHash("x", "word")[:31] + "/x",
		"/p/" + securelink.SecretHash("x", "word")[:31] + "g/x",
		"/p/in/" + securelink.SecretHash("x", "word") + "/x",
		"/p/",
		"/p/abc",
	}
	for _, target := range targets {
		sameAnswer(t, mport, nport, "GET "+target+" HTTP/1.1\r\nHost: a.test", "")
	}
	// Both could agree on nothing: these answers are known.
	for i, want := range map[int]string{0: "[1][" + future + "]", 1: "[0][" + past + "]", 4: "[][" + future + "]", 33: "[link/x.zip]"} {
		_, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), "GET "+targets[i]+" HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
		if body != want {
			t.Errorf("%s: nginx %q, want %q", targets[i], body, want)
		}
	}
}

// TestSecureLinkErrorsMatchNGINX: the refusals of NGINX, with its words.
// Mixing secure_link_secret with the others is found while merging,
// where NGINX names the end of the block and mosaic the
// secure_link_secret line.
func TestSecureLinkErrorsMatchNGINX(t *testing.T) {
	t.Parallel()
	nginx := nginxPath(t)
	srv := "server {\nlisten 127.0.0.1:1;\nlocation / {\n"
	for _, c := range []struct{ line, want string }{
		{"secure_link a b;", `invalid number of arguments in "secure_link" directive`},
		{"secure_link_secret a;\nsecure_link_secret b;", `"secure_link_secret" directive is duplicate`},
		{"secure_link_md5 a;\nsecure_link_md5 b;", `"secure_link_md5" directive is duplicate`},
		{"secure_link $arg_a;\nsecure_link_md5 $uri;", ""},
	} {
		checkBothT(t, nginx, "events {}\nhttp {\n"+srv+c.line+"\n}\n}\n}", c.want)
	}
	checkBothT(t, nginx, "events {}\nhttp {\nsecure_link_secret a;\n"+srv+"secure_link_md5 $uri;\n}\n}\n}", "")
	dir := t.TempDir()
	path := filepath.Join(dir, "test.conf")
	writeFile(t, path, "pid "+dir+"/nginx.pid;\nerror_log "+dir+"/error.log;\nevents {}\nhttp {\n"+srv+"secure_link_secret a;\nsecure_link $arg_a;\n}\n}\n}\n")
	want := `"secure_link_secret" cannot be mixed with "secure_link" and "secure_link_md5"`
	mout, _ := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
	nout, _ := exec.Command(nginx, "-t", "-p", dir, "-c", path, "-e", filepath.Join(dir, "error.log")).CombinedOutput()
	if !strings.Contains(string(nout), "[emerg] "+want) {
		t.Errorf("nginx said %s", nout)
	}
	if !strings.Contains(string(mout), "[emerg] "+want+" in "+path+":8") {
		t.Errorf("mosaic said %s", mout)
	}
}

// TestSecureLinkCycleMatchesNGINX: secure_link or secure_link_md5 that
// names $secure_link itself is a cycle. NGINX stops it ("cycle while
// evaluating variable") and the inner $secure_link is empty, so that an
// MD5 of the empty text is still a valid link; mosaic recursed without
// end, a stack overflow that ended the process.
func TestSecureLinkCycleMatchesNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d;
			location /a { secure_link $arg_md5; secure_link_md5 "$secure_link"; return 200 "[$secure_link]"; }
			location /b { secure_link $secure_link; secure_link_md5 x; return 200 "[$secure_link]"; }
			location /c {
				secure_link $arg_md5,$arg_e; secure_link_md5 "$secure_link$secure_link_expires";
				if ($secure_link) { return 200 "if[$secure_link][$secure_link_expires]"; }
				return 200 "[$secure_link][$secure_link_expires]";
			}
		}`, port)
	})
	empty := securelink.Hash("")
	for _, target := range []string{"/a?md5=" + empty, "/a?md5=" + securelink.Hash("x"), "/b",
		"/c?md5=" + empty, "/c?md5=" + empty + "&e=9999999999", "/c?md5=x&e=9999999999"} {
		sameAnswer(t, mport, nport, "GET "+target+" HTTP/1.1\r\nHost: a.test", "")
	}
}
