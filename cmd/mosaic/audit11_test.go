package main

import (
	"bufio"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// audit11: a client's input turned into a variable, a cookie, an address
// or markup, through both binaries on one configuration. Each case is an
// attack tried in the audit; the answers must be NGINX's.
const audit11Server = `
    server {
        listen 127.0.0.1:{port};
        root {dir}/www;
        location /auth/ {
            auth_basic "r";
            auth_basic_user_file {dir}/htpasswd;
            add_header X-User "[$remote_user]" always;
        }
        location /ru/ { return 200 "[$remote_user]"; }
        location /rip/ {
            set_real_ip_from 127.0.0.1;
            set_real_ip_from 10.0.0.0/8;
            real_ip_header X-Forwarded-For;
            real_ip_recursive on;
            return 200 "$remote_addr";
        }
        location /sl/ {
            secure_link $arg_md5,$arg_e;
            secure_link_md5 "$secure_link_expires$uri secret";
            return 200 "[$secure_link]";
        }
        location /list/ { autoindex on; autoindex_format jsonp; }
        location /uid/ { userid on; return 200 "[$uid_got]"; }
    }
`

// TestAudit11InputAsNGINX: $remote_user from Authorization lines NGINX
// reads and net/http's BasicAuth did not (fixed: mosaic logged and passed
// on no user for a client that auth_basic let in), with the access
// decision beside it; a forged X-Forwarded-For chain under
// real_ip_recursive; secure_link hashes and expiry times that lie; JSONP
// callbacks that are script; userid cookies of bad base64 or length.
func TestAudit11InputAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, d := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, d, "www/auth/x"), "secret")
		writeFile(t, filepath.Join(dir, d, "www/list/a<b>&\"c\".txt"), "")
		writeFile(t, filepath.Join(dir, d, "htpasswd"), "u1:{PLAIN}pw\n")
	}
	// Both listings must show the same time.
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, d := range []string{"nginx", "mosaic"} {
		for _, p := range []string{"www/list/a<b>&\"c\".txt", "www/list"} {
			if err := os.Chtimes(filepath.Join(dir, d, p), mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"n": "nginx", "m": "mosaic"}[who]
		return strings.NewReplacer("{port}", strconv.Itoa(port), "{dir}", filepath.Join(dir, sub)).Replace(audit11Server)
	})
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	link := func(expires string) string {
		sum := md5.Sum([]byte(expires + "/sl/f secret"))
		return "/sl/f?md5=" + base64.RawURLEncoding.EncodeToString(sum[:]) + "&e=" + expires
	}
	later := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	// A hash with "-" or "_", sent in base64's other alphabet ("+", "/"),
	// which NGINX's base64url decoder refuses.
	var other string
	for e := time.Now().Add(time.Hour).Unix(); other == ""; e++ {
		if l := link(strconv.FormatInt(e, 10)); strings.ContainsAny(l, "-_") {
			other = strings.NewReplacer("-", "%2B", "_", "%2F").Replace(l)
		}
	}
	type req struct {
		path, name, value string
	}
	var cases []req
	for _, a := range []string{
		"Basic " + b64("u1:pw"), "BASIC   " + b64("u1:pw"), "Basic dTE6cHc", "Basic dTE6cHc===",
		"Basic dTE6cHc= x", "Basic dTE6=cHc=", "Basic\t" + b64("u1:pw"), "Basic " + b64("u1:pwx"),
		"Basic " + b64("u1"), "Basic " + b64(":pw"), "Basic " + b64("u1:pw\x00x"), "Basic !!!!",
		"Basic " + b64("u1:"+strings.Repeat("p", 3000)), "Bearer x",
	} {
		cases = append(cases, req{"/auth/x", "Authorization", a}, req{"/ru/", "Authorization", a})
	}
	for _, x := range []string{
		"1.1.1.1, 10.0.0.1", "1.1.1.1,10.0.0.1, 127.0.0.1", "bogus, 10.0.0.1", "1.1.1.1, bogus",
		"10.0.0.5, 10.0.0.1", "1.1.1.1,,10.0.0.1", "[::1]:80, 10.0.0.1", "1.1.1.1:80",
		"::ffff:10.0.0.1", "1.1.1.1, 10.0.0.1,", "256.1.1.1", "fe80::1%eth0, 10.0.0.1",
	} {
		cases = append(cases, req{"/rip/", "X-Forwarded-For", x})
	}
	for _, p := range []string{
		link(later), link("0"), link("-5"), link("1"), link(later) + "x", link(later)[:20] + "&e=" + later,
		link("99999999999999999999"), "/sl/f?md5=%%%%&e=" + later, "/sl/f?e=" + later, other,
		link(later) + "&e=1", strings.Replace(link(later), "&e=", "&e=0", 1),
		"/list/", "/list/?callback=f.g_1", "/list/?callback=alert(1)", "/list/?callback=" + strings.Repeat("a", 129),
		"/list/?callback=%3Cscript%3E", "/list/?x=1&CALLBACK=f", "/list/?callback=f&callback=%3C",
	} {
		cases = append(cases, req{path: p})
	}
	for _, c := range []string{
		"CgAAAWZgEB5BWAJ7AwMEAg==", "CgAAAWZgEB5BWAJ7AwMEAg", "CgAAAWZgEB5BWAJ7AwMEA", "A=" + strings.Repeat("A", 20),
		"AAAA=" + strings.Repeat("A", 17), strings.Repeat("!", 22), strings.Repeat("A", 20) + "-_",
		strings.Repeat("A", 22), "%41%41%41%41%41%41%41%41", strings.Repeat("B", 3000),
	} {
		cases = append(cases, req{"/uid/", "Cookie", "uid=" + c})
	}
	for _, c := range cases {
		var status [2]int
		var body, user [2]string
		for i, port := range []int{mport, nport} {
			r, err := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path), nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.name != "" {
				r.Header.Set(c.name, c.value)
			}
			resp, b := doRequest(t, r)
			status[i], body[i], user[i] = resp.StatusCode, b, resp.Header.Get("X-User")
			body[i] = strings.ReplaceAll(body[i], "nginx/1.22.1", "mosaic")
		}
		if status[0] != status[1] || body[0] != body[1] || user[0] != user[1] {
			t.Errorf("%s %s: %q: mosaic %d %q %q, nginx %d %q %q", c.path, c.name, c.value,
				status[0], user[0], body[0], status[1], user[1], body[1])
		}
	}
}

