package proxy

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// FuzzOtherCodings: whatever head and body an upstream sends, reading
// them again after net/http refused the head never panics, and a response
// it makes of them carries neither Transfer-Encoding nor Content-Length
// and is never kept alive.
func FuzzOtherCodings(f *testing.F) {
	for _, seed := range [][2]string{
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "3\r\nabc\r\n0\r\n\r\n"},
		{"HTTP/1.1 204 No Content\r\nTransfer-Encoding: foo\r\nContent-Length: 3\r\n\r\n", "abc"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", ""},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: deflate\r\nTransfer-Encoding: compress\r\n\r\n", "x"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: ,\r\n\r\n", ""},
		{"HTTP/1.1 2000 OK\r\nTransfer-Encoding: foo\r\n\r\n", ""},
	} {
		f.Add(seed[0], seed[1])
	}
	refused := errors.New("refused")
	f.Fuzz(func(t *testing.T, head, body string) {
		r := &http.Request{Method: http.MethodGet}
		resp, err := otherCodings([]byte(head), bufio.NewReader(strings.NewReader(body)), r, refused)
		if err != nil {
			if resp != nil {
				t.Fatal("a response with an error")
			}
			return
		}
		if resp.Header["Transfer-Encoding"] != nil || resp.Header["Content-Length"] != nil || !resp.Close || resp.ContentLength != -1 {
			t.Fatalf("response %+v", resp)
		}
		// A decoder may expand the body a thousandfold; a bounded read is
		// enough to run it.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	})
}
