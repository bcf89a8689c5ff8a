package chunked

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReaders: what the strict reader (a client's body) and the lax one
// (an upstream's, as NGINX's parser) take; "!" is a framing error.
func TestReaders(t *testing.T) {
	for _, tc := range []struct{ chunks, strict, lax string }{
		{"3 ;x=y\r\nabc\r\n0\r\n", "abc", "abc"},
		{"3\t;x\r\nabc\r\n0 ;y\r\n", "abc", "abc"},
		{"00000000000000000003\r\nabc\r\n0\r\n", "abc", "abc"},
		{"3 x\r\nabc\r\n0\r\n", "!", "abc"},
		{"3\nabc\n0\n", "!", "abc"},
		{"3\r\nabc\n0\r\n", "abc!", "abc"},
		{"3;a\rb\r\nabc\r\n0\r\n", "!", "!"},
		{"3\r\r\nabc\r\n0\r\n", "!", "!"},
		{" 3\r\nabc\r\n0\r\n", "!", "!"},
		{"0x3\r\nabc\r\n0\r\n", "!", "!"},
		{"\n", "!", "!"},
		{"3\r\nabcX\r\n0\r\n", "abc!", "abc!"},
		{"8000000000000000\r\n", "!", "!"},
	} {
		for _, r := range []struct {
			cr   *Reader
			want string
		}{
			{NewReader(bufio.NewReader(strings.NewReader(tc.chunks))), tc.strict},
			{NewLaxReader(bufio.NewReader(strings.NewReader(tc.chunks))), tc.lax},
		} {
			body, err := io.ReadAll(r.cr)
			got := string(body)
			if errors.Is(err, ErrFraming) {
				got += "!"
			} else if err != nil {
				got += "(" + err.Error() + ")"
			}
			if got != r.want {
				t.Errorf("%q, lax %v: %q, want %q", tc.chunks, r.cr.lax, got, r.want)
			}
		}
	}
}

func TestComplete(t *testing.T) {
	for in, want := range map[string]bool{
		"0\r\n\r\n":                        true,
		"0\r\n\r\nGET / HTTP/1.1\r\n":      true, // a pipelined request after it
		"2\r\nhi\r\n0\r\n\r\n":             true,
		"2;x=y\r\nhi\r\n0\r\nA: b\r\n\r\n": true,
		"":                                 false,
		"0\r\n":                            false,
		"0\r\nA: b\r\n":                    false,
		"2\r\nhi\r\n":                      false,
		"5\r\nhi\r\n0\r\n\r\n":             false, // the data runs past what came
		"ffffffffffffffff\r\n":             false,
		"7fffffffffffffff\r\nx":            false,
		"x\r\n\r\n":                        false,
	} {
		if got := Complete([]byte(in)); got != want {
			t.Errorf("Complete(%q) = %v, want %v", in, got, want)
		}
	}
}
