package vars

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testpki"
)

// fakeMapper stands for the server's location in $document_root and
// $request_filename.
type fakeMapper struct{ root string }

func (m fakeMapper) DocumentRoot(*http.Request) string { return m.root }
func (m fakeMapper) RequestFilename(_ *http.Request, uri string) string {
	return m.root + uri
}

// fakeWire stands for the connection's sizes and framing.
type fakeWire struct {
	req, head, framing int64
	chunked, closing   bool
	pipelined          bool
}

func (w fakeWire) RequestSize() int64               { return w.req }
func (w fakeWire) HeaderSize() int64                { return w.head }
func (w fakeWire) BodyOverhead(bool) int64          { return w.framing }
func (w fakeWire) Framing() (chunked, closing bool) { return w.chunked, w.closing }
func (w fakeWire) Pipelined() bool                  { return w.pipelined }
func (w fakeWire) RequestLines() string             { return "" }
func (w fakeWire) RequestLine() string              { return "" }

// varRequest is a request as the server hands it to handlers, with a
// State that the server would have filled in.
func varRequest(t *testing.T) (*http.Request, *State) {
	t.Helper()
	r := httptest.NewRequest("GET", "/orig/path?a=1&B=two&a=3&flag&c=x%20y", nil)
	r.RequestURI = "/orig/path?a=1&B=two&a=3&flag&c=x%20y"
	r.Host = "Example.COM:8080"
	r.RemoteAddr = "192.0.2.7:40123"
	r.Header = http.Header{
		"User-Agent":      {"ua/1"},
		"X-Multi":         {"one", "two"},
		"X-Forwarded-For": {"10.0.0.1", "10.0.0.2"},
		"Cookie":          {"x=1; SID = v1 ;sid=2, other=o", "later=3"},
		"Content-Type":    {"text/x-form", "text/second"},
		"Content-Length":  {"5"},
		"Authorization":   {"Basic dXNlcjpwYXNz"},
		"X_under":         {"kept"},
	}
	st := &State{
		Start: time.Now().Add(-1500 * time.Millisecond), ConnID: 42, ConnRequests: 3,
		ConnStart:  time.Now().Add(-2 * time.Second),
		ServerName: "srv.test", Host: "example.com", RequestURI: r.RequestURI,
		Status: 201, BodyBytes: 100, Wire: fakeWire{req: 321, head: 77, framing: 10, pipelined: true},
		Header: http.Header{
			"Content-Type":  {"text/html"},
			"Cache-Control": {"no-cache", "private"},
			"X-Two":         {"first", "second"},
		},
		UpstreamHeader: http.Header{
			"X-Up":       {"u1", "u2"},
			"Set-Cookie": {"other=1; Path=/", "SID = up-1 ; Path=/; HttpOnly"},
		},
		Paths: fakeMapper{root: "/srv/www"},
	}
	st.MakeRare().RequestBody = []byte("body bytes")
	ctx := context.WithValue(NewContext(r.Context(), st), http.LocalAddrContextKey,
		&net.TCPAddr{IP: net.ParseIP("198.51.100.1"), Port: 8443})
	return r.WithContext(ctx), st
}

