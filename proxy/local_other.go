//go:build !linux

package proxy

import "errors"

// TransparentSupported reports whether a bind may be transparent here.
const TransparentSupported = false

func setTransparent(int, string) error {
	return errors.New("transparent proxying is not supported on this platform")
}
