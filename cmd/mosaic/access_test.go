package main

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// The access phase: allow/deny, auth_basic, auth_request, satisfy and
// auth_delay, run by mosaic and by Debian's NGINX on the same http block
// (accessHTTP) and checked against the same answers (accessCases).

// accessUsers is the htpasswd file: one user per hash scheme NGINX
// accepts, made by openssl passwd and the system's crypt(3), and the
// lines NGINX's reader skips or cuts.
const accessUsers = "# staff\n" +
	"ann:$apr1$xxxxxxxx$dxHfLAsjHkDRmG83UXe8K0\n" + // password
	"sam:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=\n" + // secret
	"syd:{SSHA}gVK8WC9YyFT1gMsQHTGCgT3sSv5zYWx0\n" + // secret
	"pat:{PLAIN}plain\n" +
	"max:$1$saltsalt$1K7dkhtbTNVUwUicA5kOT1\n" + // pass word
	"sue:$5$saltstring$C3o4O1TC6aRHF4FI.QSZMXtHbaj2gSXr4sUc/3NcUi.\n" + // secret
	"sid:$6$saltstring$AIsRs/Ee56G/tC8MEHhvReZTfx8u3rXXMl6eYrjCG9ibix19DxoMBLogdTET5Ukw9Sf7eZTITsuk0Ry5qulYz.\n" + // secret
	"bob:$2y$04$abcdefghijklmnopqrstuu2r9OfJnfCsdneAXAGHnS4UpFFP8WIrW\n" + // secret
	"dee:zz1T8N4tWvmbE\n" + // secret (DES)
	"crl:{PLAIN}crlf\r\n" +
	"tf:{PLAIN}x:Third Field\n" +
	"\n" +
	" lead:{PLAIN}space\n" +
	"hid:{PLAIN}hidden\n" +
	// NGINX's reader: for user "bare", the first line ends (LF) where
	// ":" should come, and that skips the next line too.
	"bare\n" +
	"bare:{PLAIN}x\n" +
	"ann:{PLAIN}second\n" // the first line of a user decides

// accessHTTP is the server block; origin answers the auth subrequests.
func accessHTTP(dir, listen, origin string) string {
	return fmt.Sprintf(`
		types { text/plain txt; }
		server {
			%[2]s
			root %[1]s/www;
			location /open/        { }
			location /deny/        { deny all; }
			location /allow-local/ { allow 127.0.0.1; allow ::1; deny all; }
			location /deny-local/  { deny 127.0.0.0/8; allow all; }
			location /cidr/        { allow 10.0.0.0/8; deny all; }
			location /v6only/      { deny ::/0; }
			location /unix/        { deny unix:; }
			location /unix-allow/  { allow unix:; deny all; }
			location /basic/       { auth_basic "Restricted"; auth_basic_user_file %[1]s/users; }
			location /basic-off/   {
				auth_basic "x"; auth_basic_user_file %[1]s/users;
				location /basic-off/in/ { auth_basic off; }
			}
			location /realmvar/    { auth_basic "$host zone"; auth_basic_user_file %[1]s/users; }
			location /nofile/      { auth_basic x; auth_basic_user_file %[1]s/missing; }
			location /any/         { satisfy any; allow 10.0.0.1; deny all; auth_basic "any"; auth_basic_user_file %[1]s/users; }
			location /any-allowed/ { satisfy any; allow 127.0.0.1; deny all; auth_basic "any"; auth_basic_user_file %[1]s/users; }
			location /any-deny/    { satisfy any; deny all; }
			location /all/         { allow 127.0.0.1; deny all; auth_basic "all"; auth_basic_user_file %[1]s/users; }
			location /all-deny/    { deny all; auth_basic "all"; auth_basic_user_file %[1]s/users; }
			location /le/          { limit_except GET { deny all; } }
			location /le2/         { limit_except GET { allow 127.0.0.1; deny all; } }
			location /le3/         { limit_except GET { auth_basic "le"; auth_basic_user_file %[1]s/users; } }
			location /return/      { deny all; return 200 "ret"; }
			location /tf/          { deny all; try_files $uri =404; }
			location /ep/          { deny all; error_page 403 /e403.txt; }
			location = /e403.txt   { }
			location /ep401/       { auth_basic "r"; auth_basic_user_file %[1]s/users; error_page 401 /e401.txt; }
			location = /e401.txt   { }
			location /delay/       { auth_delay 300ms; auth_basic "d"; auth_basic_user_file %[1]s/users; }
			location /ar/          { auth_request /_auth; auth_request_set $u $upstream_http_x_user; add_header X-User $u; }
			location /ar-any/      { satisfy any; allow 127.0.0.1; deny all; auth_request /_auth; }
			location /ar-basic/    { auth_basic "ab"; auth_basic_user_file %[1]s/users; auth_request /_auth; }
			location /ar-off/      {
				auth_request /_auth;
				location /ar-off/in/ { auth_request off; }
			}
			location /ar-any2/     { satisfy any; auth_basic "a2"; auth_basic_user_file %[1]s/users; auth_request /_auth; }
			location /any-mixed/   { satisfy any; deny all; auth_request /_auth; }
			location /relfile/     { auth_basic r; auth_basic_user_file users; }
			location /varfile/     { auth_basic v; auth_basic_user_file users$arg_v; }
			location /ar-named/    { auth_request /_auth_named; }
			location = /_auth_named { internal; try_files /dev/null @authapi; }
			location @authapi      { proxy_pass http://%[3]s; }
			# h5bp's and WordPress's rules.
			location ~* /\.(?!well-known\/) { deny all; }
			location = /robots.txt { allow all; log_not_found off; }
			location = /_auth {
				internal;
				proxy_pass http://%[3]s/check;
				proxy_pass_request_body off;
			}
		}`, dir, listen, origin)
}

