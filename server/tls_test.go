package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testpki"
)

// tlsH1 is a raw TLS connection that chose HTTP/1.1 by ALPN.
type tlsH1 struct {
	*tls.Conn
	br *bufio.Reader
}

func dialH1(t *testing.T, addr string) *tlsH1 {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, ServerName: "tls.test", NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return &tlsH1{c, bufio.NewReader(c)}
}

// read reads one response and its body.
func (c *tlsH1) read(t *testing.T) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// closed reports whether the server closed the connection without
// sending anything more.
func (c *tlsH1) closed() bool {
	n, err := c.br.Read(make([]byte, 1))
	return n == 0 && err == io.EOF
}

// A TLS listener serves HTTP/1.1 with http1, under the address's
// connection limits (which a reload changes on the kept socket), and
// HTTP/2 with Go's server; Shutdown closes the idle connections of both
// and returns.
func TestTLSListenerProtocols(t *testing.T) {
	dir := t.TempDir()
	cert, key := testpki.WriteKeyPair(t, dir, "tls", testpki.SelfSigned(t, "tls.test"))
	conf := func(requests int) *Config {
		return mustLoadNoCleanup(t, fmt.Sprintf(`http { keepalive_requests %d;
			server { listen 127.0.0.1:0 ssl http2; ssl_certificate %s; ssl_certificate_key %s;
				location / { return 200 "$scheme $https $server_protocol"; } } }`, requests, cert, key))
	}
	rt := NewRuntime()
	if err := rt.Apply(conf(2)); err != nil {
		t.Fatal(err)
	}
	shut := false
	t.Cleanup(func() {
		if !shut {
			_ = rt.Shutdown(context.Background())
		}
	})
	addr := rt.Addrs()[0].String()
	h2 := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "tls.test"}, ForceAttemptHTTP2: true,
	}}
	getH2 := func() {
		t.Helper()
		resp, err := h2.Get("https://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.ProtoMajor != 2 || string(b) != "https on HTTP/2.0" {
			t.Fatalf("h2: %s %q", resp.Proto, b)
		}
	}

	// Two pipelined requests on one connection, the second its last
	// (keepalive_requests 2).
	c := dialH1(t, addr)
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		resp, body := c.read(t)
		if body != "https on HTTP/1.1" || resp.Close != (i == 1) {
			t.Fatalf("response %d: %q, close %v", i, body, resp.Close)
		}
	}
	if !c.closed() {
		t.Fatal("the connection stays open past keepalive_requests")
	}
	getH2()

	// The reload keeps the socket; HTTP/1.1 takes the new limit.
	if err := rt.Apply(conf(1)); err != nil {
		t.Fatal(err)
	}
	if got := rt.Addrs()[0].String(); got != addr {
		t.Fatalf("the reload replaced the socket: %s, then %s", addr, got)
	}
	c = dialH1(t, addr)
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if resp, _ := c.read(t); !resp.Close {
		t.Fatal("after the reload to keepalive_requests 1, the first response keeps the connection")
	}
	getH2()

	// Idle connections of both protocols close on Shutdown.
	idle := dialH1(t, addr)
	if _, err := io.WriteString(idle, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if resp, _ := idle.read(t); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	shut = true
	if err := rt.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Shutdown took %v with idle connections only", d)
	}
	if !idle.closed() {
		t.Fatal("an idle HTTP/1.1 connection outlived Shutdown")
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Fatal("still accepting after Shutdown")
	}
}

