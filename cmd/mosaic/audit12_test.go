package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/internal/testpki"
)

// audit12: a hostile upstream's heads and framing, an answer that comes
// before the request body is sent, and SNI against Host (421), through
// both binaries on one configuration. Each case is an attack tried in
// the audit; mosaic must answer as NGINX does, or refuse where the
// audit recorded it stricter (server README, audit12).

// hostileHeads are the upstream answers tried, each sent whole and
// followed by the upstream's close.
var hostileHeads = map[string]string{
	"/100":       "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"/100flood":  strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 50) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"/103":       "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"/101":       "HTTP/1.1 101 Switching Protocols\r\nUpgrade: evil\r\nConnection: upgrade\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"/upgrade":   "HTTP/1.1 200 OK\r\nUpgrade: evil\r\nConnection: upgrade\r\nContent-Length: 2\r\n\r\nokGET /smuggled HTTP/1.1\r\n\r\n",
	"/tecl":      "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"/chunkext":  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;a=b\r\nok\r\n0\r\n\r\n",
	"/trailer":   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nSet-Cookie: evil=1\r\n\r\n",
	"/badchunk":  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\nzz\r\nxx\r\n0\r\n\r\n",
	"/chunklong": "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX\r\n0\r\n\r\n",
	"/short":     "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok",
	"/long":      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA",
	"/cr":        "HTTP/1.1 200 OK\r\nX-A: a\rSet-Cookie: x=1\r\nContent-Length: 2\r\n\r\nok",
	"/nul":       "HTTP/1.1 200 OK\r\nX-A: a\x00b\r\nContent-Length: 2\r\n\r\nok",
	"/lf":        "HTTP/1.1 200 OK\nX-A: a\nContent-Length: 2\n\nok",
	"/emptyname": "HTTP/1.1 200 OK\r\n: a\r\nContent-Length: 2\r\n\r\nok",
	"/spacename": "HTTP/1.1 200 OK\r\n X-A: a\r\nContent-Length: 2\r\n\r\nok",
	"/highbit":   "HTTP/1.1 200 OK\r\nX-A: \xff\xfe\r\nContent-Length: 2\r\n\r\nok",
	"/hop":       "HTTP/1.1 200 OK\r\nConnection: X-Secret, close\r\nX-Secret: s\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\nok",
	"/204":       "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello",
	"/304":       "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nhello",
	"/999":       "HTTP/1.1 999 X\r\nContent-Length: 2\r\n\r\nok",
	"/http10":    "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nok",
	// Refused by mosaic (502), relayed by NGINX: hostileStricter.
	"/09":         "ok\r\n",
	"/ctl":        "HTTP/1.1 200 OK\r\nX-A: a\x01b\x7f\r\nContent-Length: 2\r\n\r\nok",
	"/name":       "HTTP/1.1 200 OK\r\nX@A: a\r\nContent-Length: 2\r\n\r\nok",
	"/nocolon":    "HTTP/1.1 200 OK\r\nXA\r\nContent-Length: 2\r\n\r\nok",
	"/location":   "HTTP/1.1 302 Found\r\nLocation: http://evil/\x0bx\r\nContent-Length: 2\r\n\r\nok",
	"/clneg":      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nok",
	"/clplus":     "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok",
	"/cllist":     "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok",
	"/clbig":      "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nok",
	"/teidentity": "HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\nContent-Length: 2\r\n\r\nok",
}

// hostileStricter are the heads mosaic refuses with 502 where NGINX 1.22.1
// relays them: an HTTP/0.9 answer, a 101 to a request that asked for no
// upgrade, control bytes or a name that is not a token, a line without a
// colon, and a Content-Length or Transfer-Encoding that does not frame
// the body (NGINX reads those to the close). The two bad chunk lines NGINX
// meets after its head is out and cuts the answer; mosaic, holding the
// short body, answers 502.
var hostileStricter = []string{"/09", "/101", "/ctl", "/name", "/nocolon", "/location", "/clneg",
	"/clplus", "/cllist", "/clbig", "/teidentity", "/badchunk", "/chunklong"}

