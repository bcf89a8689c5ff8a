package main

import "testing"

// The normalised-target class holds only where mosaic sent the path that
// routed the request: a target sent otherwise stays a difference.
func TestSentRouted(t *testing.T) {
	for _, tc := range []struct {
		target, sent string
		merge, want  bool
	}{
		{"/l0/a/../b?x=1", "/l0/b?x=1", true, true},
		{"/l0//a/%2e%2E/b/.", "/l0/b/", true, true},
		{"/l0/%2Fa#f?q", "/l0/a", true, true},
		{"/l0//a", "/l0//a", false, true},
		{"/l0/%C3%A9%20/", "/l0/%C3%A9%20/", true, true},
		// Routed by one path, sent as another.
		{"/l0/a/../b", "/l0/a/../b", true, false},
		{"/l0//a", "/l0//a", true, false},
		{"/l0/a/../b", "/b", true, false},
		{"/l0/a?x=1", "/l0/a?x=2", true, false},
		{"/l0/%zz", "/l0/%zz", true, false},
	} {
		if got := sentRouted(tc.target, tc.sent, tc.merge); got != tc.want {
			t.Errorf("sentRouted(%q, %q, %v) = %v, want %v", tc.target, tc.sent, tc.merge, got, tc.want)
		}
	}
}