// TestSSISelfIncludeBounded: a page of four includes of itself, which
// the ten levels of subrequests make 4^10 includes, all in flight at once
// (2 GB resident in 25 s before the bound), ends within the request's
// 4096 includes. NGINX, with 50 levels, never answers it.
func TestSSISelfIncludeBounded(t *testing.T) {
	dir := t.TempDir()
	inc := `<!--# include virtual="/ssi/self.html" -->`
	writeFile(t, filepath.Join(dir, "www/ssi/self.html"), "A"+strings.Repeat(inc, 4)+"Z")
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
    server {
        listen 127.0.0.1:%d;
        root %s/www;
        location /ssi/ { ssi on; }
    }
}
`, port, dir), port)
	client := &http.Client{Timeout: 60 * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/ssi/self.html", port))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	body := string(b)
	// Every include that was made writes "A"; the page's and the last
	// include's "Z" close it.
	if n := strings.Count(body, "A"); resp.StatusCode != 200 || n < 2 || n > 4097 || !strings.HasSuffix(body, "Z") {
		t.Errorf("status %d, %d pages in %d bytes, ends %q", resp.StatusCode, n, len(body), body[max(0, len(body)-20):])
	}
}

// lyingMemcached answers a get by the key's last path segment with one
// of answers (END for the others), recording the get lines it read.
func lyingMemcached(t *testing.T, answers map[string]string) (addr string, lines func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var got []string
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, err := bufio.NewReader(c).ReadString('\n')
				if err != nil {
					return
				}
				mu.Lock()
				got = append(got, line)
				mu.Unlock()
				key := strings.TrimSuffix(strings.TrimPrefix(line, "get "), "\r\n")
				a, ok := answers[key[strings.LastIndexByte(key, '/')+1:]]
				if !ok {
					a = "END\r\n"
				}
				io.WriteString(c, strings.ReplaceAll(a, "{key}", key))
			}()
		}
	}()
	return ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// TestAudit11MemcachedAnswersAsNGINX: answers whose length lies, that
// lack END or carry junk for it, overflow the length or flags, name
// another key, or are too long, and keys from the URI with CR LF and a
// command, 300 bytes, "%" and UTF-8: both binaries answer alike and send
// memcached the same get lines, so no key can carry a second command.
func TestAudit11MemcachedAnswersAsNGINX(t *testing.T) {
	nginxPath(t)
	answers := map[string]string{
		"ok":       "VALUE {key} 0 5\r\nhello\r\nEND\r\n",
		"short":    "VALUE {key} 0 50\r\nhello\r\nEND\r\n",
		"long":     "VALUE {key} 0 2\r\nhello\r\nEND\r\n",
		"noend":    "VALUE {key} 0 5\r\nhello\r\n",
		"badend":   "VALUE {key} 0 5\r\nhelloXXEND\r\n",
		"huge":     "VALUE {key} 0 99999999999999999999\r\nhello",
		"neg":      "VALUE {key} 0 -5\r\nhello\r\nEND\r\n",
		"otherkey": "VALUE zzz 0 5\r\nhello\r\nEND\r\n",
		"cas":      "VALUE {key} 0 5 77\r\nhello\r\nEND\r\n",
		"err":      "SERVER_ERROR out of memory\r\n",
		"lf":       "VALUE {key} 0 5\nhello\r\nEND\r\n",
		"longline": "VALUE {key} 0 5" + strings.Repeat(" ", 9000) + "\r\nhello\r\nEND\r\n",
		"flags":    "VALUE {key} 99999999999999999999999 5\r\nhello\r\nEND\r\n",
		"empty":    "",
	}
	addr, lines := lyingMemcached(t, answers)
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server {
            listen 127.0.0.1:%d;
            location /mc/ {
                set $memcached_key "$uri$is_args$args";
                memcached_pass %s;
                memcached_read_timeout 3s;
            }
        }`, port, addr)
	})
	var paths []string
	for name := range answers {
		paths = append(paths, "/mc/"+name)
	}
	slices.Sort(paths)
	paths = append(paths, "/mc/"+strings.Repeat("k", 300)+"/ok", "/mc/a%20b%0d%0aset%20x%200%200%201%0d%0a/ok",
		"/mc/ok?a=%0d%0adelete%20x", "/mc/%25/ok", "/mc/%7f%c3%a9/ok")
	for _, p := range paths {
		before := len(lines())
		var st [2]int
		var body [2]string
		for i, port := range []int{mport, nport} {
			st[i], body[i] = rawGet(t, port, p)
		}
		if st[0] != st[1] || body[0] != strings.ReplaceAll(body[1], "nginx/1.22.1", "mosaic") {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", p, st[0], body[0], st[1], body[1])
		}
		if got := lines()[before:]; len(got) != 2 || got[0] != got[1] {
			t.Errorf("%s: memcached read %q", p, got)
		}
	}
}
