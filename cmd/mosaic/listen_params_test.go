package main

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// The socket parameters of listen are read with NGINX's errors (the line
// named), and one listen line of an address may set them.
func TestListenParameterErrorsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct{ servers, want string }{
		{`server { listen 127.0.0.1:1 backlog=0; }`, `invalid backlog "backlog=0" in `},
		{`server { listen 127.0.0.1:1 rcvbuf=1q; }`, `invalid rcvbuf "rcvbuf=1q" in `},
		{`server { listen 127.0.0.1:1 sndbuf=-1; }`, `invalid sndbuf "sndbuf=-1" in `},
		{`server { listen 127.0.0.1:1 fastopen=x; }`, `invalid fastopen "fastopen=x" in `},
		{`server { listen 127.0.0.1:1 so_keepalive=x; }`, `invalid so_keepalive value: "x" in `},
		{`server { listen 127.0.0.1:1 so_keepalive=::; }`, `invalid so_keepalive value: "::" in `},
		{`server { listen 127.0.0.1:1 ipv6only=x; }`, `invalid parameter "ipv6only=x" in `},
		{`server { listen [::]:1 ipv6only=oz; }`, `invalid ipv6only flags "oz" in `},
		// An IPv6 address as ngx_parse_inet6_url reads it (fidelity16).
		{`server { listen [::1; }`, `invalid host in "[::1" of the "listen" directive`},
		{`server { listen [::1]x; }`, `invalid host in "[::1]x" of the "listen" directive`},
		{`server { listen [::1]/x; }`, `invalid host in "[::1]/x" of the "listen" directive`},
		{`server { listen []:5; }`, `no host in "[]:5" of the "listen" directive`},
		{`server { listen [:::1]:5; }`, `invalid IPv6 address in "[:::1]:5" of the "listen" directive`},
		{`server { listen [1.2.3.4]:5; }`, `invalid IPv6 address in "[1.2.3.4]:5" of the "listen" directive`},
		{`server { listen [fe80::1%lo]:5; }`, `invalid IPv6 address in "[fe80::1%lo]:5" of the "listen" directive`},
		{`server { listen [::1]:; }`, `invalid port in "[::1]:" of the "listen" directive`},
		// The port is read before the address: NGINX's order.
		{`server { listen []:x; }`, `invalid port in "[]:x" of the "listen" directive`},
		{`server { listen [:::1]:99999; }`, `invalid port in "[:::1]:99999" of the "listen" directive`},
		{`server { listen [::]:1; listen [::]:1 ipv6only=off; }`, `a duplicate listen [::]:1 in %s:2`},
		{`server { listen 1; listen 1; }`, `a duplicate listen 0.0.0.0:1 in %s:2`},
		{"server { listen 127.0.0.1:1 backlog=5; }\nserver { listen 127.0.0.1:1 rcvbuf=8k; }",
			`duplicate listen options for 127.0.0.1:1 in %s:3`},
	}
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("bad%d.conf", i))
		writeFile(t, path, "http {\n"+c.servers+"\n}\n")
		want := c.want
		if strings.Contains(want, "%s") {
			want = fmt.Sprintf(want, path)
		}
		for _, cmd := range []*exec.Cmd{exec.Command(checkPath, "-t", "-c", path), nginxTest(t, path)} {
			if cmd == nil {
				continue
			}
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), want) {
				t.Errorf("%s: %s says %s\nwant %s", c.servers, filepath.Base(cmd.Path), out, want)
			}
		}
	}
	good := filepath.Join(dir, "good.conf")
	writeFile(t, good, `http { server { listen 127.0.0.1:1 backlog=511 rcvbuf=64k sndbuf=64k so_keepalive=30m::10
		deferred fastopen=16 reuseport; listen 127.0.0.1:2 so_keepalive=on; listen [::]:3 ipv6only=off; } }`)
	if out, err := exec.Command(checkPath, "-t", "-c", good).CombinedOutput(); err != nil || strings.Contains(string(out), "ignoring") {
		t.Errorf("socket parameters: %s", out)
	}
}

// nginxTest is "nginx -t" of an http-level configuration file, nil
// without NGINX.
func nginxTest(t *testing.T, path string) *exec.Cmd {
	if _, err := exec.LookPath("/usr/sbin/nginx"); err != nil {
		return nil
	}
	dir := filepath.Dir(path)
	main := path + ".main"
	// The file first: its main-level lines (load_module) must come before
	// any block.
	writeFile(t, main, fmt.Sprintf("include %s;\nevents {}\n", path))
	return exec.Command("/usr/sbin/nginx", "-t", "-p", dir, "-c", main, "-e", filepath.Join(dir, "error.log"))
}

// testBoth writes the i-th http-level configuration of a test into dir
// and checks it with "mosaic -t" and "nginx -t". It returns mosaic's
// output and error, and NGINX's [emerg] line ("" if it has none); it
// skips the test without NGINX.
func testBoth(t *testing.T, dir string, i int, http string) (mout string, merr error, nginxEmerg string) {
	t.Helper()
	return testBothMain(t, dir, i, "", http)
}

// testBothMain is testBoth with main-level lines (load_module) before the
// http block.
func testBothMain(t *testing.T, dir string, i int, main, http string) (mout string, merr error, nginxEmerg string) {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("bad%d.conf", i))
	writeFile(t, path, main+"http {\n"+http+"\nserver { listen 127.0.0.1:1; }\n}\n")
	n := nginxTest(t, path)
	if n == nil {
		t.Skip("nginx is not installed")
	}
	nout, _ := n.CombinedOutput()
	for _, l := range strings.Split(string(nout), "\n") {
		if k := strings.Index(l, "[emerg]"); k >= 0 {
			nginxEmerg = l[k:]
		}
	}
	out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
	return string(out), err, nginxEmerg
}

// An IPv6 wildcard socket is bound (it was taken for a specific address
// served through itself, and never bound), and with ipv6only=off it serves
// IPv4 clients too, whom "allow 127.0.0.1" lets in as NGINX does. NGINX
// writes such a client's $remote_addr and $server_addr in the IPv4-mapped
// form (::ffff:127.0.0.1), mosaic as IPv4 (server README, listen).
func TestListenIPv6OnlyOffAsNGINX(t *testing.T) {
	nginxPath(t)
	if ln, err := net.Listen("tcp6", "[::1]:0"); err != nil {
		t.Skip("no IPv6 here:", err)
	} else {
		ln.Close()
	}
	dual := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; listen [::]:%d ipv6only=off;
			location / { return 200 "$remote_addr|$server_addr\n"; }
			location /guarded { allow 127.0.0.1; deny all; return 200 "in\n"; } }`, port, dual[who])
	})
	for _, path := range []string{"/", "/guarded"} {
		for _, via := range []string{"127.0.0.1", "::1"} {
			req := "GET " + path + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
			m, mb := testclient.Raw(t, net.JoinHostPort(via, fmt.Sprint(dual["m"])), req)
			n, nb := testclient.Raw(t, net.JoinHostPort(via, fmt.Sprint(dual["n"])), req)
			if via == "127.0.0.1" {
				nb = strings.ReplaceAll(nb, "::ffff:", "")
			}
			if m.StatusCode != n.StatusCode || mb != nb {
				t.Errorf("%s through %s: mosaic %d %q, nginx %d %q", path, via, m.StatusCode, mb, n.StatusCode, nb)
			}
		}
	}
	_, _ = mport, nport
}
