package chunked

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http/httputil"
	"testing"
	"testing/iotest"
)

// FuzzReaders holds what keeps a chunked body framed the same by every
// reader of it. Where net/http's reader (a front end's, say) takes a
// body, the strict reader takes it with the same data and leaves the same
// bytes after the last chunk's size line (the trailer, the next request):
// a body read two ways is a smuggled request. The lax reader takes all
// the strict one takes, alike. Reads come a byte at a time from below,
// so that every "is a line buffered" path is taken.
func FuzzReaders(f *testing.F) {
	for _, s := range []string{
		"3\r\nabc\r\n0\r\n\r\n", "3 ;x=y\r\nabc\r\n0\r\nT: v\r\n\r\nGET / HTTP/1.1\r\n",
		"3\nabc\n0\n", "00000000000000000003\r\nabc\r\n0\r\n", "3\r\nabcX\r\n0\r\n",
		"8000000000000000\r\n", "1\r\n\n\r\n0\r\n\r\n", "3;a\rb\r\nabc\r\n0\r\n", "5 \r\nhello\r\n0\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		read := func(lax bool) (data, rest []byte, err error) {
			br := bufio.NewReader(iotest.OneByteReader(bytes.NewReader(in)))
			cr := &Reader{br: br, lax: lax}
			data, err = io.ReadAll(cr)
			if err == nil {
				rest, _ = io.ReadAll(br)
			}
			return data, rest, err
		}
		sData, sRest, sErr := read(false)
		lData, lRest, lErr := read(true)
		if sErr == nil && (lErr != nil || !bytes.Equal(sData, lData) || !bytes.Equal(sRest, lRest)) {
			t.Fatalf("strict took %q (data %q, rest %q); lax: %q, %q, %v", in, sData, sRest, lData, lRest, lErr)
		}
		if sErr != nil && !errors.Is(sErr, ErrFraming) && sErr != io.ErrUnexpectedEOF {
			t.Fatalf("strict on %q: unexpected error %v", in, sErr)
		}

		br := bufio.NewReader(iotest.OneByteReader(bytes.NewReader(in)))
		nData, nErr := io.ReadAll(httputil.NewChunkedReader(br))
		if nErr != nil {
			return
		}
		nRest, _ := io.ReadAll(br)
		if sErr != nil || !bytes.Equal(sData, nData) || !bytes.Equal(sRest, nRest) {
			t.Fatalf("net/http took %q (data %q, rest %q); strict: %q, %q, %v", in, nData, nRest, sData, sRest, sErr)
		}
	})
}