// hostileAnswer is what a client read: the interim codes (100 left out:
// mosaic answers the client's Expect itself, and NGINX 1.22.1 relays an
// upstream's 100 as a final answer whose bytes after it a client reads as
// a second response), the final status, the fields an upstream could
// plant, the body and whether it was cut.
func hostileAnswer(t *testing.T, port int, path string) string {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path)
	br := bufio.NewReader(c)
	var interim []int
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return fmt.Sprintf("interim %v, no answer", interim)
		}
		if resp.StatusCode == http.StatusContinue {
			continue
		}
		if resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			interim = append(interim, resp.StatusCode)
			continue
		}
		body, err := io.ReadAll(resp.Body)
		if resp.StatusCode >= 500 {
			body = nil // the error pages' footers differ
		}
		var fields []string
		for _, k := range []string{"X-A", "X-Secret", "Set-Cookie", "Upgrade", "Keep-Alive", "Location"} {
			if v := resp.Header.Values(k); v != nil {
				fields = append(fields, fmt.Sprintf("%s=%q", k, v))
			}
		}
		return fmt.Sprintf("interim %v, %d %v %q cut=%v", interim, resp.StatusCode, fields, body, err != nil)
	}
}

// TestAudit12HostileUpstreamAsNGINX: 1xx floods, a 101 nobody asked for,
// framing that lies, header lines that would plant a field in the
// client's answer: each answer is NGINX's, or mosaic's 502 where the
// audit found it stricter.
func TestAudit12HostileUpstreamAsNGINX(t *testing.T) {
	nginxPath(t)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if req, err := http.ReadRequest(br); err == nil {
			io.WriteString(c, hostileHeads[req.URL.Path])
		}
	})
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; location / { proxy_pass http://%s; } }`, port, o.Addr())
	})
	for path := range hostileHeads {
		m, n := hostileAnswer(t, mport, path), hostileAnswer(t, nport, path)
		want := n
		if slices.Contains(hostileStricter, path) {
			want = "interim [], 502 [] \"\" cut=false"
		}
		if m != want {
			t.Errorf("%s:\n mosaic %s\n want   %s\n NGINX  %s", path, m, want, n)
		}
	}
}

// TestAudit12EarlyAnswerNotReusedAsNGINX: an upstream that answers before
// it has the request body (a chunked body streamed with
// proxy_request_buffering off, its end never sent; a 32 MB one, buffered,
// that the upstream never reads) keeps its connection out of the
// keepalive pool: another client's request, which would otherwise be
// read as the rest of the first one's body, goes on a connection of its
// own, in both servers.
func TestAudit12EarlyAnswerNotReusedAsNGINX(t *testing.T) {
	nginxPath(t)
	for _, tc := range []struct{ name, buffering, head, body string }{
		{"streamed chunked", "off", "Transfer-Encoding: chunked", "5\r\nhello\r\n"},
		{"buffered, unread", "on", "Content-Length: 33554432", strings.Repeat("GET /smuggled HTTP/1.1\r\n\r\n", 33554432/26) + strings.Repeat("x", 33554432%26)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			after := map[string][]byte{}
			origin := func(who string) string {
				return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
					for {
						req, err := http.ReadRequest(br)
						if err != nil {
							return
						}
						if req.URL.Path == "/early" {
							io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nearly")
							// Whatever comes next on this connection.
							time.Sleep(500 * time.Millisecond)
							c.SetReadDeadline(time.Now().Add(1500 * time.Millisecond))
							b, _ := io.ReadAll(br)
							mu.Lock()
							after[who] = b
							mu.Unlock()
							return
						}
						io.Copy(io.Discard, req.Body)
						io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nvictim")
					}
				}).Addr()
			}
			origins := map[string]string{"m": origin("m"), "n": origin("n")}
			mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
				return fmt.Sprintf(`upstream b { server %s; keepalive 4; }
				server { listen 127.0.0.1:%d; client_max_body_size 64m;
					location / { proxy_pass http://b; proxy_http_version 1.1; proxy_set_header Connection "";
						proxy_request_buffering %s; } }`, origins[who], port, tc.buffering)
			})
			for who, port := range map[string]int{"m": mport, "n": nport} {
				a, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
				if err != nil {
					t.Fatal(err)
				}
				defer a.Close()
				a.SetDeadline(time.Now().Add(20 * time.Second))
				go fmt.Fprintf(a, "POST /early HTTP/1.1\r\nHost: x\r\n%s\r\n\r\n%s", tc.head, tc.body)
				resp, err := http.ReadResponse(bufio.NewReader(a), nil)
				if err != nil {
					t.Fatalf("%s: the first client: %v", who, err)
				}
				if b, _ := io.ReadAll(io.LimitReader(resp.Body, 5)); string(b) != "early" {
					t.Errorf("%s: the first client got %q", who, b)
				}
				time.Sleep(100 * time.Millisecond)
				if status, body := oneShot(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/victim", port), ""); body != "victim" {
					t.Errorf("%s: the next client got %d %q, want \"victim\"", who, status, body)
				}
			}
			deadline := time.Now().Add(waitCeiling)
			for {
				mu.Lock()
				n := len(after)
				mu.Unlock()
				if n == 2 || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			mu.Lock()
			defer mu.Unlock()
			for who, b := range after {
				if bytes.Contains(b, []byte("/victim")) {
					t.Errorf("%s: the next client's request came on the early answer's connection", who)
				}
			}
			if len(after) != 2 {
				t.Errorf("the early connections' ends were not both read: %d", len(after))
			}
		})
	}
}

