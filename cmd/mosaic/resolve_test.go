package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/inet"
	"github.com/mosaic-edge/mosaic/internal/resolver/resolvertest"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// Host names of upstream servers are resolved when the configuration
// loads, as NGINX resolves them: "-t" refuses a name without an address
// in an upstream block (down and backup lines included) and in
// proxy_pass, fastcgi_pass, uwsgi_pass and grpc_pass, with NGINX's
// message and line; the commercial "resolve" parameter is refused; a
// name that resolves loads. The messages name the place once, as
// NGINX's do.
func TestUpstreamHostNotFoundAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	loc := func(pass string) string {
		return "server { listen 127.0.0.1:2;\nlocation / { " + pass + " } }"
	}
	for i, c := range []struct{ http, want string }{
		{"upstream b {\nserver nosuch.invalid:8080;\n}\n" + loc("proxy_pass http://b;"), `host not found in upstream "nosuch.invalid:8080"`},
		{"upstream b {\nserver localhost:8080 backup;\nserver nosuch.invalid down;\n}\n" + loc("proxy_pass http://b;"), `host not found in upstream "nosuch.invalid"`},
		{loc("proxy_pass http://nosuch.invalid:8080/x;"), `host not found in upstream "nosuch.invalid"`},
		{loc("proxy_pass https://nosuch.invalid;"), `host not found in upstream "nosuch.invalid"`},
		{loc("fastcgi_pass nosuch.invalid:9000;"), `host not found in upstream "nosuch.invalid"`},
		{loc("uwsgi_pass nosuch.invalid:9000;"), `host not found in upstream "nosuch.invalid"`},
		{loc("grpc_pass grpc://nosuch.invalid:9000;"), `host not found in upstream "nosuch.invalid"`},
		{"upstream b {\nserver [fe80::1%eth0]:8080;\n}\n" + loc("proxy_pass http://b;"), `invalid IPv6 address in upstream "[fe80::1%eth0]:8080"`},
		{loc("proxy_pass http://[fe80::1%eth0]:8080/x;"), `invalid IPv6 address in upstream "[fe80::1%eth0]:8080/x"`},
		{loc("grpc_pass grpc://[zz]:9000;"), `invalid IPv6 address in upstream "[zz]:9000"`},
		{"upstream b {\nserver localhost:0;\n}\n" + loc("proxy_pass http://b;"), `invalid port in upstream "localhost:0"`},
		{"upstream b {\nserver localhost:70000 backup;\n}\n" + loc("proxy_pass http://b;"), `invalid port in upstream "localhost:70000"`},
		{"upstream b {\nserver localhost:80/x;\n}\n" + loc("proxy_pass http://b;"), `invalid host in upstream "localhost:80/x"`},
		{"upstream b {\nserver localhost?x;\n}\n" + loc("proxy_pass http://b;"), `invalid host in upstream "localhost?x"`},
		{"upstream b {\nserver 127.0.0.1;\nserver unix:;\n}\n" + loc("proxy_pass http://b;"), `no path in the unix domain socket in upstream "unix:"`},
		{"upstream b {\nserver localhost:8080 resolve;\n}\n" + loc("proxy_pass http://b;"), `invalid parameter "resolve"`},
		{"upstream b {\nserver localhost:8080;\n}\n" + loc("proxy_pass http://b:8080;"), `upstream "b" may not have port 8080`},
		{loc("fastcgi_pass nosuch.invalid;"), `no port in upstream "nosuch.invalid"`},
		{"upstream b {\nserver localhost:8080;\nserver localhost:8081 backup;\n}\n" + loc("proxy_pass http://b;"), ""},
		{loc("proxy_pass http://localhost:8080/x;"), ""},
		{loc("fastcgi_pass localhost:9000;"), ""},
		// Numbers that getaddrinfo reads as inet_aton does.
		{"upstream b {\nserver 127.1:8080;\n}\n" + loc("proxy_pass http://b;"), ""},
		{loc("proxy_pass http://0x7f.1:8080;"), ""},
		// With variables the name is looked up per request.
		{loc("proxy_pass http://nosuch.invalid$uri;"), ""},
	} {
		mout, err, nginx := testBoth(t, dir, i, c.http)
		if !strings.Contains(nginx, c.want) {
			t.Fatalf("%q: nginx says %q, want %q", c.http, nginx, c.want)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: mosaic refuses it: %s", c.http, mout)
		case c.want != "" && (err == nil || !strings.Contains(mout, "mosaic: "+nginx+"\n")):
			t.Errorf("%q:\nmosaic %s\nnginx  %s", c.http, mout, nginx)
		}
	}
}

