package testport

import (
	"fmt"
	"net"
	"testing"
)

func TestFreeIsFreeAndBelowEphemeral(t *testing.T) {
	for range 20 {
		p, err := Free()
		if err != nil {
			t.Fatal(err)
		}
		if p < lo || p >= hi {
			t.Fatalf("port %d outside %d-%d", p, lo, hi-1)
		}
		l, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			t.Fatalf("port %d: %v", p, err)
		}
		l.Close()
	}
}