// TestCoreVariableFormats checks the exact value of every core variable
// for one request.
func TestCoreVariableFormats(t *testing.T) {
	r, st := varRequest(t)
	host, _ := os.Hostname()
	exact := map[string]string{
		"remote_addr":             "192.0.2.7",
		"binary_remote_addr":      "\xc0\x00\x02\x07",
		"remote_port":             "40123",
		"remote_user":             "user",
		"server_addr":             "198.51.100.1",
		"server_port":             "8443",
		"server_protocol":         "HTTP/1.1",
		"server_name":             "srv.test",
		"hostname":                host,
		"nginx_version":           "1.22.1",
		"connection":              "42",
		"connection_requests":     "3",
		"http2":                   "",
		"request":                 "GET /orig/path?a=1&B=two&a=3&flag&c=x%20y HTTP/1.1",
		"request_method":          "GET",
		"request_uri":             "/orig/path?a=1&B=two&a=3&flag&c=x%20y",
		"request_length":          "321",
		"request_body":            "body bytes",
		"uri":                     "/orig/path",
		"document_uri":            "/orig/path",
		"args":                    "a=1&B=two&a=3&flag&c=x%20y",
		"query_string":            "a=1&B=two&a=3&flag&c=x%20y",
		"is_args":                 "?",
		"document_root":           "/srv/www",
		"request_filename":        "/srv/www/orig/path",
		"host":                    "example.com",
		"scheme":                  "http",
		"https":                   "",
		"content_type":            "text/x-form",
		"content_length":          "5",
		"status":                  "201",
		"body_bytes_sent":         "110",
		"bytes_sent":              "187",
		"limit_rate":              "0",
		"pipe":                    "p",
		"http_user_agent":         "ua/1",
		"http_x_multi":            "one",
		"http_x_forwarded_for":    "10.0.0.1, 10.0.0.2",
		"http_cookie":             "x=1; SID = v1 ;sid=2, other=o; later=3",
		"http_x_under":            "kept",
		"http_missing":            "",
		"sent_http_content_type":  "text/html",
		"sent_http_cache_control": "no-cache, private",
		"sent_http_x_two":         "first",
		"arg_a":                   "1",
		"arg_b":                   "two",
		"arg_c":                   "x%20y",
		"arg_flag":                "",
		"cookie_sid":              "v1 ",
		"cookie_other":            "o",
		"cookie_later":            "3",
		"cookie_x":                "1",
		"cookie_nope":             "",
		"upstream_http_x_up":      "u1",
		"upstream_cookie_sid":     "up-1 ",
		"upstream_cookie_other":   "1",
		"upstream_cookie_path":    "",
		"ssl_protocol":            "",
		"ssl_client_verify":       "",
	}
	for name, want := range exact {
		if got := MustCompile("$" + name).Eval(r); got != want {
			t.Errorf("$%s = %q, want %q", name, got, want)
		}
	}
	forms := map[string]string{
		"pid":             `[1-9][0-9]*`,
		"request_id":      `[0-9a-f]{32}`,
		"msec":            `[0-9]{10}\.[0-9]{3}`,
		"request_time":    `1\.[5-9][0-9]{2}`,
		"connection_time": `[2-9]\.[0-9]{3}`,
		"time_local":      `[0-3][0-9]/[A-Z][a-z]{2}/20[0-9]{2}:[0-2][0-9]:[0-5][0-9]:[0-6][0-9] [+-][0-9]{4}`,
		"time_iso8601":    `20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9][+-][0-9]{2}:[0-9]{2}`,
		"date_gmt":        `(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, [0-3][0-9]-[A-Z][a-z]{2}-20[0-9]{2} [0-2][0-9]:[0-5][0-9]:[0-6][0-9] GMT`,
		"date_local":      `(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, [0-3][0-9]-[A-Z][a-z]{2}-20[0-9]{2} [0-2][0-9]:[0-5][0-9]:[0-6][0-9] [A-Z+-][A-Za-z0-9+-]*`,
	}
	for name, re := range forms {
		if got := MustCompile("$" + name).Eval(r); !regexp.MustCompile("^" + re + "$").MatchString(got) {
			t.Errorf("$%s = %q, want the form %s", name, got, re)
		}
	}
	if got := MustCompile("$HOST|$Http_User_Agent|${COOKIE_sid}").Eval(r); got != "example.com|ua/1|v1 " {
		t.Errorf("names in capitals: %q", got)
	}
	// NGINX reads a field's name as lower case with "-" as "_" and then
	// compares it with the name's suffix byte for byte: a suffix with a
	// "-" (reachable as "if ($http_x-multi)", which looks the word up
	// whole) names no field there, and "if" tests it as empty.
	sc := NewScope()
	var dashed []*Template
	for _, name := range []string{"http_x-multi", "sent_http_x-two", "upstream_http_x-up"} {
		v, err := sc.CompileVar(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		dashed = append(dashed, v)
	}
	if err := sc.Resolve(); err != nil {
		t.Fatal(err)
	}
	for _, v := range dashed {
		if got := v.Eval(r); got != "" {
			t.Errorf("$%s found a field: %q", v, got)
		}
	}
	if a, b := MustCompile("$request_id").Eval(r), MustCompile("$request_id").Eval(r); a != b {
		t.Errorf("$request_id changed within a request: %q, %q", a, b)
	}
	if a, b := newRequestID(), newRequestID(); a == b {
		t.Errorf("two requests got the $request_id %q", a)
	}
	sub := &State{}
	sub.ShareRequestID(st)
	if a, b := sub.RequestID(), st.RequestID(); a != b {
		t.Errorf("a subrequest's $request_id %q, its parent's %q", a, b)
	}
}

// A redirect moves $uri and $args for every holder of the request: the
// State's URL wins over the request's own.
func TestURIFollowsState(t *testing.T) {
	r, st := varRequest(t)
	st.URL = &url.URL{Path: "/new/place", RawQuery: "z=9"}
	for src, want := range map[string]string{
		"$uri|$args|$is_args|$arg_z|$arg_a": "/new/place|z=9|?|9|",
		"$request_uri":                      "/orig/path?a=1&B=two&a=3&flag&c=x%20y",
		"$request_filename":                 "/srv/www/new/place",
	} {
		if got := MustCompile(src).Eval(r); got != want {
			t.Errorf("%s = %q, want %q", src, got, want)
		}
	}
	st.URL = &url.URL{Path: "/bare"}
	if got := MustCompile("[$args][$is_args]").Eval(r); got != "[][]" {
		t.Errorf("without arguments: %q", got)
	}
}

// The fields that frame the response come from the writer.
// $realpath_root resolves the links in $document_root, and is empty when
// it names nothing.
func TestRealpathRoot(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir) // the temporary directory may itself be a link
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "release-2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("release-2", filepath.Join(dir, "current")); err != nil {
		t.Fatal(err)
	}
	r, st := varRequest(t)
	for root, want := range map[string]string{
		filepath.Join(dir, "current"):       filepath.Join(real, "release-2"),
		filepath.Join(dir, "current") + "/": filepath.Join(real, "release-2"),
		filepath.Join(dir, "missing"):       "",
	} {
		st.Paths = fakeMapper{root: root}
		if got := MustCompile("$realpath_root").Eval(r); got != want {
			t.Errorf("root %s: $realpath_root = %q, want %q", root, got, want)
		}
	}
}

