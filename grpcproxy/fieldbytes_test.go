package grpcproxy_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/mosaic-edge/mosaic/grpcproxy"
	"github.com/mosaic-edge/mosaic/internal/testgrpc"
)

// failures is inTurn that counts the tries reported failed.
type failures struct {
	inTurn
	failed int
}

func (s *failures) Done(failed bool) bool {
	if failed {
		s.failed++
	}
	return false
}

// A field value that HTTP/2 cannot carry (a control byte or DEL, which
// the HTTP/1 parser serves as NGINX does), from the client or from
// grpc_set_header, is left out of what goes upstream: the call is
// served, and no server is taken for failed. Go's client refuses the
// whole request for it, and each such request marked every server down
// for fail_timeout.
func TestUnsendableFieldValue(t *testing.T) {
	addr := backend(t)
	sel := &failures{inTurn: inTurn{addrs: []string{addr}}}
	h, err := grpcproxy.New(grpcproxy.Options{
		Select:     func(*http.Request) grpcproxy.Selection { return sel },
		SetHeaders: []grpcproxy.Header{{Name: "X-Set", Value: func(*http.Request) string { return "a\x7fb" }}},
	})
	if err != nil {
		t.Fatal(err)
	}
	url := front(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("X-Test", "a\x1bb")
		h.ServeHTTP(w, r)
	}))
	res, err := testgrpc.Call(context.Background(), testgrpc.Client(nil), url+"/test.Echo/Unary", nil, "x")
	if err != nil || res.Status != 200 || res.GRPCStatus() != "0" {
		t.Fatalf("%v, %v", res, err)
	}
	if v := res.Header.Get("X-Seen"); v != "" {
		t.Errorf("the backend saw X-Test %q", v)
	}
	if sel.failed != 0 {
		t.Errorf("%d tries taken for failed", sel.failed)
	}
}