// accessFiles writes the site under dir; confDir is the directory of
// the main configuration file, from which relative user files are read.
func accessFiles(t *testing.T, dir, confDir string) {
	for _, d := range []string{"open", "deny", "allow-local", "deny-local", "cidr", "v6only", "unix", "unix-allow",
		"basic", "basic-off", "basic-off/in", "realmvar", "nofile", "any", "any-allowed", "any-deny", "all", "all-deny",
		"le", "le2", "le3", "tf", "ep", "ep401", "delay", "ar", "ar-any", "ar-basic", "ar-off", "ar-off/in", "ar-named", "ar-any2", "any-mixed", "relfile", "varfile", ".git", ".well-known"} {
		writeFile(t, filepath.Join(dir, "www", d, "f.txt"), "f")
	}
	writeFile(t, filepath.Join(dir, "www/robots.txt"), "robots")
	writeFile(t, filepath.Join(dir, "www/e403.txt"), "custom 403")
	writeFile(t, filepath.Join(dir, "www/e401.txt"), "custom 401")
	writeFile(t, filepath.Join(dir, "users"), accessUsers)
	if confDir != dir {
		writeFile(t, filepath.Join(confDir, "users"), accessUsers)
	}
	writeFile(t, filepath.Join(confDir, "users2"), "zed:{PLAIN}z\n")
}

