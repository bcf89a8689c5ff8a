package mapmod

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	_ "github.com/mosaic-edge/mosaic/modules/headersmod"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// TestMapThroughServer serves return texts built from map variables: exact
// keys ignoring case, hostnames, regexes with numbered and named captures,
// values with variables, a complex source, use before the definition in
// file order, and the default.
func TestMapThroughServer(t *testing.T) {
	base := servertest.Start(t, `http {
		server {
			listen 127.0.0.1:0;
			location /echo {
				return 200 "[$kind|$host_kind|$img|$name|$pair|$nodefault]";
			}
			location ~ ^/loc/(.*)$ {
				# The map's regex replaces $1 for what follows, as in NGINX.
				return 200 "$1 $by_uri $1";
			}
		}
		map $http_x_kind $kind {
			default   other;
			text/html page;
			\default  word;
			~^img/    "picture of $http_x_host";
		}
		map $http_x_host $host_kind {
			hostnames;
			.example.com   ours;
			*.example.org  theirs;
			www.example.*  www;
		}
		map $arg_f $img {
			~^(?<base>[a-z]+)\.(png|gif)$  "$2:$base";
			default                        none;
		}
		map $http_x_kind $name {
			default "$base";
		}
		map "$arg_a:$arg_b" $pair {
			1:2     one-two;
			default "$arg_a/$arg_b";
		}
		map $arg_missing $nodefault {
			x y;
		}
		map $uri $by_uri {
			~^/loc/(?<rest>.*)$ "map-$1";
		}
	}`)
	for _, c := range []struct {
		path   string
		header []string
		want   string
	}{
		{"/echo", nil, "[other||none||/|]"},
		{"/echo", []string{"X-Kind", "TEXT/HTML"}, "[page||none||/|]"},
		{"/echo", []string{"X-Kind", "default"}, "[word||none||/|]"},
		{"/echo", []string{"X-Kind", "img/png", "X-Host", "h.test"}, "[picture of h.test||none||/|]"},
		{"/echo", []string{"X-Host", "example.com"}, "[other|ours|none||/|]"},
		{"/echo", []string{"X-Host", "a.b.example.com."}, "[other|ours|none||/|]"},
		{"/echo", []string{"X-Host", "example.org"}, "[other||none||/|]"},
		{"/echo", []string{"X-Host", "x.example.org"}, "[other|theirs|none||/|]"},
		{"/echo", []string{"X-Host", "www.example.net"}, "[other|www|none||/|]"},
		{"/echo?f=logo.png", nil, "[other||png:logo|logo|/|]"},
		{"/echo?f=Logo.png", nil, "[other||none||/|]"},
		{"/echo?a=1&b=2", nil, "[other||none||one-two|]"},
		{"/echo?a=3&b=4", nil, "[other||none||3/4|]"},
		{"/loc/abc", nil, "abc map-abc abc"},
	} {
		_, body := testclient.Get(t, base+c.path, c.header...)
		if body != c.want {
			t.Errorf("%s %v: %q, want %q", c.path, c.header, body, c.want)
		}
	}
}

// TestMapCachedPerRequest: a map is computed once per request unless it
// is volatile, so its value stays what it was when first used.
func TestMapCachedPerRequest(t *testing.T) {
	base := servertest.Start(t, `http {
		map $sent_http_x_late $cached { default "[$sent_http_x_late]"; }
		map $sent_http_x_late $fresh { volatile; default "[$sent_http_x_late]"; }
		server {
			listen 127.0.0.1:0;
			location / {
				add_header X-Before "$cached$fresh";
				add_header X-Late set;
				add_header X-After "$cached$fresh";
				return 204;
			}
		}
	}`)
	resp, _ := testclient.Get(t, base+"/")
	if got := resp.Header.Get("X-Before"); got != "[][]" {
		t.Errorf("X-Before %q", got)
	}
	if got := resp.Header.Get("X-After"); got != "[][set]" {
		t.Errorf("X-After %q, want the cached value then the volatile one", got)
	}
}

func TestMapRefuses(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{"http {\n map $uri x { }\n}", `invalid variable name "x" in test.conf:2`},
		{"http {\n map $uri $host { }\n}", `the duplicate "host" variable in test.conf:2`},
		{"http {\n map $uri $x {\n  a b c;\n }\n}", `invalid number of the map parameters in test.conf:3`},
		{"http {\n map $uri $x {\n  default a;\n  default b;\n }\n}", `duplicate default map parameter in test.conf:4`},
		{"http {\n map $uri $x {\n  A a;\n  a b;\n }\n}", `conflicting parameter "a" in test.conf:4`},
		{"http {\n map $uri $x {\n  hostnames;\n  *.a.* b;\n }\n}", `invalid hostname or wildcard "*.a.*" in test.conf:4`},
		{"http {\n map $uri $x {\n  a $nonesuch;\n }\n}", `unknown "nonesuch" variable in test.conf:3`},
		{"http {\n map $nonesuch $x { }\n}", `unknown "nonesuch" variable in test.conf:2`},
		{"http {\n server {\n  map $uri $x { }\n }\n}", `"map" directive is not allowed here in test.conf:3`},
		{"http {\n map_hash_max_size x;\n}", `"map_hash_max_size" directive invalid number in test.conf:2`},
		{"http {\n map_hash_bucket_size 64;\n map_hash_bucket_size 64;\n}", `"map_hash_bucket_size" directive is duplicate in test.conf:3`},
	} {
		servertest.WantError(t, c.conf, c.want)
	}
}

func TestMapHashNotice(t *testing.T) {
	cfg := servertest.Load(t, "http {\n map_hash_max_size 4096;\n map_hash_bucket_size 128;\n}")
	defer cfg.Close()
	n := strings.Join(cfg.Notices(), "\n")
	for _, want := range []string{`"map_hash_max_size" directive`, `"map_hash_bucket_size" directive`, "test.conf:3"} {
		if !strings.Contains(n, want) {
			t.Errorf("notices %q lack %q", n, want)
		}
	}
}

// A map whose value needs itself is a cycle: the request gets the empty
// value rather than a crash.
func TestMapCycle(t *testing.T) {
	base := servertest.Start(t, `http {
		map $b $a { default "a$b"; }
		map $a $b { default "b$a"; }
		server {
			listen 127.0.0.1:0;
			location / { return 200 "[$a]"; }
		}
	}`)
	if _, body := testclient.Get(t, base+"/"); body != "[ab]" {
		t.Errorf("body %q", body)
	}
}

// Lines of a map block may come from an included file, as in NGINX.
func TestMapInclude(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "types.map"), []byte("text/css css;\n~^image/ image;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := servertest.Start(t, `http {
		map $arg_t $kind {
			default other;
			include `+filepath.Join(dir, "types.map")+`;
		}
		server {
			listen 127.0.0.1:0;
			location / { return 200 "$kind"; }
		}
	}`)
	for q, want := range map[string]string{"t=text/css": "css", "t=image/png": "image", "t=x": "other"} {
		if _, body := testclient.Get(t, base+"/?"+q); body != want {
			t.Errorf("%s: %q, want %q", q, body, want)
		}
	}
}
