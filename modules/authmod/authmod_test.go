package authmod

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	_ "github.com/mosaic-edge/mosaic/modules/accessmod"
	_ "github.com/mosaic-edge/mosaic/modules/headersmod"
	_ "github.com/mosaic-edge/mosaic/modules/rewritemod"
	_ "github.com/mosaic-edge/mosaic/modules/staticmod"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// siteConf is a server whose every access directive decides at least one
// of siteCases: TestEveryDirectiveCounts removes them one at a time.
func siteConf(dir string) string {
	return fmt.Sprintf(`http { error_log %[1]s/error.log; server { listen 127.0.0.1:0; root %[1]s/www;
		location /deny/  { deny all; }
		location /allow/ { allow 127.0.0.1; deny all; }
		location /basic/ { auth_basic "B"; auth_basic_user_file users; }
		location /any/   { satisfy any; allow 127.0.0.2; auth_basic "A"; auth_basic_user_file users; }
		location /le/    { limit_except GET { deny all; } }
		location /ar/    { auth_request /auth; auth_request_set $who $granted; add_header X-Who $who; }
		location = /auth { internal; if ($http_x_token != good) { return 403; } set $granted "carol"; return 204; }
	} }`, dir)
}

type siteCase struct {
	method, path, user, pass, token string
	from                            string // the client's address; 127.0.0.1 when empty
	status                          int
	who                             string
}

var siteCases = []siteCase{
	{method: "GET", path: "/deny/f", status: 403},
	{method: "GET", path: "/allow/f", status: 200},
	{method: "GET", path: "/allow/f", from: "127.0.0.2", status: 403},
	{method: "GET", path: "/basic/f", status: 401},
	{method: "GET", path: "/basic/f", user: "ann", pass: "pw", status: 200},
	{method: "GET", path: "/basic/f", user: "ann", pass: "no", status: 401},
	{method: "GET", path: "/any/f", status: 401},
	{method: "GET", path: "/any/f", user: "ann", pass: "pw", status: 200},
	{method: "GET", path: "/any/f", from: "127.0.0.2", status: 200},
	{method: "GET", path: "/any/f", from: "127.0.0.3", user: "ann", pass: "no", status: 401},
	{method: "GET", path: "/le/f", status: 200},
	{method: "DELETE", path: "/le/f", status: 403},
	{method: "GET", path: "/ar/f", token: "good", status: 200, who: "carol"},
	{method: "GET", path: "/ar/f", token: "bad", status: 403},
}

func siteFiles(t *testing.T) string {
	dir := t.TempDir()
	for _, d := range []string{"deny", "allow", "basic", "any", "le", "ar"} {
		if err := os.MkdirAll(filepath.Join(dir, "www", d), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "www", d, "f"), []byte("f"), 0o644)
	}
	// A relative user file is taken from the configuration's directory.
	os.WriteFile(filepath.Join(dir, "users"), []byte("ann:{PLAIN}pw\n"), 0o644)
	return dir
}

// results sends every case and returns what came back.
func results(t *testing.T, base string) []string {
	var out []string
	for _, c := range siteCases {
		req, _ := http.NewRequest(c.method, base+c.path, nil)
		if c.user != "" {
			req.SetBasicAuth(c.user, c.pass)
		}
		if c.token != "" {
			req.Header.Set("X-Token", c.token)
		}
		resp, err := clientFrom(c.from).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		out = append(out, fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("X-Who")))
	}
	return out
}

