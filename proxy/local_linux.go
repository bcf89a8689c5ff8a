package proxy

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// TransparentSupported reports whether a bind may be transparent here.
const TransparentSupported = true

func setTransparent(fd int, network string) error {
	level, opt, name := unix.SOL_IP, unix.IP_TRANSPARENT, "IP_TRANSPARENT"
	if strings.HasSuffix(network, "6") {
		level, opt, name = unix.SOL_IPV6, unix.IPV6_TRANSPARENT, "IPV6_TRANSPARENT"
	}
	if err := unix.SetsockoptInt(fd, level, opt, 1); err != nil {
		return fmt.Errorf("setsockopt(%s) failed: %w", name, err)
	}
	return nil
}