func TestSentHTTPVariables(t *testing.T) {
	r, st := varRequest(t)
	const vars = "$sent_http_link|$sent_http_connection|$sent_http_keep_alive|$sent_http_transfer_encoding|$sent_http_none"
	st.Header = http.Header{"Link": {"<a>", "<b>"}, "Keep-Alive": {"timeout=5"}}
	for _, c := range []struct {
		status int
		wire   WireSizer
		want   string
	}{
		{200, fakeWire{}, "<a>, <b>|keep-alive|timeout=5||"},
		{200, fakeWire{chunked: true, closing: true}, "<a>, <b>|close||chunked|"},
		{101, fakeWire{}, "<a>, <b>|upgrade|||"},
		{200, nil, "<a>, <b>||timeout=5||"}, // HTTP/2: the header map alone
	} {
		st.Status, st.Wire = c.status, c.wire
		if got := MustCompile(vars).Eval(r); got != c.want {
			t.Errorf("%d %+v: %q, want %q", c.status, c.wire, got, c.want)
		}
	}
}

// The variables read over HTTP/2, over IPv6, and without any State.
func TestVariablesOtherConnections(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "[2001:db8::1]:5555"
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/2.0", 2, 0
	for src, want := range map[string]string{
		"$remote_addr":        "2001:db8::1",
		"$binary_remote_addr": string(net.ParseIP("2001:db8::1").To16()),
		"$http2":              "h2c",
		"$server_protocol":    "HTTP/2.0",
		"$connection_requests|$request_length|$bytes_sent|$limit_rate|$request_body|$pipe": "0|0|0|0||.",
	} {
		if got := MustCompile(src).Eval(r); got != want {
			t.Errorf("%s = %q, want %q", src, got, want)
		}
	}
	r.TLS = &tls.ConnectionState{Version: tls.VersionTLS13}
	if got := MustCompile("$http2|$https|$scheme").Eval(r); got != "h2|on|https" {
		t.Errorf("over TLS: %q", got)
	}
	r.RemoteAddr = "unix:"
	if got := MustCompile("$remote_addr|$binary_remote_addr|$remote_port").Eval(r); got != "unix:|unix:|" {
		t.Errorf("over a Unix socket: %q", got)
	}
}