// sniServers is one TLS address with servers that verify clients and
// servers that do not, by exact, wildcard and regex names, {port},
// {cert}, {key}, {ca} and {other} (a second CA) to fill. http2 is "" or
// " http2".
const sniServers = `
	ssl_certificate {cert}; ssl_certificate_key {key};
	server { listen 127.0.0.1:{port} ssl{h2} default_server; server_name def.test; location / { return 200 "def $ssl_client_verify"; } }
	server { listen 127.0.0.1:{port} ssl{h2}; server_name a.test www.a.test; ssl_client_certificate {ca}; ssl_verify_client on; location / { return 200 "a $ssl_client_verify"; } }
	server { listen 127.0.0.1:{port} ssl{h2}; server_name b.test; location / { return 200 "b $ssl_client_verify"; } }
	server { listen 127.0.0.1:{port} ssl{h2}; server_name o.test; ssl_client_certificate {ca}; ssl_verify_client optional; location / { return 200 "o $ssl_client_verify"; } }
	server { listen 127.0.0.1:{port} ssl{h2}; server_name m.test; ssl_client_certificate {other}; ssl_verify_client optional_no_ca; location / { return 200 "m $ssl_client_verify"; } }
	server { listen 127.0.0.1:{port} ssl{h2}; server_name ~^re(\d+)\.test$; ssl_client_certificate {ca}; ssl_verify_client on; location / { return 200 "re $1 $ssl_client_verify"; } }
	server { listen 127.0.0.1:{port} ssl{h2}; server_name *.w.test; ssl_client_certificate {ca}; ssl_verify_client on; location / { return 200 "w $ssl_client_verify"; } }
`

// sniSetup writes the key pair and CAs and runs sniServers on both
// servers; it returns the ports and the client certificates by name.
func sniSetup(t *testing.T, h2 string) (mport, nport int, certs map[string]*tls.Certificate) {
	t.Helper()
	dir := t.TempDir()
	cert, key := testpki.WriteKeyPair(t, dir, "x", testpki.SelfSigned(t, "a.test"))
	ca, other := testpki.NewRootCA(t, "Client CA"), testpki.NewRootCA(t, "Other CA")
	caFile := testpki.WritePEM(t, dir, "ca.pem", "CERTIFICATE", ca.Cert.Raw)
	otherFile := testpki.WritePEM(t, dir, "other.pem", "CERTIFICATE", other.Cert.Raw)
	alice, mallory := ca.Issue(t, true, "alice"), other.Issue(t, true, "mallory")
	mport, nport = runBoth(t, func(port int) string {
		return strings.NewReplacer("{port}", fmt.Sprint(port), "{h2}", h2, "{cert}", cert, "{key}", key,
			"{ca}", caFile, "{other}", otherFile).Replace(sniServers)
	})
	return mport, nport, map[string]*tls.Certificate{"none": nil, "alice": &alice, "mallory": &mallory}
}