// accessOrigin answers /check by the request's X-Token.
func accessOrigin(t *testing.T) string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("X-Token") {
		case "good":
			w.Header().Set("X-User", "alice")
			w.WriteHeader(204)
		case "bad":
			w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
			w.WriteHeader(401)
		case "two":
			w.Header()["WWW-Authenticate"] = []string{`Bearer realm="api"`, `Basic realm="api"`}
			w.WriteHeader(401)
		case "forbid":
			w.WriteHeader(403)
		case "weird":
			w.WriteHeader(404)
		case "moved":
			w.Header().Set("Location", "/elsewhere")
			w.WriteHeader(302)
		default:
			w.WriteHeader(401)
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func basicAuth(user, pass string) string {
	return "\r\nAuthorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

type accessCase struct {
	request   string // request line and headers, without the final CRLF
	status    int
	challenge string // WWW-Authenticate
	body      string // checked when not empty
	header    string // "Name: value" checked when not empty
	delay     time.Duration
	network   string // "" for IPv4, "tcp6", "unix"
}

func accessCases() []accessCase {
	get := func(path string, extra ...string) string {
		return "GET " + path + " HTTP/1.1\r\nHost: a.test" + strings.Join(extra, "")
	}
	cases := []accessCase{
		{request: get("/open/f.txt"), status: 200, body: "f"},
		{request: get("/deny/f.txt"), status: 403},
		{request: get("/allow-local/f.txt"), status: 200},
		{request: get("/deny-local/f.txt"), status: 403},
		{request: get("/cidr/f.txt"), status: 403},
		{request: get("/v6only/f.txt"), status: 200},
		{request: get("/unix/f.txt"), status: 200},
		{request: get("/unix-allow/f.txt"), status: 403},
		{request: get("/basic/f.txt"), status: 401, challenge: `Basic realm="Restricted"`},
		{request: get("/basic/f.txt", basicAuth("nobody", "x")), status: 401, challenge: `Basic realm="Restricted"`},
		{request: get("/basic/f.txt", "\r\nAuthorization: Bearer abc"), status: 401, challenge: `Basic realm="Restricted"`},
		{request: get("/basic/f.txt", "\r\nAuthorization: Basic !!"), status: 401, challenge: `Basic realm="Restricted"`},
		{request: get("/basic/f.txt", basicAuth("ann", "second")), status: 401, challenge: `Basic realm="Restricted"`},
		{request: get("/basic/f.txt", basicAuth("hid", "hidden")), status: 200},
		{request: get("/basic/f.txt", basicAuth("bare", "x")), status: 401, challenge: `Basic realm="Restricted"`},
		{request: get("/basic/f.txt", basicAuth(" lead", "space")), status: 200},
		{request: get("/basic/f.txt", basicAuth("lead", "space")), status: 401, challenge: `Basic realm="Restricted"`},
		{request: get("/basic/f.txt", basicAuth("# staff", "")), status: 401, challenge: `Basic realm="Restricted"`},
		{request: get("/basic-off/in/f.txt"), status: 200},
		{request: get("/basic-off/f.txt"), status: 401, challenge: `Basic realm="x"`},
		{request: get("/realmvar/f.txt"), status: 401, challenge: `Basic realm="a.test zone"`},
		{request: get("/nofile/f.txt"), status: 401, challenge: `Basic realm="x"`},
		{request: get("/nofile/f.txt", basicAuth("ann", "password")), status: 403},
		{request: get("/any/f.txt"), status: 401, challenge: `Basic realm="any"`},
		{request: get("/any/f.txt", basicAuth("ann", "password")), status: 200},
		{request: get("/any/f.txt", basicAuth("ann", "wrong")), status: 401, challenge: `Basic realm="any"`},
		{request: get("/any-allowed/f.txt"), status: 200},
		{request: get("/any-deny/f.txt"), status: 403},
		{request: get("/all/f.txt"), status: 401, challenge: `Basic realm="all"`},
		{request: get("/all/f.txt", basicAuth("ann", "password")), status: 200},
		{request: get("/all-deny/f.txt", basicAuth("ann", "password")), status: 403},
		{request: get("/le/f.txt"), status: 200},
		{request: "POST /le/f.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 0", status: 403},
		{request: "POST /le2/f.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 0", status: 405},
		{request: "DELETE /le3/f.txt HTTP/1.1\r\nHost: a.test", status: 401, challenge: `Basic realm="le"`},
		{request: get("/le3/f.txt"), status: 200},
		{request: get("/return/"), status: 200, body: "ret"},
		{request: get("/tf/f.txt"), status: 403},
		{request: get("/ep/f.txt"), status: 403, body: "custom 403"},
		{request: get("/ep401/f.txt"), status: 401, body: "custom 401", challenge: `Basic realm="r"`},
		{request: get("/delay/f.txt"), status: 401, challenge: `Basic realm="d"`, delay: 300 * time.Millisecond},
		{request: get("/delay/f.txt", basicAuth("ann", "password")), status: 200},
		{request: get("/ar/f.txt", "\r\nX-Token: good"), status: 200, header: "X-User: alice"},
		{request: get("/ar/f.txt", "\r\nX-Token: bad"), status: 401, challenge: `Bearer realm="api"`},
		// Of several challenges, NGINX 1.22 passes the first.
		{request: get("/ar/f.txt", "\r\nX-Token: two"), status: 401, challenge: `Bearer realm="api"`},
		{request: get("/ar/f.txt"), status: 401},
		{request: get("/ar/f.txt", "\r\nX-Token: forbid"), status: 403},
		{request: get("/ar/f.txt", "\r\nX-Token: weird"), status: 500},
		{request: get("/ar/f.txt", "\r\nX-Token: moved"), status: 500},
		{request: get("/ar-any/f.txt", "\r\nX-Token: forbid"), status: 200},
		{request: get("/ar-basic/f.txt", basicAuth("ann", "password"), "\r\nX-Token: good"), status: 200},
		{request: get("/ar-basic/f.txt", basicAuth("ann", "password"), "\r\nX-Token: bad"), status: 401, challenge: `Bearer realm="api"`},
		{request: get("/ar-basic/f.txt", "\r\nX-Token: good"), status: 401, challenge: `Basic realm="ab"`},
		{request: get("/ar-off/f.txt"), status: 401},
		{request: get("/ar-off/in/f.txt"), status: 200},
		{request: get("/_auth", "\r\nX-Token: good"), status: 404}, // internal
		// PeerTube's form: the auth location passes the subrequest on to
		// a named location.
		{request: get("/ar-named/f.txt", "\r\nX-Token: good"), status: 200},
		{request: get("/ar-named/f.txt", "\r\nX-Token: forbid"), status: 403},
		// Under "satisfy any" a 401 wins over a 403, and a 500 answers at once.
		// (The challenge of the failed auth_basic goes with the 500, as in NGINX.)
		{request: get("/ar-any2/f.txt", basicAuth("ann", "no"), "\r\nX-Token: weird"), status: 500, challenge: `Basic realm="a2"`},
		{request: get("/ar-any2/f.txt", basicAuth("ann", "no"), "\r\nX-Token: forbid"), status: 401, challenge: `Basic realm="a2"`},
		{request: get("/ar-any2/f.txt", basicAuth("ann", "no"), "\r\nX-Token: good"), status: 200},
		{request: get("/any-mixed/f.txt", "\r\nX-Token: forbid"), status: 403},
		{request: get("/any-mixed/f.txt", "\r\nX-Token: bad"), status: 401, challenge: `Bearer realm="api"`},
		// Relative user files are read from the configuration's directory.
		{request: get("/relfile/f.txt", basicAuth("ann", "password")), status: 200},
		{request: get("/varfile/f.txt?v=2", basicAuth("zed", "z")), status: 200},
		{request: get("/varfile/f.txt?v=2", basicAuth("ann", "password")), status: 401, challenge: `Basic realm="v"`},
		{request: get("/varfile/f.txt?v=3", basicAuth("zed", "z")), status: 403},
		{request: get("/.git/f.txt"), status: 403},
		{request: get("/.well-known/f.txt"), status: 200, body: "f"},
		{request: get("/robots.txt"), status: 200, body: "robots"},
		// Over IPv6 and a Unix-domain socket.
		{request: get("/v6only/f.txt"), status: 403, network: "tcp6"},
		{request: get("/allow-local/f.txt"), status: 200, network: "tcp6"},
		{request: get("/deny-local/f.txt"), status: 200, network: "tcp6"},
		{request: get("/cidr/f.txt"), status: 403, network: "tcp6"},
		{request: get("/unix/f.txt"), status: 403, network: "unix"},
		{request: get("/unix-allow/f.txt"), status: 200, network: "unix"},
		{request: get("/v6only/f.txt"), status: 200, network: "unix"},
		{request: get("/deny/f.txt"), status: 403, network: "unix"},
	}
	for _, u := range []struct{ user, pass string }{
		{"ann", "password"}, {"sam", "secret"}, {"syd", "secret"}, {"pat", "plain"}, {"max", "pass word"},
		{"sue", "secret"}, {"sid", "secret"}, {"bob", "secret"}, {"dee", "secret"}, {"crl", "crlf"}, {"tf", "x"},
	} {
		cases = append(cases,
			accessCase{request: get("/basic/f.txt", basicAuth(u.user, u.pass)), status: 200, body: "f"},
			accessCase{request: get("/basic/f.txt", basicAuth(u.user, u.pass+"x")), status: 401, challenge: `Basic realm="Restricted"`})
	}
	return cases
}

// accessListen is the listen lines for port, with IPv6 when the machine
// has it.
func accessListen(dir string, port int, v6 bool) string {
	s := fmt.Sprintf("listen 127.0.0.1:%d; listen unix:%s/sock;", port, dir)
	if v6 {
		s += fmt.Sprintf(" listen [::1]:%d;", port)
	}
	return s
}

func hasIPv6() bool {
	l, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// nginxHas reports whether Debian's NGINX was built with the module.
func nginxHas(t *testing.T, module string) bool {
	out, _ := exec.Command(nginxPath(t), "-V").CombinedOutput()
	return strings.Contains(string(out), "--with-"+module)
}

func checkAccess(t *testing.T, who, dir string, port int, v6, authRequest bool) {
	t.Helper()
	for _, c := range accessCases() {
		if (c.network == "tcp6" && !v6) || (!authRequest && strings.Contains(c.request, "/ar")) {
			continue
		}
		start := time.Now()
		resp, body := accessDo(t, c.network, dir, port, c.request+"\r\nConnection: close\r\n\r\n")
		took := time.Since(start)
		line, _, _ := strings.Cut(c.request, "\r\n")
		what := fmt.Sprintf("%s: %s %s", who, c.network, strings.ReplaceAll(c.request[len(line):], "\r\n", " | "))
		if resp.StatusCode != c.status {
			t.Errorf("%s: %s: %d, want %d", what, line, resp.StatusCode, c.status)
			continue
		}
		if got := strings.Join(resp.Header.Values("WWW-Authenticate"), ", "); got != c.challenge {
			t.Errorf("%s: %s: WWW-Authenticate %q, want %q", what, line, got, c.challenge)
		}
		if c.body != "" && body != c.body {
			t.Errorf("%s: %s: body %q, want %q", what, line, body, c.body)
		}
		if c.header != "" {
			k, v, _ := strings.Cut(c.header, ": ")
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s: %s: %s %q, want %q", what, line, k, got, v)
			}
		}
		if took < c.delay*9/10 {
			t.Errorf("%s: %s: answered in %v, want at least %v", what, line, took, c.delay)
		}
	}
}

// accessDo sends a raw request over IPv4, IPv6 or the Unix socket.
func accessDo(t *testing.T, network, dir string, port int, req string) (*http.Response, string) {
	t.Helper()
	switch network {
	case "":
		return testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
	case "tcp6":
		return testclient.Raw(t, fmt.Sprintf("[::1]:%d", port), req)
	}
	waitUnix(t, filepath.Join(dir, "sock"))
	return testclient.RawOn(t, "unix", filepath.Join(dir, "sock"), req)
}

// TestAccessMatchNGINX runs the access cases in Debian's NGINX: what
// TestAccessThroughBinary expects of mosaic is what NGINX does.
func TestAccessMatchNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	ndir := filepath.Join(dir, "nginx")
	accessFiles(t, dir, ndir)
	port, v6 := freePort(t), hasIPv6()
	authRequest := nginxHas(t, "http_auth_request_module")
	block := accessHTTP(dir, accessListen(dir, port, v6), accessOrigin(t))
	if !authRequest {
		t.Log("NGINX has no auth_request module: its cases are left out")
		block = accessWithoutAuthRequest(block)
	}
	startNGINX(t, ndir, block, port)
	checkAccess(t, "nginx", dir, port, v6, authRequest)
}

// accessWithoutAuthRequest drops the auth_request directives of block.
func accessWithoutAuthRequest(block string) string {
	var out []string
	for _, l := range strings.Split(block, "\n") {
		if !strings.Contains(l, "auth_request") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestAccessThroughBinary(t *testing.T) {
	dir := t.TempDir()
	accessFiles(t, dir, dir)
	port, v6 := freePort(t), hasIPv6()
	p := startMosaic(t, dir, "http {"+accessHTTP(dir, accessListen(dir, port, v6), accessOrigin(t))+"}", port)
	checkAccess(t, "mosaic", dir, port, v6, true)
	// An edited user file counts from the next request, without a reload.
	req := "GET /basic/f.txt HTTP/1.1\r\nHost: a.test" + basicAuth("new", "pw") + "\r\nConnection: close\r\n\r\n"
	if resp, _ := accessDo(t, "", dir, port, req); resp.StatusCode != 401 {
		t.Fatalf("unknown user: %d", resp.StatusCode)
	}
	writeFile(t, filepath.Join(dir, "users"), accessUsers+"new:{PLAIN}pw\n")
	if resp, _ := accessDo(t, "", dir, port, req); resp.StatusCode != 200 {
		t.Errorf("user added to the file: %d, want 200", resp.StatusCode)
	}
	// NGINX's error log lines for the refusals.
	for _, want := range []string{
		"access forbidden by rule",
		`nobody\" was not found in \"` + dir + `/users\"`,
		`ann\": password mismatch`,
		`open() \"` + dir + `/missing\" failed (2: no such file or directory)`,
		"auth request unexpected status: 404",
	} {
		if !strings.Contains(p.out.String(), want) {
			t.Errorf("error log lacks %q", want)
		}
	}
}
