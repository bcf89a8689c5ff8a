package fastcgi

import (
	"errors"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/gateway"
)

// The framing errors read as NGINX's error-log lines and still match
// their sentinels.
func TestProtocolErrorsInNGINXWords(t *testing.T) {
	_, verr := parseHeader([]byte{2, TypeStdout, 0, 1, 0, 0, 0, 0})
	for _, tc := range []struct {
		err      error
		sentinel error
		want     string
	}{
		{verr, ErrVersion, "upstream sent unsupported FastCGI protocol version: 2"},
		{requestIDError(2), ErrRequestID, "upstream sent unexpected FastCGI request id low byte: 2"},
		{requestIDError(0x0101), ErrRequestID, "upstream sent unexpected FastCGI request id high byte: 1"},
		{requestIDError(0x0201), ErrRequestID, "upstream sent unexpected FastCGI request id high byte: 2"},
	} {
		var pe *gateway.ProtocolError
		if !errors.As(tc.err, &pe) || !errors.Is(tc.err, tc.sentinel) || tc.err.Error() != tc.want {
			t.Errorf("%v: want %q, a ProtocolError wrapping %v", tc.err, tc.want, tc.sentinel)
		}
	}
}