func TestQueryArg(t *testing.T) {
	for _, c := range []struct {
		q, name, want string
		found         bool
	}{
		{"a=1", "a", "1", true},
		{"a&a=2", "a", "2", true},
		{"xa=1&a=2", "a", "2", true},
		{"A=up", "a", "up", true},
		{"ab=1", "a", "", false},
		{"a=", "a", "", true},
		{"a", "a", "", false},
		{"a=1=2", "a", "1=2", true},
		{"", "a", "", false},
		{"b=1&&a=3", "a", "3", true},
	} {
		if got, found := queryArg(c.q, c.name); got != c.want || found != c.found {
			t.Errorf("queryArg(%q, %q) = %q, %v, want %q, %v", c.q, c.name, got, found, c.want, c.found)
		}
	}
}

func TestCookieValue(t *testing.T) {
	for _, c := range []struct {
		lines      []string
		name, want string
	}{
		{[]string{"a=1; b=2"}, "b", "2"},
		{[]string{"a=1,b=2"}, "b", "2"},
		{[]string{"ab=1; a=2"}, "a", "2"},
		{[]string{"a = 1 ; b"}, "a", "1 "},
		{[]string{"A=up"}, "a", "up"},
		{[]string{"a"}, "a", ""},
		{[]string{"x=1", "a=v,w"}, "a", "v,w"},
		{[]string{"a=\"q\""}, "a", "\"q\""},
		// A name without "=" takes the pair after it along, as in NGINX.
		{[]string{"a; a=1"}, "a", ""},
		{[]string{"a ,a=1; a=2"}, "a", "2"},
		{[]string{"a", "a=3"}, "a", "3"},
	} {
		if got, _ := cookieValue(c.lines, c.name); got != c.want {
			t.Errorf("cookieValue(%q, %q) = %q, want %q", c.lines, c.name, got, c.want)
		}
	}
}

// TestChunkedTransferEncodingVar: the server keeps a chunked body's
// Transfer-Encoding out of the header map; $http_transfer_encoding is the
// line as the client sent it, or "chunked" where the lines are unknown.
func TestChunkedTransferEncodingVar(t *testing.T) {
	get, ok := LookupValue("http_transfer_encoding")
	if !ok {
		t.Fatal("no $http_transfer_encoding")
	}
	r := httptest.NewRequest("POST", "/", nil)
	if v, ok := get(r, &State{}); ok {
		t.Errorf("without a body: %q, want none", v)
	}
	r.TransferEncoding = []string{"chunked"}
	for _, c := range []struct{ lines, want string }{
		{"Host: a\r\ntransfer-ENCODING:  Chunked \r\nX: y\r\n", "Chunked"},
		{"Host: a\nTransfer-Encoding:chunked", "chunked"},
		{"", "chunked"},
	} {
		if v, ok := get(r, &State{HeaderLines: c.lines}); !ok || v != c.want {
			t.Errorf("lines %q: %q %v, want %q", c.lines, v, ok, c.want)
		}
	}
}

