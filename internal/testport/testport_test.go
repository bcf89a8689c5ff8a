package testport

import (
	"errors"
	"fmt"
	"net"
	"syscall"
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

// Ports asked for in one process are all different: 300 random picks in
// the range would repeat about three.
func TestFreeNeverTwice(t *testing.T) {
	seen := map[int]bool{}
	for range 300 {
		p, err := Free()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d given twice", p)
		}
		seen[p] = true
	}
}

// A port whose lock another holder keeps is not claimed: the lock is
// what keeps parallel test binaries apart.
func TestClaimHeldPort(t *testing.T) {
	dir := t.TempDir()
	first, err := claim(dir, 20001)
	if err != nil || first == nil {
		t.Fatalf("first claim: %v, %v", first, err)
	}
	if second, err := claim(dir, 20001); err != nil || second != nil {
		t.Fatalf("second claim while held: %v, %v", second, err)
	}
	first.Close()
	again, err := claim(dir, 20001)
	if err != nil || again == nil {
		t.Fatalf("claim after release: %v, %v", again, err)
	}
	again.Close()
}

// A Refused port refuses connections while it is held, and a listener
// asking for it is turned away.
func TestRefusedRefuses(t *testing.T) {
	p, release, err := Refused()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	addr := fmt.Sprintf("127.0.0.1:%d", p)
	if c, err := net.Dial("tcp4", addr); err == nil {
		c.Close()
		t.Fatalf("%s accepted a connection", addr)
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial %s: %v, want connection refused", addr, err)
	}
	if l, err := net.Listen("tcp4", addr); err == nil {
		l.Close()
		t.Errorf("another listener was given %s", addr)
	}
}