// ssl_certificate at http level is inherited by the servers that name
// none; a server's own replaces it. The deprecated "ssl on" in an address's
// default server makes the address speak TLS without "listen ... ssl".
func TestTLSCertificateInherited(t *testing.T) {
	dir := t.TempDir()
	hcert, hkey := testpki.WriteKeyPair(t, dir, "http", testpki.SelfSigned(t, "http.test"))
	ocert, okey := testpki.WriteKeyPair(t, dir, "own", testpki.SelfSigned(t, "own.test"))
	cfg := mustLoadNoCleanup(t, fmt.Sprintf(`http {
		ssl_certificate %s; ssl_certificate_key %s;
		server { listen 127.0.0.1:0 ssl; server_name a.test; return 200 "a $https"; }
		server { listen 127.0.0.1:0 ssl; server_name b.test; ssl_certificate %s; ssl_certificate_key %s; return 200 "b $https"; }
		server { listen 127.0.0.2:0; ssl on; return 200 "old $https"; }
	}`, hcert, hkey, ocert, okey))
	if n := cfg.Notices(); len(n) != 1 || !strings.Contains(n[0], `the "ssl" directive is deprecated, use the "listen ... ssl" directive instead in test.conf:5`) {
		t.Errorf("notices %q", n)
	}
	rt := NewRuntime()
	if err := rt.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Shutdown(context.Background()) })
	addrs := map[string]string{}
	for _, a := range rt.Addrs() {
		addrs[a.(*net.TCPAddr).IP.String()] = a.String()
	}
	for _, tc := range []struct{ addr, sni, cert, body string }{
		{addrs["127.0.0.1"], "a.test", "http.test", "a on"},
		{addrs["127.0.0.1"], "b.test", "own.test", "b on"},
		{addrs["127.0.0.2"], "old.test", "http.test", "old on"},
	} {
		c, err := tls.Dial("tcp", tc.addr, &tls.Config{InsecureSkipVerify: true, ServerName: tc.sni, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatalf("%s %s: %v", tc.addr, tc.sni, err)
		}
		if got := c.ConnectionState().PeerCertificates[0].DNSNames[0]; got != tc.cert {
			t.Errorf("%s: certificate for %s, want %s", tc.sni, got, tc.cert)
		}
		h := &tlsH1{c, bufio.NewReader(c)}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: "+tc.sni+"\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		if _, body := h.read(t); body != tc.body {
			t.Errorf("%s: %q, want %q", tc.sni, body, tc.body)
		}
		_ = c.Close()
	}
}

