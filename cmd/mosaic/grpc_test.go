package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testgrpc"
	"github.com/mosaic-edge/mosaic/internal/testpki"
)

// grpcBackend starts a testgrpc backend (over TLS with cfg set) and
// returns its address.
func grpcBackend(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := testgrpc.Serve(l, cfg)
	t.Cleanup(func() { s.Close() })
	return l.Addr().String()
}

// grpcCall is one call of a comparison: the Host that picks the server,
// the method, the messages sent, and whether they go one at a time.
type grpcCall struct {
	host, method string
	msgs         []string
	bidi         bool
}

// grpcAnswers makes the calls to port with client and describes each
// answer, with the fields the backend reports about what it got.
func grpcAnswers(t *testing.T, client *http.Client, scheme string, port int, calls []grpcCall) []string {
	t.Helper()
	var out []string
	for _, c := range calls {
		url := fmt.Sprintf("%s://%s:%d/test.Echo/%s", scheme, c.host, port, c.method)
		var res *testgrpc.Result
		var err error
		if c.bidi {
			res, err = testgrpc.Bidi(context.Background(), client, url, c.msgs...)
		} else {
			res, err = testgrpc.Call(context.Background(), client, url, nil, c.msgs...)
		}
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		out = append(out, fmt.Sprintf("%s; authority %q te %q x-test %q server relayed %v", res,
			res.Header.Get("X-Authority"), res.Header.Get("X-Te"), res.Header.Get("X-Seen"),
			res.Header.Get("Server") == "testgrpc"))
	}
	return out
}

// The client reaches both over HTTP/2 with prior knowledge ("listen ...
// http2"): unary, server-streaming and bidirectional calls, a call that
// fails with a grpc-status, an upstream group whose first server is
// down, a server that refuses, one too slow for grpc_read_timeout.
func TestGRPCPassAsNGINX(t *testing.T) {
	nginxPath(t)
	up := grpcBackend(t, nil)
	down := fmt.Sprintf("127.0.0.1:%d", refusedPort(t))
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`
			upstream grpcgroup { server %[2]s; server %[3]s; }
			server { listen 127.0.0.1:%[1]d http2; server_name one;
				location / { grpc_pass grpc://%[3]s; grpc_set_header X-Test "set $request_method"; } }
			server { listen 127.0.0.1:%[1]d http2; server_name group;
				location / { grpc_pass grpcgroup; grpc_hide_header X-Seen; } }
			server { listen 127.0.0.1:%[1]d http2; server_name bare;
				location / { grpc_pass %[3]s; grpc_pass_header Server; grpc_set_header Host "other"; } }
			server { listen 127.0.0.1:%[1]d http2; server_name down;
				location / { grpc_pass grpc://%[2]s; } }
			server { listen 127.0.0.1:%[1]d http2; server_name slow;
				location / { grpc_pass grpc://%[3]s; grpc_read_timeout 300ms; } }
		`, port, down, up)
	})
	calls := []grpcCall{
		{"one", "Unary", []string{"hi"}, false},
		{"one", "Stream", []string{"4"}, false},
		{"one", "Bidi", []string{"a", "b", "c"}, true},
		{"one", "Fail", []string{"x"}, false},
		{"one", "Nope", nil, false},
		{"group", "Unary", []string{"g1"}, false},
		{"group", "Unary", []string{"g2"}, false},
		{"bare", "Unary", []string{"b"}, false},
		{"down", "Unary", []string{"d"}, false},
		{"slow", "Slow", []string{"s"}, false},
	}
	client := testgrpc.Client(nil)
	// The names resolve to the loopback address both listen on.
	client.Transport.(*http.Transport).DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, port, _ := net.SplitHostPort(addr)
		var d net.Dialer
		return d.DialContext(ctx, network, "127.0.0.1:"+port)
	}
	m := grpcAnswers(t, client, "http", mport, calls)
	n := grpcAnswers(t, client, "http", nport, calls)
	for i := range calls {
		if m[i] != n[i] {
			t.Errorf("%s %s:\nmosaic %s\nNGINX  %s", calls[i].host, calls[i].method, m[i], n[i])
		}
	}
}

