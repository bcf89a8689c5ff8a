package gateway

import (
	"bufio"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// The body ends at Content-Length, is empty for HEAD, 204 and 304, and
// runs to the end of the connection otherwise; a head cut short is an
// unexpected EOF.
func TestReadResponse(t *testing.T) {
	for _, c := range []struct {
		method, in string
		status     int
		body       string
	}{
		{"GET", "HTTP/1.1 404 Not Found\r\n\r\nabc", 404, "abc"},
		{"GET", "Status: 201 Made\r\n\r\nabc", 201, "abc"},
		{"GET", "Location: /x\r\n\r\n", 302, ""},
		{"GET", "Content-Length: 2\r\n\r\nabc", 200, "ab"},
		{"HEAD", "Content-Length: 3\r\n\r\nabc", 200, ""},
		{"GET", "Status: 204\r\n\r\nabc", 204, ""},
		{"GET", "HTTP/1.0 304 Not Modified\r\n\r\nabc", 304, ""},
	} {
		resp, err := ReadResponse(bufio.NewReader(strings.NewReader(c.in)), httptest.NewRequest(c.method, "/", nil), 0)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != c.status || string(body) != c.body || !resp.Close {
			t.Errorf("%q: %d %q close=%v", c.in, resp.StatusCode, body, resp.Close)
		}
	}
	if _, err := ReadResponse(bufio.NewReader(strings.NewReader("X: 1\r\n")), httptest.NewRequest("GET", "/", nil), 0); err != io.ErrUnexpectedEOF {
		t.Errorf("a head cut short: %v", err)
	}
}

// FuzzReadResponse: whatever an application sends, ReadResponse returns
// an error or a response with a status net/http can write and a body no
// longer than its Content-Length.
func FuzzReadResponse(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabc")
	f.Add("Status: 404\r\nLocation: /x\r\n\r\n")
	f.Add("HTTP/1.1 abc\r\nX\r\n\r\n")
	f.Add("X: a\x00b\r\n\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		resp, err := ReadResponse(bufio.NewReader(strings.NewReader(in)), httptest.NewRequest("GET", "/", nil), 4096)
		if err != nil {
			return
		}
		if resp.StatusCode < 100 || resp.StatusCode > 999 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.ContentLength >= 0 && int64(len(body)) > resp.ContentLength {
			t.Fatalf("%d bytes for Content-Length %d", len(body), resp.ContentLength)
		}
	})
}