// localhostOrigins listens on 127.0.0.1 and [::1] on one port, each
// answering with its name, and returns the port and a function that
// stops ("down") or restarts ("up") the IPv6 one.
func localhostOrigins(t *testing.T) (port int, v6 func(up bool)) {
	t.Helper()
	serve := func(ln net.Listener, name string) *http.Server {
		s := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, name)
		})}
		go s.Serve(ln)
		t.Cleanup(func() { s.Close() })
		return s
	}
	for range 20 {
		ln4, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = ln4.Addr().(*net.TCPAddr).Port
		ln6, err := net.Listen("tcp6", fmt.Sprintf("[::1]:%d", port))
		if err != nil {
			ln4.Close()
			continue
		}
		serve(ln4, "v4")
		s6 := serve(ln6, "v6")
		return port, func(up bool) {
			if !up {
				s6.Close()
				return
			}
			ln, err := net.Listen("tcp6", fmt.Sprintf("[::1]:%d", port))
			if err != nil {
				t.Fatal(err)
			}
			s6 = serve(ln, "v6")
		}
	}
	t.Fatal("no port free on both 127.0.0.1 and [::1]")
	return 0, nil
}

// "localhost" is two servers where it resolves to ::1 and 127.0.0.1, as
// on every Debian machine: requests alternate between the two addresses
// in NGINX's order (glibc's: ::1 first), in an upstream block and in the
// implicit group of a proxy_pass; with the IPv6 server down the request
// that meets it goes on to the IPv4 one and the IPv6 address stays out
// of rotation for fail_timeout, after which it gets requests again.
// $upstream_addr shows the addresses, and the access logs match NGINX's
// line by line. Where localhost has one address, the test is skipped.
func TestLocalhostUpstreamAddressesAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	addrs, err := inet.ResolveHost(context.Background(), "localhost")
	if err != nil || !slices.Contains(addrs, netip.MustParseAddr("::1")) || !slices.Contains(addrs, netip.MustParseAddr("127.0.0.1")) {
		t.Skipf("localhost resolves to %v here, not to both ::1 and 127.0.0.1 (%v)", addrs, err)
	}
	port, v6 := localhostOrigins(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, listen int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`log_format up '$request_uri $status $upstream_addr $upstream_status';
			access_log %[1]s/%[2]s/access.log up;
			upstream named { server localhost:%[4]d fail_timeout=1s; }
			server { listen 127.0.0.1:%[3]d;
				location /group/ { proxy_pass http://named; }
				location /implicit/ { proxy_pass http://localhost:%[4]d; } }`,
			dir, sub, listen, port)
	})
	lines := 0
	round := func(name string, paths ...string) {
		t.Helper()
		for _, path := range paths {
			req := "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
			m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
			n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
			if m.StatusCode != n.StatusCode || mb != nb {
				t.Errorf("%s, %s: mosaic %d %q, nginx %d %q", name, path, m.StatusCode, mb, n.StatusCode, nb)
			}
			lines++
		}
	}
	both := []string{"/group/1", "/implicit/1", "/group/2", "/implicit/2", "/group/3", "/implicit/3"}
	round("both up", both...)
	v6(false)
	round("IPv6 down", both...)
	// The group's fail_timeout=1s on NGINX's clock of whole seconds: the
	// address is back once the clock has moved two seconds on.
	time.Sleep(2100 * time.Millisecond)
	v6(true)
	round("IPv6 back", "/group/4", "/group/5", "/group/6", "/group/7", "/implicit/4", "/implicit/5")
	sameAccessLogs(t, dir, lines)
}