// TestAudit12SNIHostAsNGINX: a handshake for one name and a request for
// another, over HTTP/1.1 (Host, or an absolute target). NGINX 1.22.1's
// ngx_http_set_virtual_server answers 421 when SNI chose a server by name
// and the request names another host whose server verifies clients
// (ssl_verify_client other than off), whichever server SNI chose: the
// certificate was judged by the handshake server's CAs. SNI in another
// case, with a trailing dot or a port-carrying Host are the same name.
// Every case answers as NGINX: status, server and $ssl_client_verify.
func TestAudit12SNIHostAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport, certs := sniSetup(t, "")
	type req struct{ sni, host, target, cert string }
	var cases []req
	for _, sni := range []string{"", "a.test", "A.TEST", "a.test.", "www.a.test", "b.test", "o.test", "m.test",
		"def.test", "nope.test", "re1.test", "x.w.test"} {
		for _, host := range []string{"a.test", "A.test", "a.test.", "a.test:443", "www.a.test", "b.test", "o.test",
			"m.test", "nope.test", "re1.test", "re2.test", "x.w.test", "y.w.test", "", "def.test"} {
			for _, c := range []string{"none", "alice", "mallory"} {
				cases = append(cases, req{sni, host, "/", c})
			}
		}
	}
	cases = append(cases, req{"b.test", "b.test", "https://a.test/", "none"}, req{"a.test", "a.test", "https://b.test/", "alice"},
		req{"b.test", "b.test", "http://a.test/", "alice"})
	answer := func(port int, c req) string {
		cfg := clientCert(certs[c.cert])
		cfg.InsecureSkipVerify, cfg.ServerName = true, c.sni
		conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), cfg)
		if err != nil {
			return "handshake failed"
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		host := "Host: " + c.host + "\r\n"
		if c.host == "" {
			host = ""
		}
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\n%sConnection: close\r\n\r\n", c.target, host)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return "no answer"
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Sprint(resp.StatusCode) // the error pages' footers differ
		}
		b, _ := io.ReadAll(resp.Body)
		return "200 " + string(b)
	}
	misdirected := 0
	for _, c := range cases {
		m, n := answer(mport, c), answer(nport, c)
		if m != n {
			t.Errorf("SNI %q, Host %q, target %q, client %s: mosaic %q, NGINX %q", c.sni, c.host, c.target, c.cert, m, n)
		}
		if n == "421" {
			misdirected++
		}
	}
	// The cases must reach the check: without it every 421 above is an
	// answer from another server.
	if misdirected < 100 {
		t.Errorf("%d of %d cases answered 421 by NGINX", misdirected, len(cases))
	}
	t.Logf("%d of %d cases answered 421 by NGINX", misdirected, len(cases))
}