// testClientCert makes a client certificate with a subject that needs
// RFC 2253 escapes.
func testClientCert(t testing.TB) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(0xABC),
		Subject: pkix.Name{CommonName: "a,b+c \"d\"", Organization: []string{"Org; Ltd"},
			OrganizationalUnit: []string{"#unit"}, Country: []string{"US"},
			ExtraNames: []pkix.AttributeTypeAndValue{{Type: []int{1, 2, 840, 113549, 1, 9, 1}, Value: "me@example.com"}}},
		NotBefore: time.Date(2026, 3, 5, 7, 8, 9, 0, time.UTC),
		NotAfter:  time.Now().Add(10*24*time.Hour + time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSSLVariableFormats checks the TLS variables, those of a client
// certificate against what OpenSSL's own tool prints for it when it is
// installed.
func TestSSLVariableFormats(t *testing.T) {
	cert := testClientCert(t)
	r := httptest.NewRequest("GET", "/", nil)
	r.TLS = &tls.ConnectionState{
		Version: tls.VersionTLS12, CipherSuite: tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
		CurveID: tls.CurveP256, ServerName: "sni.test", NegotiatedProtocol: "http/1.1", DidResume: true,
		PeerCertificates: []*x509.Certificate{cert},
	}
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}))
	exact := map[string]string{
		"ssl_protocol":           "TLSv1.2",
		"ssl_cipher":             "ECDHE-RSA-AES256-GCM-SHA384",
		"ssl_curve":              "prime256v1",
		"ssl_server_name":        "sni.test",
		"ssl_alpn_protocol":      "http/1.1",
		"ssl_session_reused":     "r",
		"ssl_early_data":         "",
		"ssl_client_verify":      "FAILED:unable to verify the first certificate",
		"ssl_client_raw_cert":    pemText,
		"ssl_client_cert":        strings.ReplaceAll(strings.TrimSuffix(pemText, "\n"), "\n", "\n\t"),
		"ssl_client_s_dn":        `emailAddress=me@example.com,CN=a\,b\+c \"d\",OU=\#unit,O=Org\; Ltd,C=US`,
		"ssl_client_i_dn":        `emailAddress=me@example.com,CN=a\,b\+c \"d\",OU=\#unit,O=Org\; Ltd,C=US`, // self-signed
		"ssl_client_s_dn_legacy": `/C=US/O=Org; Ltd/OU=#unit/CN=a,b+c "d"/emailAddress=me@example.com`,
		"ssl_client_i_dn_legacy": `/C=US/O=Org; Ltd/OU=#unit/CN=a,b+c "d"/emailAddress=me@example.com`,
		"ssl_client_serial":      "0ABC",
		"ssl_client_v_start":     "Mar  5 07:08:09 2026 GMT",
		"ssl_client_v_remain":    "10",
	}
	for name, want := range exact {
		if got := MustCompile("$" + name).Eval(r); got != want {
			t.Errorf("$%s = %q, want %q", name, got, want)
		}
	}
	esc := MustCompile("$ssl_client_escaped_cert").Eval(r)
	if back, err := url.PathUnescape(esc); err != nil || back != pemText || strings.ContainsAny(esc, "+/= \n") {
		t.Errorf("$ssl_client_escaped_cert = %q", esc)
	}
	if fp := MustCompile("$ssl_client_fingerprint").Eval(r); !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(fp) {
		t.Errorf("$ssl_client_fingerprint = %q", fp)
	}
	r.TLS.VerifiedChains = [][]*x509.Certificate{{cert}}
	r.TLS.Version, r.TLS.CipherSuite = tls.VersionTLS13, tls.TLS_AES_128_GCM_SHA256
	if got := MustCompile("$ssl_client_verify|$ssl_protocol|$ssl_cipher").Eval(r); got != "SUCCESS|TLSv1.3|TLS_AES_128_GCM_SHA256" {
		t.Errorf("verified, TLS 1.3: %q", got)
	}
	r.TLS.PeerCertificates = nil
	if got := MustCompile("$ssl_client_verify|$ssl_client_s_dn|$ssl_client_raw_cert").Eval(r); got != "NONE||" {
		t.Errorf("without a client certificate: %q", got)
	}

	openssl, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl is not installed: the certificate's forms were checked against fixed values only")
	}
	file := filepath.Join(t.TempDir(), "c.pem")
	if err := os.WriteFile(file, []byte(pemText), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(openssl, "x509", "-in", file, "-noout", "-nameopt", "RFC2253",
		"-subject", "-issuer", "-serial", "-startdate", "-enddate", "-fingerprint", "-sha1").Output()
	if err != nil {
		t.Fatal(err)
	}
	r.TLS.PeerCertificates = []*x509.Certificate{cert}
	fp := strings.ToLower(strings.ReplaceAll(MustCompile("$ssl_client_fingerprint").Eval(r), ":", ""))
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		var name string
		switch strings.ToLower(k) {
		case "subject":
			name = "ssl_client_s_dn"
		case "issuer":
			name = "ssl_client_i_dn"
		case "serial":
			name = "ssl_client_serial"
		case "notbefore":
			name = "ssl_client_v_start"
		case "notafter":
			name = "ssl_client_v_end"
		case "sha1 fingerprint":
			if got := strings.ToLower(strings.ReplaceAll(v, ":", "")); got != fp {
				t.Errorf("$ssl_client_fingerprint = %q, openssl %q", fp, got)
			}
			continue
		default:
			continue
		}
		if got := MustCompile("$" + name).Eval(r); got != v {
			t.Errorf("$%s = %q, openssl prints %q", name, got, v)
		}
	}
}