func TestTLSConfigErrors(t *testing.T) {
	dir := t.TempDir()
	cert, key := testpki.WriteKeyPair(t, dir, "x", testpki.SelfSigned(t, "x.test"))
	for _, tc := range []struct{ src, want string }{
		{"http {\nserver { listen 127.0.0.1:1; ssl on; }\n}", `no "ssl_certificate" is defined for the "ssl" directive in t.conf:2`},
		{"http {\nssl on;\nserver { listen 127.0.0.1:1; }\n}", `no "ssl_certificate" is defined for the "ssl" directive in t.conf:2`},
		{"http {\nssl_certificate " + cert + ";\nserver { listen 127.0.0.1:1 ssl; }\n}", `no "ssl_certificate_key" is defined for certificate "` + cert + `" in t.conf:2`},
		{"http {\nserver { listen 127.0.0.1:1 ssl; }\nserver { listen 127.0.0.1:1 ssl; ssl_certificate " + cert + "; ssl_certificate_key " + key + "; }\n}",
			`no "ssl_certificate" is defined for the "listen ... ssl" directive in t.conf:2`},
		{"http { ssl maybe; }", `invalid value "maybe"`},
		{"http { ssl_certificate $nosuchvariable.pem; }", `unknown "nosuchvariable" variable`},
	} {
		cfg, err := LoadString("t.conf", tc.src)
		if err == nil {
			cfg.Close()
			t.Errorf("%q: loaded, want %s", tc.src, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got  %v\n want %s", tc.src, err, tc.want)
		}
	}
}

// The TLS extras refuse what NGINX refuses, naming the file and line, and
// say which settings they cannot honour.
func TestSSLExtrasConfig(t *testing.T) {
	dir := t.TempDir()
	cert, key := testpki.WriteKeyPair(t, dir, "x", testpki.SelfSigned(t, "x.test"))
	short := filepath.Join(dir, "short.key")
	if err := os.WriteFile(short, make([]byte, 47), 0o600); err != nil {
		t.Fatal(err)
	}
	pair := "ssl_certificate " + cert + "; ssl_certificate_key " + key + ";"
	for _, tc := range []struct{ src, want string }{
		{"http {\nssl_ciphers DHE-RSA-AES128-SHA;\n}", `SSL_CTX_set_cipher_list("DHE-RSA-AES128-SHA") failed: no cipher suite that mosaic implements matches "DHE-RSA-AES128-SHA" in t.conf:2`},
		{"http {\nssl_ecdh_curve prime256v1:bogus;\n}", `unknown group "bogus" in t.conf:2`},
		{"http {\nssl_session_cache shared:SSL;\n}", `invalid zone size "shared:SSL" in t.conf:2`},
		{"http {\nssl_session_cache shared:SSL:8k;\n}", `session cache "shared:SSL:8k" is too small in t.conf:2`},
		{"http {\nssl_session_cache off builtin;\n}", `invalid session cache`},
		{"http {\nssl_verify_client maybe;\n}", `it must be "on", "off", "optional" or "optional_no_ca" in t.conf:2`},
		{"http {\nssl_stapling_responder https://ocsp.test/;\n}", `invalid URL prefix in OCSP responder`},
		{"http {\nserver { listen 127.0.0.1:1 ssl; " + pair + "\nssl_session_ticket_key " + short + "; }\n}", `must be 80 or 48 bytes in t.conf:3`},
		{"http {\nserver { listen 127.0.0.1:1 ssl; " + pair + " ssl_verify_client on; }\n}", `no ssl_client_certificate for ssl_verify_client in t.conf:2`},
		{"http {\nserver { listen 127.0.0.1:1 ssl; " + pair + " ssl_verify_client optional_no_ca; ssl_ocsp on; }\n}", `"ssl_ocsp" is incompatible with "ssl_verify_client optional_no_ca" in t.conf:2`},
		{"http {\nssl_ocsp_cache shared:O:1k;\n}", `OCSP cache "shared:O:1k" is too small in t.conf:2`},
		{"http {\nssl_ocsp maybe;\n}", `it must be "on", "off" or "leaf" in t.conf:2`},
		{"http {\nssl_conf_command Bogus 1;\n}", `SSL_CONF_cmd("Bogus", "1") failed: unknown command in t.conf:2`},
		{"http {\nssl_conf_command MinProtocol TLSv9;\n}", `unknown protocol "TLSv9" in t.conf:2`},
		{"http {\nserver { listen 127.0.0.1:1 ssl; " + pair + " ssl_password_file /nonexistent/pw; }\n}", `open() "/nonexistent/pw" failed`},
	} {
		cfg, err := LoadString("t.conf", tc.src)
		if err == nil {
			cfg.Close()
			t.Errorf("%q: loaded, want %s", tc.src, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got  %v\n want %s", tc.src, err, tc.want)
		}
	}
	cfg := mustLoad(t, "http { ssl_prefer_server_ciphers off; ssl_buffer_size 4k; ssl_dhparam /nonexistent; ssl_early_data on;\n"+
		"ssl_ciphers TLS_AES_128_GCM_SHA256:HIGH; ssl_ecdh_curve X448:X25519; ssl_conf_command Options KTLS; server { listen 127.0.0.1:0 ssl; http2 on; "+pair+" } }")
	notices := strings.Join(cfg.Notices(), "\n")
	for _, want := range []string{`"ssl_prefer_server_ciphers off"`, `"ssl_buffer_size"`, `ignoring "ssl_dhparam" directive`, `ECDHE only and has no finite-field DH cipher suites`,
		`TLS 1.3 cipher suites TLS_AES_128_GCM_SHA256`, `ignoring X448 in "ssl_ecdh_curve"`, `ignoring "ssl_early_data" on`, `ignoring "ssl_conf_command" Options`} {
		if !strings.Contains(notices, want) {
			t.Errorf("no notice %s in:\n%s", want, notices)
		}
	}
}

// ssl_protocols is a bitmask in NGINX: lines at one level add up, so a
// snippet's "ssl_protocols TLSv1.2;" and a later "ssl_protocols TLSv1.3;"
// allow both, not the last alone; a server's own lines replace the http
// level's.
func TestSSLProtocolsLinesAddUpAsNGINX(t *testing.T) {
	cfg := mustLoad(t, `http {
	ssl_protocols TLSv1.3;
	ssl_protocols TLSv1.2;
	server { listen 127.0.0.1:0; ssl_protocols TLSv1.1; }
}`)
	if p := LocConf[*coreLoc](cfg.HTTP(), coreModule).sslProtocols.V; p != [2]uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Errorf("http: %x, want TLSv1.2 to TLSv1.3", p)
	}
	if p := LocConf[*coreLoc](cfg.Servers()[0].level, coreModule).sslProtocols.V; p != [2]uint16{tls.VersionTLS11, tls.VersionTLS11} {
		t.Errorf("server: %x, want TLSv1.1 alone", p)
	}
}