// TestAudit12H2CoalescedAsNGINX: HTTP/2 lets a client send requests for
// several hosts on one connection (a certificate naming them all). Each
// stream's :authority is judged as a Host: 421 for a host whose server
// verifies clients when SNI chose another name, the stream only, the
// connection's next streams served, as in NGINX.
func TestAudit12H2CoalescedAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport, certs := sniSetup(t, " http2")
	authorities := []string{"a.test", "b.test", "www.a.test", "def.test", "A.TEST", "a.test:443", "nope.test", "o.test", "a.test"}
	for _, sni := range []string{"a.test", "b.test", "def.test", "nope.test", ""} {
		for _, name := range []string{"none", "alice"} {
			var got [2]string
			for i, port := range []int{mport, nport} {
				cfg := clientCert(certs[name])
				cfg.InsecureSkipVerify, cfg.ServerName, cfg.NextProtos = true, sni, []string{"h2"}
				conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), cfg)
				if err != nil {
					t.Fatal(err)
				}
				h := startH2(t, conn)
				var res []string
				for j, auth := range authorities {
					id := uint32(2*j + 1)
					h.headers(t, id, true, ":method", "GET", ":scheme", "https", ":authority", auth, ":path", "/")
					res = append(res, auth+"="+h.status(id))
				}
				got[i] = strings.Join(res, " ")
			}
			if got[0] != got[1] {
				t.Errorf("SNI %q, client %s:\n mosaic %s\n NGINX  %s", sni, name, got[0], got[1])
			}
			if sni == "b.test" && !strings.HasPrefix(got[1], "a.test=421 b.test=200") {
				t.Errorf("SNI b.test: NGINX %s, want a.test 421 and b.test served after it", got[1])
			}
		}
	}
}

// TestAudit12TunnelEagerBytesAsNGINX: bytes that come with the heads of
// an upgrade, before either side has read the other's (the client's
// first message after its request, the upstream's banner after its
// 101), go through the tunnel in order, as in NGINX: neither is left in
// a server's buffer nor read as another request or response.
func TestAudit12TunnelEagerBytesAsNGINX(t *testing.T) {
	nginxPath(t)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nBANNER\n")
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			io.WriteString(c, strings.ToUpper(line))
		}
	})
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; location /ws { proxy_pass http://%s; proxy_http_version 1.1;
			proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection "upgrade"; } }`, port, o.Addr())
	})
	for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nearly\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("%s: %v %v", who, resp, err)
		}
		io.WriteString(c, "late\n")
		var got []string
		for range 3 {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: after %q: %v", who, got, err)
			}
			got = append(got, line)
		}
		if s := strings.Join(got, ""); s != "BANNER\nEARLY\nLATE\n" {
			t.Errorf("%s: the tunnel carried %q", who, s)
		}
	}
}

// TestAudit12CutAnswerNotCachedAsNGINX: an upstream answer whose body
// ends before its length, its last chunk or at a bad chunk line is not
// stored, so the next client does not get the cut body from the cache
// as a whole answer: the next request goes upstream again, in both
// servers. Bytes past Content-Length are dropped and the answer stored,
// as NGINX stores it.
func TestAudit12CutAnswerNotCachedAsNGINX(t *testing.T) {
	nginxPath(t)
	heads := map[string]string{
		"/short":    "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 10\r\n\r\nok",
		"/chunkcut": "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n",
		"/chunkbad": "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\nZZ\r\n",
		"/long":     "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 2\r\n\r\nokEXTRA",
	}
	var mu sync.Mutex
	asked := map[string]int{}
	origin := func(who string) string {
		return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			mu.Lock()
			asked[who+req.URL.Path]++
			mu.Unlock()
			io.WriteString(c, heads[req.URL.Path])
		}).Addr()
	}
	origins := map[string]string{"m": origin("m"), "n": origin("n")}
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`proxy_cache_path %s/%s-cache keys_zone=z:1m;
		server { listen 127.0.0.1:%d; location / { proxy_pass http://%s; proxy_cache z; } }`, dir, who, port, origins[who])
	})
	for path := range heads {
		for _, port := range []int{mport, nport} {
			for range 2 {
				c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
				if err != nil {
					t.Fatal(err)
				}
				c.SetDeadline(time.Now().Add(10 * time.Second))
				fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path)
				io.Copy(io.Discard, c)
				c.Close()
			}
		}
		mu.Lock()
		m, n := asked["m"+path], asked["n"+path]
		mu.Unlock()
		want := 2
		if path == "/long" {
			want = 1
		}
		if m != want || n != want {
			t.Errorf("%s: two requests reached the upstream %d times from mosaic, %d from NGINX; want %d", path, m, n, want)
		}
	}
}
