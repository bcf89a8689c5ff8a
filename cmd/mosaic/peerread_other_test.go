//go:build !linux

package main

import (
	"net"
	"testing"
)

// waitPeerRead needs Linux's view of the server's socket (SIOCOUTQ,
// /proc/net/tcp); elsewhere the tests that wait for a server's read
// skip rather than guess at it with a sleep.
func waitPeerRead(t *testing.T, _ *net.TCPConn) {
	t.Skip("waiting for the server's read needs Linux's /proc/net/tcp")
}
