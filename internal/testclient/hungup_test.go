//go:build unix

package testclient

import (
	"net"
	"testing"
)

// HungUp tells a peer's close from bytes left to read and from a peer
// that only stopped writing: its callers wait on it for a server's close
// while they read nothing.
func TestHungUp(t *testing.T) {
	dir := t.TempDir()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: dir + "/s", Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.DialUnix("unix", nil, l.Addr().(*net.UnixAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	peer, err := l.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	if HungUp(t, c) {
		t.Error("an open, idle peer hung up")
	}
	if _, err := peer.Write([]byte("unread")); err != nil {
		t.Fatal(err)
	}
	if HungUp(t, c) {
		t.Error("bytes to read count as a hang-up")
	}
	if err := peer.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if HungUp(t, c) {
		t.Error("a peer that only stopped writing hung up")
	}
	peer.Close()
	if !HungUp(t, c) {
		t.Error("a closed peer, with bytes left to read, did not hang up")
	}
}