// FuzzCookieArgs feeds request header and query text to the parsers of
// $cookie_NAME, $arg_NAME and $upstream_cookie_NAME: they must not panic
// and must return a part of their input.
func FuzzCookieArgs(f *testing.F) {
	f.Add("a=1; b = 2 ;c", "b")
	f.Add("a&a=1&A=2", "a")
	f.Add(";,=; =", "")
	f.Fuzz(func(t *testing.T, text, name string) {
		arg, _ := queryArg(text, name)
		cookie, _ := cookieValue([]string{text}, name)
		set, _ := setCookieValue([]string{text}, name)
		for _, v := range []string{cookie, arg, set} {
			if !strings.Contains(text, v) {
				t.Fatalf("%q from %q", v, text)
			}
		}
	})
}

// FuzzDistinguishedName feeds DER to the printers of a client
// certificate's names, which come from the peer: they must not panic.
func FuzzDistinguishedName(f *testing.F) {
	cert := testClientCert(f)
	f.Add(cert.RawSubject)
	f.Add(cert.RawIssuer)
	f.Add([]byte{0x30, 0x03, 0x31, 0x01, 0x30})
	f.Fuzz(func(t *testing.T, der []byte) {
		_ = dnRFC2253(der)
		_ = dnLegacy(der)
	})
}

// TestEveryVariableHasFormatTest keeps the tables above complete: each
// variable this package registers is named in one of them.
func TestEveryVariableHasFormatTest(t *testing.T) {
	src, err := os.ReadFile("builtin_test.go")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for _, name := range Names() {
		family, isFamily := strings.CutSuffix(name, "NAME")
		if strings.HasPrefix(name, "test_") {
			continue // registered by the tests themselves
		}
		found := false
		if isFamily {
			found = regexp.MustCompile(`"\$?` + family + `[a-z]`).MatchString(text)
		} else {
			found = regexp.MustCompile(`"\$?` + name + `["|]`).MatchString(text)
		}
		if !found {
			t.Errorf("$%s has no format test", name)
		}
	}
}

// TestOfferedCiphersAndCurves checks $ssl_ciphers and $ssl_curves: the
// client's offer by OpenSSL's names, in hex those it does not name.
func TestOfferedCiphersAndCurves(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	st := &State{Hello: &ClientHello{
		CipherSuites: []uint16{0x0a0a, tls.TLS_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, 0x00ff, 0xc0ad},
		Curves:       []tls.CurveID{0x1a1a, tls.X25519MLKEM768, tls.X25519, tls.CurveP256, 30, 256},
	}}
	if got := MustCompile("$ssl_ciphers|$ssl_curves").EvalState(r, st); got != "|" {
		t.Errorf("over a plain connection: %q", got)
	}
	r.TLS = &tls.ConnectionState{Version: tls.VersionTLS13}
	for tpl, want := range map[string]string{
		"$ssl_ciphers": "0x0a0a:TLS_AES_128_GCM_SHA256:ECDHE-RSA-AES128-GCM-SHA256:0x00ff:0xc0ad",
		"$ssl_curves":  "0x1a1a:0x11ec:X25519:prime256v1:X448:ffdhe2048",
		// A state that no handshake made has no exporter.
		"$ssl_session_id": "",
	} {
		if got := MustCompile(tpl).EvalState(r, st); got != want {
			t.Errorf("%s = %q, want %q", tpl, got, want)
		}
	}
	if got := MustCompile("$ssl_ciphers|$ssl_curves").EvalState(r, &State{}); got != "|" {
		t.Errorf("without the offer: %q", got)
	}
}

