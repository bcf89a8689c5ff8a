package gateway

import (
	"bufio"
	"net/http"
)

// ReadHeader is ReadHeaderInto into a Head of its own, for the tests
// that look at the Response alone.
func ReadHeader(br *bufio.Reader, statusLine bool, max int) (*http.Response, error) {
	h := new(Head)
	if err := ReadHeaderInto(h, br, statusLine, max); err != nil {
		return nil, err
	}
	return &h.Response, nil
}