// clientFrom returns a client whose connections come from the loopback
// address from (all of 127.0.0.0/8 is the machine's own on Linux).
func clientFrom(from string) *http.Client {
	if from == "" {
		return http.DefaultClient
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// load builds src as if read from dir/test.conf, for the relative user
// file.
func load(t *testing.T, dir, src string) *server.Config {
	t.Helper()
	cfg, err := server.LoadString(filepath.Join(dir, "test.conf"), src)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return cfg
}

func TestSite(t *testing.T) {
	dir := siteFiles(t)
	got := results(t, servertest.Serve(t, load(t, dir, siteConf(dir))))
	for i, c := range siteCases {
		if want := fmt.Sprintf("%d %s", c.status, c.who); got[i] != want {
			t.Errorf("%s %s %s:%s token %q: %q, want %q", c.method, c.path, c.user, c.pass, c.token, got[i], want)
		}
	}
}

// TestEveryDirectiveCounts removes each access directive of siteConf in
// turn: some case must answer otherwise, or the directive did nothing.
func TestEveryDirectiveCounts(t *testing.T) {
	dir := siteFiles(t)
	conf := siteConf(dir)
	want := results(t, servertest.Serve(t, load(t, dir, conf)))
	names := []string{"deny", "allow", "auth_basic", "satisfy", "auth_request", "auth_request_set"}
	for _, name := range names {
		for i := 0; ; i++ {
			mutated, ok := dropNth(conf, name+" ", i)
			if !ok {
				break
			}
			cfg, err := server.LoadString(filepath.Join(dir, "test.conf"), mutated)
			if err != nil {
				continue // it no longer loads ($who is defined by auth_request_set)
			}
			got := results(t, servertest.Serve(t, cfg))
			if strings.Join(got, "|") == strings.Join(want, "|") {
				t.Errorf("removing %s #%d changes nothing", name, i)
			}
		}
	}
}

// dropNth removes the n-th "directive ...;" starting with prefix (a word
// boundary before it) from conf.
func dropNth(conf, prefix string, n int) (string, bool) {
	from := 0
	for k := 0; ; k++ {
		i := strings.Index(conf[from:], prefix)
		if i < 0 {
			return "", false
		}
		i += from
		if i > 0 && conf[i-1] != ' ' && conf[i-1] != '{' && conf[i-1] != '\t' && conf[i-1] != '\n' {
			from = i + len(prefix)
			k--
			continue
		}
		end := strings.IndexByte(conf[i:], ';')
		if k == n {
			return conf[:i] + conf[i+end+1:], true
		}
		from = i + end
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"allow foo;", `invalid parameter "foo" in test.conf:1`},
		{"deny 10.0.0.0/33;", `invalid parameter "10.0.0.0/33"`},
		{"satisfy maybe;", `invalid value "maybe" in "satisfy" directive`},
		{"satisfy any; satisfy all;", `"satisfy" directive is duplicate`},
		{"auth_basic_user_file a; auth_basic_user_file b;", `"auth_basic_user_file" directive is duplicate`},
		{"auth_request /a; auth_request /b;", `"auth_request" directive is duplicate`},
		{"auth_request_set user x;", `invalid variable name "user"`},
		{"auth_request_set $uri x;", `the duplicate "uri" variable`},
		{"auth_delay soon;", `invalid value "soon"`},
		{"location / { if ($a) { deny all; } }", `"deny" directive is not allowed here`},
		{"location / { limit_except GET { auth_request /a; } }", `"auth_request" directive is not allowed here`},
	} {
		servertest.WantError(t, "http { server { listen 127.0.0.1:0; "+c.src+" } }", c.want)
	}
	cfg := servertest.Load(t, "http { server { listen 127.0.0.1:0; allow 10.1.2.3/8; } }")
	defer cfg.Close()
	if n := strings.Join(cfg.Notices(), "\n"); !strings.Contains(n, "low address bits of 10.1.2.3/8 are meaningless in test.conf:1") {
		t.Errorf("notices: %q", n)
	}
}

// Settings given at http and server level reach the locations and the
// requests no location matches.
func TestInherited(t *testing.T) {
	dir := siteFiles(t)
	base := servertest.Serve(t, load(t, dir, fmt.Sprintf(`http { error_log %[1]s/error.log; deny 127.0.0.2;
		server { listen 127.0.0.1:0; root %[1]s/www; auth_basic "S"; auth_basic_user_file users;
			location /basic/ { }
			location /allow/ { auth_basic off; }
		} }`, dir)))
	for _, c := range []siteCase{
		{method: "GET", path: "/basic/f", status: 401},
		{method: "GET", path: "/basic/f", user: "ann", pass: "pw", status: 200},
		{method: "GET", path: "/allow/f", status: 200},
		{method: "GET", path: "/allow/f", from: "127.0.0.2", status: 403},
		{method: "GET", path: "/deny/f", status: 401}, // no location: the server level
	} {
		req, _ := http.NewRequest(c.method, base+c.path, nil)
		if c.user != "" {
			req.SetBasicAuth(c.user, c.pass)
		}
		resp, err := clientFrom(c.from).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s from %q as %q: %d, want %d", c.path, c.from, c.user, resp.StatusCode, c.status)
		}
	}
}