// TestSSLSessionID checks $ssl_session_id on connections that shook
// hands: 64 hex digits, the same for the requests of a connection,
// another for another connection.
func TestSSLSessionID(t *testing.T) {
	cert := testpki.SelfSigned(t, "id.test")
	handshake := func(max uint16) *tls.ConnectionState {
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		srv := tls.Server(a, &tls.Config{Certificates: []tls.Certificate{cert}})
		cli := tls.Client(b, &tls.Config{InsecureSkipVerify: true, MaxVersion: max})
		errc := make(chan error, 1)
		go func() { errc <- cli.Handshake() }()
		if err := srv.Handshake(); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		cs := srv.ConnectionState()
		return &cs
	}
	id := MustCompile("$ssl_session_id")
	for _, max := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		r := httptest.NewRequest("GET", "/", nil)
		r.TLS = handshake(max)
		a, b := id.Eval(r), id.Eval(r)
		if !regexp.MustCompile("^[0-9a-f]{64}$").MatchString(a) || a != b {
			t.Errorf("version %x: $ssl_session_id %q then %q", max, a, b)
		}
		r.TLS = handshake(max)
		if c := id.Eval(r); c == a {
			t.Errorf("version %x: two connections have the $ssl_session_id %q", max, a)
		}
	}
}

// TestEndOfRequestVariables checks $request_completion,
// $request_body_file, $sent_trailer_NAME, $upstream_trailer_NAME and,
// without a socket, $tcpinfo_*.
func TestEndOfRequestVariables(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	st := &State{Header: http.Header{
		"Trailer":                     {"X-Sum, X-Other"},
		"X-Sum":                       {"abc"},
		http.TrailerPrefix + "X-Late": {"late"},
	}}
	st.MakeRare().UpstreamTrailer = http.Header{"X-Up-T": {"u1", "u2"}}
	st.MakeRare().RequestBodyFile = "/tmp/body/0000000001"
	for _, c := range []struct{ tpl, want string }{
		{"$request_completion", ""},
		{"$sent_trailer_x_sum|$sent_trailer_x_late|$sent_trailer_x_other|$sent_trailer_x_none", "abc|late||"},
		{"$upstream_trailer_x_up_t|$upstream_trailer_x_none", "u1|"},
		{"$request_body_file", "/tmp/body/0000000001"},
		{"$tcpinfo_rtt", ""}, {"$tcpinfo_rttvar", ""}, {"$tcpinfo_snd_cwnd", ""}, {"$tcpinfo_rcv_space", ""},
	} {
		if got := MustCompile(c.tpl).EvalState(r, st); got != c.want {
			t.Errorf("%s = %q, want %q", c.tpl, got, c.want)
		}
	}
	// As NGINX, the value first read stays for the rest of the request.
	st.Complete = true
	if got := MustCompile("$request_completion").EvalState(r, st); got != "" {
		t.Errorf("$request_completion read before the end, then at the end = %q, want the first value", got)
	}
	if got := MustCompile("$request_completion").EvalState(r, &State{Complete: true}); got != "OK" {
		t.Errorf("$request_completion of a completed request = %q", got)
	}
	if got := MustCompile("$request_completion$sent_trailer_x$upstream_trailer_x$request_body_file").EvalState(r, nil); got != "" {
		t.Errorf("without a State: %q", got)
	}
}

// TestTCPInfo reads $tcpinfo_* of a TCP connection's socket.
func TestTCPInfo(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	got := MustCompile("$tcpinfo_rtt|$tcpinfo_rttvar|$tcpinfo_snd_cwnd|$tcpinfo_rcv_space").EvalState(httptest.NewRequest("GET", "/", nil), &State{Conn: NewConn(nil, rc)})
	want := `^[0-9]+\|[0-9]+\|[1-9][0-9]*\|[1-9][0-9]*$`
	if runtime.GOOS != "linux" {
		want = `^\|\|\|$`
	}
	if !regexp.MustCompile(want).MatchString(got) {
		t.Errorf("$tcpinfo_*: %q, want %s", got, want)
	}
}

// An absolute-form target ("GET http://other.example/x.php?a=1") names
// the host apart from the path: $request_uri is the path and query, as
// NGINX keeps it, so that REQUEST_URI and cache keys are paths; $request
// is still the line as it came.
func TestRequestURIOfAbsoluteFormTarget(t *testing.T) {
	r, st := varRequest(t)
	st.RequestURI = "http://other.example/x.php?a=1"
	r.RequestURI = st.RequestURI
	for src, want := range map[string]string{
		"$request_uri": "/x.php?a=1",
		"$request":     "GET http://other.example/x.php?a=1 HTTP/1.1",
	} {
		if got := MustCompile(src).Eval(r); got != want {
			t.Errorf("%s = %q, want %q", src, got, want)
		}
	}
}

