package servertest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ReadResponse reads an HTTP/1.1 response of status 200 from br and
// appends its body, sent with a Content-Length or chunked, to dst. It
// allocates nothing once dst has room for the body, so that a benchmark
// that reads its answers with it counts only the server's allocations.
func ReadResponse(br *bufio.Reader, dst []byte) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return dst, err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return dst, fmt.Errorf("unexpected response: %q", line)
	}
	length, chunked := -1, false
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return dst, err
		}
		if len(line) <= 2 {
			break
		}
		name, value, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = parseInt(value, 10); err != nil {
				return dst, err
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		}
	}
	if !chunked {
		if length < 0 {
			return dst, errors.New("unexpected response: no length")
		}
		return readN(br, dst, length)
	}
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return dst, err
		}
		size, err := parseInt(bytes.TrimRight(line, "\r\n"), 16)
		if err != nil {
			return dst, err
		}
		if size == 0 {
			_, err := br.Discard(2) // no trailers: the last CRLF
			return dst, err
		}
		if dst, err = readN(br, dst, size); err != nil {
			return dst, err
		}
		if _, err := br.Discard(2); err != nil {
			return dst, err
		}
	}
}

// parseInt reads a non-negative number of up to 31 bits in base 10 or 16.
// Converting b does not allocate: strconv copies what its error keeps.
func parseInt(b []byte, base int) (int, error) {
	n, err := strconv.ParseInt(string(b), base, 32)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad number %q in a response", b)
	}
	return int(n), nil
}

func readN(br *bufio.Reader, dst []byte, n int) ([]byte, error) {
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	_, err := io.ReadFull(br, dst[start:])
	return dst, err
}