// TestUserFileFromVariablesKeepsNothing: a user file whose path a client
// makes (here from a header) is read for every request and not kept, so
// that the many spellings of one file ("./t1", "././t1"...) cannot grow
// the server's memory by a copy of the file each.
func TestUserFileFromVariablesKeepsNothing(t *testing.T) {
	dir := siteFiles(t)
	os.Mkdir(filepath.Join(dir, "tenants"), 0o755)
	const size = 1 << 20
	users := "ann:{PLAIN}pw\n#" + strings.Repeat("x", size) + "\n"
	os.WriteFile(filepath.Join(dir, "tenants", "t1"), []byte(users), 0o644)
	base := servertest.Serve(t, load(t, dir, fmt.Sprintf(`http { error_log %[1]s/error.log; server { listen 127.0.0.1:0; root %[1]s/www;
		location /basic/ { auth_basic "B"; auth_basic_user_file tenants/$http_x_tenant; } } }`, dir)))
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	const spellings = 64
	name := "t1"
	for i := 0; i < spellings; i++ {
		req, _ := http.NewRequest("GET", base+"/basic/f", nil)
		req.SetBasicAuth("ann", "pw")
		req.Header.Set("X-Tenant", name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("X-Tenant %q: %d", name, resp.StatusCode)
		}
		name = "./" + name
	}
	if grown := int64(heap()) - int64(before); grown > spellings*size/4 {
		t.Errorf("the heap grew by %d MiB after %d spellings of a 1 MiB user file", grown>>20, spellings)
	}
}

// TestUserFileFromVariablesStreamed: a user file read for every request
// is read in pieces, as NGINX reads it, not whole: the memory a request
// takes does not grow with the file that a client's header names.
func TestUserFileFromVariablesStreamed(t *testing.T) {
	const size = 8 << 20
	if n := allocatedForTenantFile(t, "#"+strings.Repeat("x", size)+"\nann:{PLAIN}pw\n", http.StatusOK); n > size/4 {
		t.Errorf("one request allocated %d MiB for an 8 MiB user file", n>>20)
	}
}

// TestUserFileLongHashStreamed: a user's line whose password field has
// no end in sight (a file that is no user file, named by a client's
// header) takes no more memory than NGINX's 2 KiB buffer, which holds at
// most that much of the field: the request does not keep the field
// whole.
func TestUserFileLongHashStreamed(t *testing.T) {
	const size = 8 << 20
	if n := allocatedForTenantFile(t, "ann:"+strings.Repeat("x", size)+"\n", http.StatusUnauthorized); n > size/4 {
		t.Errorf("one request allocated %d MiB for a user's line of 8 MiB", n>>20)
	}
}

// allocatedForTenantFile serves one request of user ann through
// auth_basic_user_file tenants/$http_x_tenant, the file holding users,
// checks its status and returns what the process allocated meanwhile.
func allocatedForTenantFile(t *testing.T, users string, status int) uint64 {
	t.Helper()
	dir := siteFiles(t)
	os.Mkdir(filepath.Join(dir, "tenants"), 0o755)
	os.WriteFile(filepath.Join(dir, "tenants", "big"), []byte(users), 0o644)
	base := servertest.Serve(t, load(t, dir, fmt.Sprintf(`http { error_log %[1]s/error.log; server { listen 127.0.0.1:0; root %[1]s/www;
		location /basic/ { auth_basic "B"; auth_basic_user_file tenants/$http_x_tenant; } } }`, dir)))
	allocated := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.TotalAlloc
	}
	before := allocated()
	req, _ := http.NewRequest("GET", base+"/basic/f", nil)
	req.SetBasicAuth("ann", "pw")
	req.Header.Set("X-Tenant", "big")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != status {
		t.Fatalf("%d, want %d", resp.StatusCode, status)
	}
	return allocated() - before
}
