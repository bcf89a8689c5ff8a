package server

import (
	"context"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/reqkey"
)

// A request's key (reqkey.Key) is found above the request's root; a
// lookup that reaches the root of a request read from a connection ends
// there, and the connection's contexts are not walked for it, while a
// root over another request's context (a subrequest's, a refused
// request's) walks on and finds what that request carries.
func TestRequestKeyStopsAtRoot(t *testing.T) {
	below := context.WithValue(context.Background(), reqkey.Accel, "below")
	conn := new(h1Record).Context(below)
	if v := conn.Value(reqkey.Accel); v != nil {
		t.Errorf("connection's root: %v, want nil (not walked past)", v)
	}
	if v := context.WithValue(conn, reqkey.Accel, "above").Value(reqkey.Accel); v != "above" {
		t.Errorf("above the connection's root: %v, want above", v)
	}
	if v := context.WithValue(conn, reqkey.Revalidation, true).Value(reqkey.Accel); v != nil {
		t.Errorf("another key above the root: %v, want nil", v)
	}
	type other struct{}
	if v := new(h1Record).Context(context.WithValue(below, other{}, 1)).Value(other{}); v != 1 {
		t.Errorf("a key of another type below the root: %v, want 1", v)
	}
	if v := newRequestRoot(below).Value(reqkey.Accel); v != "below" {
		t.Errorf("a root over another request's context: %v, want below", v)
	}
	sub := &reqRoot{Context: context.WithValue(conn, reqkey.Revalidation, true)}
	if v := sub.Value(reqkey.Revalidation); v != true {
		t.Errorf("a subrequest's root: %v, want true", v)
	}
}
