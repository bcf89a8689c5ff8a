package fastcgimod

import (
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/pcre"
	_ "github.com/mosaic-edge/mosaic/modules/proxymod" // upstream blocks
	"github.com/mosaic-edge/mosaic/server"
)

func mustSplit(t *testing.T) *pcre.Regexp {
	t.Helper()
	re, err := pcre.Compile(`^(.+?\.php)(/.*)$`, false)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{`fastcgi_split_path_info ^(.+\.php)$;`, `must have 2 captures in test.conf:1`},
		{`fastcgi_split_path_info (;`, `test.conf:1`},
		{`server { location / { fastcgi_pass 127.0.0.1:9000/x; } }`, `no URI part`},
		{`server { location / { fastcgi_pass http://127.0.0.1:9000; } }`, `invalid URL prefix`},
		{`server { location / { fastcgi_pass $backend; } }`, `with variables is not supported`},
		{`server { location / { fastcgi_pass php; } }`, `no port in upstream "php"`},
		{`fastcgi_param A b c;`, `invalid parameter "c"`},
		{`fastcgi_ignore_headers Bogus;`, `Bogus`},
		{`server { location / { fastcgi_pass 127.0.0.1:9000; fastcgi_pass 127.0.0.1:9001; } }`, `is duplicate`},
	} {
		_, err := server.LoadString("test.conf", "http { "+c.conf+" }")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.conf, err, c.want)
		}
	}
}

func TestNotices(t *testing.T) {
	cfg, err := server.LoadString("test.conf", `http { fastcgi_buffers 8 16k; fastcgi_busy_buffers_size 32k;
		fastcgi_ignore_client_abort on; fastcgi_send_lowat 1k;
		upstream php { server 127.0.0.1:9000; }
		server { location ~ \.php$ { include fastcgi_params; fastcgi_pass php; } } }`)
	if err != nil {
		t.Fatal(err)
	}
	notices := strings.Join(cfg.Notices(), "\n")
	for _, d := range []string{"fastcgi_busy_buffers_size", "fastcgi_send_lowat"} {
		if !strings.Contains(notices, `ignoring "`+d+`" directive`) {
			t.Errorf("no notice for %s in %q", d, notices)
		}
	}
}

func TestSplit(t *testing.T) {
	cfg, err := server.LoadString("test.conf", `http { server { location / {
		fastcgi_split_path_info ^(.+?\.php)(/.*)$; fastcgi_index index.php; fastcgi_pass 127.0.0.1:9000; } } }`)
	if err != nil || cfg == nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ uri, script, info string }{
		{"/index.php/a/b", "/index.php", "/a/b"},
		{"/x.php", "/x.php", ""},
		{"/dir/", "/dir/", ""},
	} {
		lc := &locConf{}
		lc.split.Put(mustSplit(t))
		script, info, _ := split(lc, c.uri)
		if script != c.script || info != c.info {
			t.Errorf("%s: %q %q", c.uri, script, info)
		}
	}
	if s, i, _ := split(nil, "/a.php/b"); s != "/a.php/b" || i != "" {
		t.Errorf("without split: %q %q", s, i)
	}
}