// $remote_user is the user of the first Authorization line as NGINX
// reads it (ngx_http_auth_basic_user), which auth_basic shares: "Basic"
// in any case, any number of spaces, base64 up to the first "=" with or
// without padding; nothing for another scheme, no colon or an empty
// user. The cases are the ones compared with Debian's NGINX 1.22.1 in
// cmd/mosaic's TestAudit11InputAsNGINX.
func TestRemoteUser(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{nil, ""}, {[]string{}, ""}, {[]string{""}, ""},
		{[]string{"Basic " + b64("ann:pw")}, "ann"},
		{[]string{"basic " + b64("bob:pw")}, "bob"},
		{[]string{"BASIC   " + b64("ann:pw")}, "ann"},
		{[]string{"Basic dTE6cHc"}, "u1"},         // unpadded "u1:pw"
		{[]string{"Basic dTE6cHc==="}, "u1"},      // padding over
		{[]string{"Basic dTE6cHc= x"}, "u1"},      // after the padding
		{[]string{"Basic dTE6=cHc="}, "u1"},       // "=" ends it: "u1:"
		{[]string{"Basic\t" + b64("ann:pw")}, ""}, // a tab is no space
		{[]string{"Basic " + b64("ann")}, ""},     // no colon
		{[]string{"Basic " + b64(":pw")}, ""},     // no user
		{[]string{"Bearer xyz"}, ""}, {[]string{"Basic !!!"}, ""},
		{[]string{"", "Basic " + b64("ann:pw")}, ""},
		{[]string{"Basic " + b64("ann:pw"), "Basic eDp5"}, "ann"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if tc.lines != nil {
			r.Header["Authorization"] = tc.lines
		}
		if got := MustCompile("$remote_user").Eval(r); got != tc.want {
			t.Errorf("Authorization %q: $remote_user %q, want %q", tc.lines, got, tc.want)
		}
	}
}

// The connection's addresses are split on the first read and kept
// (Conn); an address realip put in the request's place (State.RemoteAddr)
// is read as its own, without evicting the connection's, and a request
// outside the server (no Conn) splits its own.
func TestConnAddrsKept(t *testing.T) {
	const src = "$remote_addr|$remote_port|$server_addr|$server_port|$binary_remote_addr"
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 9), Port: 8080}
	conn := NewConn(local, nil)
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "192.0.2.7:40123"
	own := "192.0.2.7|40123|127.0.0.9|8080|\xc0\x00\x02\x07"
	for i := range 2 {
		if got := MustCompile(src).EvalState(r, &State{Conn: conn}); got != own {
			t.Errorf("read %d: %q, want %q", i, got, own)
		}
	}
	if s := conn.peer.Load(); s == nil || s.text != r.RemoteAddr {
		t.Errorf("kept client address %v, want %q's", s, r.RemoteAddr)
	}
	real := "[2001:db8::1]:5000"
	if got, want := MustCompile(src).EvalState(r, &State{Conn: conn, RemoteAddr: real}),
		"2001:db8::1|5000|127.0.0.9|8080|"+string(net.ParseIP("2001:db8::1")); got != want {
		t.Errorf("realip's: %q, want %q", got, want)
	}
	if s := conn.peer.Load(); s == nil || s.text != r.RemoteAddr {
		t.Errorf("kept client address after realip's %v, want %q's (not evicted)", s, r.RemoteAddr)
	}
	if got := MustCompile(src).EvalState(r, &State{Conn: conn}); got != own {
		t.Errorf("after realip's: %q, want %q", got, own)
	}
	ctx := context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(local))
	if got := MustCompile(src).EvalState(r.WithContext(ctx), &State{}); got != own {
		t.Errorf("without Conn: %q, want %q", got, own)
	}
}

// BenchmarkConnAddrs reads the four address variables from a connection's
// kept split, as FastCGI's parameters do on every request: the counts of
// the getters (callgrind, or -benchmem's allocations, none).
func BenchmarkConnAddrs(b *testing.B) {
	tpl := MustCompile("$remote_addr$remote_port$server_addr$server_port")
	r := httptest.NewRequest("GET", "/", nil)
	st := &State{Conn: NewConn(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 9), Port: 8080}, nil)}
	b.ReportAllocs()
	for b.Loop() {
		_ = tpl.EvalState(r, st)
	}
}