// grpcs:// to a backend over TLS, verified against its authority, for a
// client that reaches both over TLS with ALPN h2.
func TestGRPCPassTLSAsNGINX(t *testing.T) {
	nginxPath(t)
	ca := testpki.NewRootCA(t, "grpc test CA")
	dir := t.TempDir()
	caFile := testpki.WritePEM(t, dir, "ca.pem", "CERTIFICATE", ca.Cert.Raw)
	up := grpcBackend(t, &tls.Config{Certificates: []tls.Certificate{ca.Issue(t, false, "backend.test")}})
	certFile, keyFile := testpki.WriteKeyPair(t, dir, "front", testpki.SelfSigned(t, "front.test"))
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`
			server { listen 127.0.0.1:%[1]d ssl http2; server_name front.test;
				ssl_certificate %[3]s; ssl_certificate_key %[4]s;
				location / { grpc_pass grpcs://%[2]s;
					grpc_ssl_verify on; grpc_ssl_trusted_certificate %[5]s;
					grpc_ssl_name backend.test; grpc_ssl_server_name on; }
				location /test.Echo/Fail { grpc_pass grpcs://%[2]s;
					grpc_ssl_verify on; grpc_ssl_trusted_certificate %[5]s; } }
		`, port, up, certFile, keyFile, caFile)
	})
	calls := []grpcCall{
		{"127.0.0.1", "Unary", []string{"tls"}, false},
		{"127.0.0.1", "Bidi", []string{"x", "y"}, true},
		// Verified against the address, which the certificate does not name: 502.
		{"127.0.0.1", "Fail", []string{"x"}, false},
	}
	client := testgrpc.Client(&tls.Config{InsecureSkipVerify: true})
	m := grpcAnswers(t, client, "https", mport, calls)
	n := grpcAnswers(t, client, "https", nport, calls)
	for i := range calls {
		if m[i] != n[i] {
			t.Errorf("%s:\nmosaic %s\nNGINX  %s", calls[i].method, m[i], n[i])
		}
	}
}

// grpcHTTP1Seen makes a unary call over HTTP/1.1 to port with the extra
// header lines given and returns what the backend reports it got: its
// x-test and te fields.
func grpcHTTP1Seen(t *testing.T, port int, header string) string {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := testgrpc.Frame([]byte("x"))
	fmt.Fprintf(c, "POST /test.Echo/Unary HTTP/1.1\r\nHost: x\r\nContent-Type: application/grpc\r\n%sContent-Length: %d\r\n\r\n%s",
		header, len(body), body)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err.Error()
	}
	resp.Body.Close()
	return fmt.Sprintf("%d, x-test %q, te %q", resp.StatusCode, resp.Header.Get("X-Seen"), resp.Header.Get("X-Te"))
}

// A field that the client's Connection field names still goes to the
// upstream: NGINX's grpc module drops only the fields its
// grpc_set_header defaults clear.
func TestGRPCConnectionTokensAsNGINX(t *testing.T) {
	nginxPath(t)
	up := grpcBackend(t, nil)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; location / { grpc_pass grpc://%s; } }`, port, up)
	})
	header := "Connection: x-test, close\r\nX-Test: v\r\n"
	m, n := grpcHTTP1Seen(t, mport, header), grpcHTTP1Seen(t, nport, header)
	if m != n || n != `200, x-test "v", te ""` {
		t.Errorf("mosaic %s\nNGINX  %s", m, n)
	}
}

// "te: trailers" goes to the upstream as NGINX's $grpc_internal_trailers
// says: when the client's first TE field holds "trailers" anywhere, in
// any case (a parameter after it included); a second field is not read.
func TestGRPCTrailersFieldAsNGINX(t *testing.T) {
	nginxPath(t)
	up := grpcBackend(t, nil)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; location / { grpc_pass grpc://%s; } }`, port, up)
	})
	for _, te := range []string{"TE: trailers\r\n", "TE: Trailers\r\n", "TE: trailers;q=0.5, deflate\r\n",
		"TE: deflate\r\nTE: trailers\r\n", "TE: deflate\r\n"} {
		header := "Connection: close\r\n" + te
		m, n := grpcHTTP1Seen(t, mport, header), grpcHTTP1Seen(t, nport, header)
		if m != n {
			t.Errorf("%q: mosaic %s\nNGINX  %s", te, m, n)
		}
	}
}
