package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/proxy"
)

func TestParsePass(t *testing.T) {
	tests := []struct {
		in                         string
		host, port, uri            string
		hasURI                     bool
		proxyHost, proxyPort, addr string
	}{
		{"http://backend", "backend", "", "", false, "backend", "80", "backend:80"},
		{"http://127.0.0.1:8080", "127.0.0.1", "8080", "", false, "127.0.0.1:8080", "8080", "127.0.0.1:8080"},
		{"http://127.0.0.1:8080/", "127.0.0.1", "8080", "/", true, "127.0.0.1:8080", "8080", "127.0.0.1:8080"},
		{"HTTP://example.com:80/remote/", "example.com", "80", "/remote/", true, "example.com", "80", "example.com:80"},
		{"https://example.com", "example.com", "", "", false, "example.com", "443", "example.com:443"},
		{"https://example.com:8443/a?b=c", "example.com", "8443", "/a?b=c", true, "example.com:8443", "8443", "example.com:8443"},
		{"http://[::1]:9000/x", "[::1]", "9000", "/x", true, "[::1]:9000", "9000", "[::1]:9000"},
		{"http://[::1]", "[::1]", "", "", false, "[::1]", "80", "[::1]:80"},
		// Unix-domain sockets as NGINX splits them: the path ends at the
		// first ":", the URI follows it; Host is "localhost", no port.
		{"http://unix:/run/app.sock", "localhost", "", "", false, "localhost", "", "unix:/run/app.sock"},
		{"http://unix:/run/app.sock:/api/", "localhost", "", "/api/", true, "localhost", "", "unix:/run/app.sock"},
		{"http://UNIX:/run/app.sock:", "localhost", "", "", false, "localhost", "", "unix:/run/app.sock"},
		{"https://unix:/s:/", "localhost", "", "/", true, "localhost", "", "unix:/s"},
	}
	for _, tt := range tests {
		p, err := proxy.ParsePass(tt.in)
		if err != nil {
			t.Errorf("ParsePass(%q): %v", tt.in, err)
			continue
		}
		if p.Host != tt.host || p.Port != tt.port || p.URI != tt.uri || p.HasURI != tt.hasURI {
			t.Errorf("ParsePass(%q) = %+v", tt.in, p)
		}
		if got := p.ProxyHost(); got != tt.proxyHost {
			t.Errorf("%q: ProxyHost = %q, want %q", tt.in, got, tt.proxyHost)
		}
		if got := p.ProxyPort(); got != tt.proxyPort {
			t.Errorf("%q: ProxyPort = %q, want %q", tt.in, got, tt.proxyPort)
		}
		if got := p.Addr(); got != tt.addr {
			t.Errorf("%q: Addr = %q, want %q", tt.in, got, tt.addr)
		}
	}
	for _, bad := range []string{
		"ftp://x", "backend", "http://", "http://:80", "http://x:0", "http://x:99999", "http://x:ab",
		"http://[::1", "http://x/a b", "http://a:1:2",
		"http://unix:", "http://unix::/x", "http://unix:/s:x", "http://unix:/s:/a b", "http://unix:/" + strings.Repeat("s", 107),
	} {
		if _, err := proxy.ParsePass(bad); err == nil {
			t.Errorf("ParsePass(%q) succeeded", bad)
		}
	}
}

func TestNewUpstreamValidates(t *testing.T) {
	if _, err := proxy.NewUpstream("", []proxy.Server{{Addr: "a:1"}}, 0); err == nil {
		t.Error("empty name accepted")
	}
	if _, err := proxy.NewUpstream("u", nil, 0); err == nil {
		t.Error("no servers accepted")
	}
	if _, err := proxy.NewUpstream("u", []proxy.Server{{Addr: "a:1", Backup: true}}, 0); err == nil {
		t.Error("only backup servers accepted")
	}
	if _, err := proxy.NewUpstream("u", []proxy.Server{{Addr: "a:1"}}, -1); err == nil {
		t.Error("negative keepalive accepted")
	}
	// NGINX's server line refuses these: "invalid port", "invalid host".
	for _, bad := range []string{"127.0.0.1:0", "127.0.0.1:70000", "127.0.0.1:abc", "127.0.0.1:", "127.0.0.1:1/x", "a/x", "a:1?x"} {
		if _, err := proxy.NewUpstream("u", []proxy.Server{{Addr: bad}}, 0); err == nil {
			t.Errorf("server %q accepted", bad)
		}
	}
	u, err := proxy.NewUpstream("u", []proxy.Server{{Addr: "example.com"}, {Addr: "[::1]"}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Servers(); len(got) != 2 || got[0].Addr != "example.com" {
		t.Errorf("Servers() = %+v", got)
	}
	if u.KeepaliveTimeout != 60*time.Second || u.KeepaliveRequests != 1000 {
		t.Errorf("keepalive defaults: %v %d", u.KeepaliveTimeout, u.KeepaliveRequests)
	}
}

func TestNewValidates(t *testing.T) {
	p, _ := proxy.ParsePass("http://127.0.0.1:1")
	if _, err := proxy.New(proxy.Options{Pass: p, HTTPVersion: "2"}); err == nil {
		t.Error("HTTP version 2 accepted")
	}
	if _, err := proxy.New(proxy.Options{Pass: p, SetHeaders: []proxy.Header{proxy.Static("Content-Length", "1")}}); err == nil {
		t.Error("Content-Length header accepted")
	}
	if _, err := proxy.New(proxy.Options{}); err == nil {
		t.Error("empty Pass accepted")
	}
}

// FuzzParsePass checks that a target read back from its String is the
// same Pass: proxy_pass with variables parses values built from requests.
func FuzzParsePass(f *testing.F) {
	for _, s := range []string{"http://backend", "https://[::1]:8443/a?b", "http://unix:/run/a.sock:/x/",
		"http://unix:/s", "HTTP://Example.com:80/", "http://unix::", "http://a:1:2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		p, err := proxy.ParsePass(target)
		if err != nil {
			return
		}
		q, err := proxy.ParsePass(p.String())
		if err != nil || q != p {
			t.Fatalf("%q: %+v, read back from %q as %+v (%v)", target, p, p.String(), q, err)
		}
		if p.Unix != "" && (strings.Contains(p.Unix, ":") || p.Host != "localhost" || p.Port != "") {
			t.Fatalf("%q: %+v", target, p)
		}
	})
}

// ParseVariablePass reads a proxy_pass value as NGINX does at request
// time: a host with userinfo is a name to look up, an invalid port is
// named as NGINX names it, and a host no Host header could carry is
// still refused (where ParsePass, at load, refuses "@" too).
func TestParseVariablePass(t *testing.T) {
	if p, err := proxy.ParseVariablePass("http://user@example.com:81/x"); err != nil || p.Host != "user@example.com" || p.Port != "81" || p.URI != "/x" {
		t.Errorf("userinfo: %+v, %v", p, err)
	}
	if _, err := proxy.ParsePass("http://user@example.com"); err == nil {
		t.Error("ParsePass accepted a host with userinfo")
	}
	for target, want := range map[string]string{
		"http://u:p@127.0.0.1/x": `invalid port in upstream "u:p@127.0.0.1/x"`,
		"http://a b":             `invalid host "a b"`,
		"http://a\x7f":           `invalid host`,
		"ftp://a":                `invalid URL prefix`,
	} {
		if _, err := proxy.ParseVariablePass(target); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", target, err, want)
		}
	}
}
