package grpcmod_test

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testgrpc"
	_ "github.com/mosaic-edge/mosaic/modules/grpcmod"
	_ "github.com/mosaic-edge/mosaic/modules/proxymod"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// NGINX's wording for a grpc_pass it cannot read (nginx -t).
func TestPassErrorsAsNGINX(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{`location / { grpc_pass http://127.0.0.1:1; }`, `invalid host in upstream "http://127.0.0.1:1"`},
		{`location / { grpc_pass grpc://127.0.0.1:1/x; }`, `invalid host in upstream "127.0.0.1:1/x"`},
		{`location / { grpc_pass grpc://127.0.0.1; }`, `no port in upstream "127.0.0.1"`},
		{`location / { grpc_pass a:1; grpc_pass b:2; }`, `"grpc_pass" directive is duplicate`},
		{`location / { grpc_next_upstream bogus; }`, `invalid value "bogus"`},
		{`location / { grpc_param A b; }`, `unknown directive "grpc_param"`},
		{`location / { grpc_pass 127.0.0.1:1; grpc_bind 127.0.0.1 transparent; }`, `grpc_bind transparent is not supported`},
	} {
		servertest.WantError(t, `http { server { `+c.conf+` } }`, c.want)
	}
}

// An upstream group's servers are tried in turn: the one that is down
// is passed over.
func TestGroup(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := testgrpc.Serve(l, nil)
	t.Cleanup(func() { s.Close() })
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downAddr := down.Addr().String()
	down.Close()
	base := servertest.Start(t, `http {
		upstream g { server `+downAddr+`; server `+l.Addr().String()+`; }
		server { listen 127.0.0.1:0 http2; location / { grpc_pass g; grpc_next_upstream_tries 2; } } }`)
	for i := range 3 {
		res, err := testgrpc.Call(context.Background(), testgrpc.Client(nil), base+"/test.Echo/Stream", nil, "2")
		if err != nil {
			t.Fatal(err)
		}
		if res.GRPCStatus() != "0" || !slices.Equal(res.Messages, []string{"0", "1"}) {
			t.Errorf("call %d: %v", i, res)
		}
		if got := res.Header.Get("X-Authority"); !strings.EqualFold(got, "g") {
			t.Errorf("call %d: authority %q", i, got)
		}
	}
}
