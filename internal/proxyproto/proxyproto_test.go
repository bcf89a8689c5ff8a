package proxyproto

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
)

func v2(cmd, fam byte, body []byte) []byte {
	b := append([]byte(nil), v2sig...)
	b = append(b, 0x20|cmd, fam, byte(len(body)>>8), byte(len(body)))
	return append(b, body...)
}

func TestParse(t *testing.T) {
	v4 := []byte{1, 2, 3, 4, 5, 6, 7, 8, 0x30, 0x39, 0, 80}
	v6 := make([]byte, 36)
	v6[15], v6[31], v6[32], v6[33], v6[35] = 1, 2, 1, 0, 1
	for _, c := range []struct {
		in    string
		want  *Header
		taken int
		err   string
	}{
		{"PROXY TCP4 1.2.3.4 5.6.7.8 12345 80\r\nGET", &Header{"1.2.3.4", "5.6.7.8", 12345, 80, 1}, 37, ""},
		{"PROXY TCP6 ::1 ::2 1 65535\r\n", &Header{"::1", "::2", 1, 65535, 1}, 28, ""},
		{"PROXY UNKNOWN whatever\r\nGET", nil, 24, ""},
		{"PROXY TCP4 1.2.3.4 5.6.7.8 12345", nil, 0, "incomplete"},
		{"PROX", nil, 0, "incomplete"},
		{"GET / HTTP/1.1\r\n", nil, 0, "broken header"},
		{"PROXY TCP4 1.2.3.4 5.6.7.8 99999 80\r\n", nil, 0, "broken header"},
		{"PROXY TCP4 1.2.3.4  5.6.7.8 1 80\r\n", nil, 0, "broken header"},
		{"PROXY TCP4 host 5.6.7.8 1 80\r\n", nil, 0, "broken header"},
		{"PROXY TCP5 1.2.3.4 5.6.7.8 1 80\r\n", nil, 0, "broken header"},
		{"PROXY TCP4 1.2.3.4 5.6.7.8 1 80\n", nil, 0, "broken header"},
		{string(v2(1, 0x11, v4)) + "GET", &Header{"1.2.3.4", "5.6.7.8", 12345, 80, 2}, 28, ""},
		{string(v2(1, 0x21, v6)), &Header{"::1", "::2", 256, 1, 2}, 52, ""},
		{string(v2(0, 0x00, nil)), nil, 16, ""},
		{string(v2(1, 0x31, make([]byte, 216))), nil, 232, ""},
		{string(v2(1, 0x11, v4[:8])), nil, 0, "broken header"},
		{string(v2(1, 0x11, v4))[:20], nil, 0, "incomplete"},
		{"\r\n\r\n\x00\r\nQUIT\n\x10\x11\x00\x00", nil, 0, "unknown PROXY protocol version"},
		{"\r\n\r\nX", nil, 0, "broken header"},
	} {
		h, n, err := Parse([]byte(c.in))
		if c.err != "" {
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.err)) {
				t.Errorf("%q: %v, want an error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || n != c.taken || (h == nil) != (c.want == nil) || (h != nil && *h != *c.want) {
			t.Errorf("%q: %+v %d %v, want %+v %d", c.in, h, n, err, c.want, c.taken)
		}
	}
}

func TestConn(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	c := NewConn(b)
	go func() {
		// The header in two pieces, the data in the second.
		a.Write([]byte("PROXY TCP4 9.9.9.9 "))
		a.Write([]byte("1.1.1.1 4000 443\r\nhello"))
		a.Close()
	}()
	data, err := io.ReadAll(c)
	if err != nil || string(data) != "hello" {
		t.Fatalf("%q %v", data, err)
	}
	if h := c.Header(); h == nil || h.SrcAddr != "9.9.9.9" || h.SrcPort != 4000 {
		t.Fatalf("header %+v", h)
	}

	a2, b2 := net.Pipe()
	defer a2.Close()
	var seen atomic.Value
	c2 := &Conn{Conn: b2, onError: func(_ net.Conn, err error) { seen.Store(err) }}
	go a2.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
	if _, err := c2.Read(make([]byte, 10)); err == nil || seen.Load() == nil {
		t.Fatalf("a connection without a header read %v", err)
	}
}

// FuzzParse: no input panics, a header is never longer than its input,
// and feeding the input a byte at a time gives the same answer.
func FuzzParse(f *testing.F) {
	f.Add([]byte("PROXY TCP4 1.2.3.4 5.6.7.8 12345 80\r\nGET"))
	f.Add([]byte("PROXY UNKNOWN\r\n"))
	f.Add(v2(1, 0x11, []byte{1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 0, 2}))
	f.Add(v2(1, 0x21, make([]byte, 40)))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := Parse(b)
		if n > len(b) || n < 0 {
			t.Fatalf("took %d of %d", n, len(b))
		}
		if err != nil {
			if errors.Is(err, ErrIncomplete) && len(b) >= MaxHeader {
				t.Fatalf("incomplete after %d bytes", len(b))
			}
			return
		}
		// Every prefix shorter than the header is incomplete, never a
		// different header.
		for i := 1; i < n; i++ {
			if _, m, err := Parse(b[:i]); err == nil {
				t.Fatalf("prefix %d of %d parsed as a header of %d", i, n, m)
			}
		}
		_ = h
	})
}