// A *_pass to a host name goes to the addresses resolved at load, which
// $upstream_addr shows as NGINX shows them: "127.0.0.1:port" for
// localhost (and "[::1]:port" before it where localhost has both), the
// host alone once no address is left to try; fastcgi_pass, uwsgi_pass
// and grpc_pass alike, here to ports where nothing listens.
func TestPassHostNamesShowAddressesAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newUpOrigin(t, "origin", "")
	port := strings.TrimPrefix(o.addr(), "127.0.0.1:")
	dir := t.TempDir()
	closed := []int{refusedPort(t), refusedPort(t), refusedPort(t)}
	mport, nport := startBoth(t, dir, func(who string, listen int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`log_format up '$request_uri $status $upstream_addr $upstream_status';
			access_log %[1]s/%[2]s/access.log up;
			server { listen 127.0.0.1:%[3]d;
				location /proxy/ { proxy_pass http://localhost:%[4]s; }
				location /fastcgi/ { fastcgi_pass localhost:%[5]d; }
				location /uwsgi/ { uwsgi_pass localhost:%[6]d; }
				location /grpc/ { grpc_pass localhost:%[7]d; } }`,
			dir, sub, listen, port, closed[0], closed[1], closed[2])
	})
	paths := []string{"/proxy/", "/fastcgi/", "/uwsgi/", "/grpc/"}
	paths = append(paths, paths...)
	for _, path := range paths {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: x", "")
	}
	sameAccessLogs(t, dir, len(paths))
}

// A proxy_pass with variables resolves its host at request time with the
// resolver, and each request gets a group of the addresses of its own,
// as in NGINX: a name whose two addresses refuse is tried at both on
// every request (never "no live upstreams" from an earlier request's
// failures). NGINX turns the addresses at random, so each log line's
// addresses are compared as a set.
func TestVariablePassResolvedPerRequestAsNGINX(t *testing.T) {
	nginxPath(t)
	dns := resolvertest.Start(t, map[string][]resolvertest.Record{
		"down.test": {{Addr: netip.MustParseAddr("127.0.0.2")}, {Addr: netip.MustParseAddr("127.0.0.3")}},
	})
	closed := refusedPort(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, listen int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`log_format up '$request_uri $status $upstream_addr $upstream_status';
			access_log %[1]s/%[2]s/access.log up;
			server { listen 127.0.0.1:%[3]d;
				location /v/ { resolver %[4]s; proxy_pass http://$arg_h:%[5]d; } }`,
			dir, sub, listen, dns.Addr, closed)
	})
	const n = 3
	for range n {
		sameAnswer(t, mport, nport, "GET /v/?h=down.test HTTP/1.1\r\nHost: x", "")
	}
	// "/v/?h=down.test 502 A, B 502, 502" with A and B in either order.
	asSet := func(line string) string {
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 {
			return line
		}
		addrs, statuses, _ := strings.Cut(f[2], " 502")
		list := strings.Split(addrs, ", ")
		slices.Sort(list)
		return f[0] + " " + f[1] + " " + strings.Join(list, ", ") + " 502" + statuses
	}
	mlog := refusedLines(t, dir+"/mosaic/access.log", n)
	nlog := refusedLines(t, dir+"/nginx/access.log", n)
	for i := range max(len(mlog), len(nlog)) {
		var m, ng string
		if i < len(mlog) {
			m = asSet(mlog[i])
		}
		if i < len(nlog) {
			ng = asSet(nlog[i])
		}
		if m != ng {
			t.Errorf("line %d: mosaic %q, nginx %q", i+1, m, ng)
		}
	}
}

// A reload resolves the names again, as NGINX's does when it reads the
// new file: a name that no longer resolves fails the reload, saying so,
// and the running configuration keeps serving its addresses; a name
// whose file now names another port is served there.
func TestReloadResolvesNamesAgain(t *testing.T) {
	first, second := newUpOrigin(t, "first", ""), newUpOrigin(t, "second", "")
	portOf := func(o *upOrigin) string { return strings.TrimPrefix(o.addr(), "127.0.0.1:") }
	dir, port := t.TempDir(), freePort(t)
	conf := func(server string) string {
		return fmt.Sprintf(`http { upstream u { server %s; }
			server { listen 127.0.0.1:%d; location / { proxy_pass http://u; } } }`, server, port)
	}
	p := startMosaic(t, dir, conf("localhost:"+portOf(first)), port)
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	waitBody(t, base, "first")
	writeFile(t, filepath.Join(dir, "mosaic.conf"), conf("nosuch.invalid:"+portOf(second)))
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitOutput(t, p, `host not found in upstream \"nosuch.invalid:`)
	if _, body := httpGet(t, base); body != "first" {
		t.Fatalf("after the failed reload: %q", body)
	}
	writeFile(t, filepath.Join(dir, "mosaic.conf"), conf("localhost:"+portOf(second)))
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitBody(t, base, "second")
}
