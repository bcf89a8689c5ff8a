package http1

import (
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/reason"
)

// dateLine is the Date field for one second, formatted once.
type dateLine struct {
	sec  int64
	line []byte
}

var curDate atomic.Pointer[dateLine]

func appendDate(h []byte, now time.Time) []byte {
	d := curDate.Load()
	if d == nil || d.sec != now.Unix() {
		line := header.AppendDate([]byte("Date: "), now)
		d = &dateLine{sec: now.Unix(), line: append(line, "\r\n"...)}
		curDate.Store(d)
	}
	return append(h, d.line...)
}

// statusText holds "HTTP/1.1 NNN Reason\r\n" for every code from 100 to
// 999, one after the other, and statusAt where each starts: NGINX's
// phrase from 200 on, none where NGINX sends none ("HTTP/1.1 418 \r\n");
// Go's for the interim 1xx, which NGINX sends only as an upstream's. One
// string and an array of offsets rather than 900 strings: the garbage
// collector reads every pointer of the program's variables at every
// cycle, and these would be 14 KB of them.
var statusText, statusAt = func() (string, [901]uint32) {
	var b strings.Builder
	var at [901]uint32
	for code := 100; code < 1000; code++ {
		phrase := reason.Phrase(code)
		if code < 200 {
			phrase = http.StatusText(code)
		}
		b.WriteString("HTTP/1.1 " + strconv.Itoa(code) + " " + phrase + "\r\n")
		at[code-99] = uint32(b.Len())
	}
	return b.String(), at
}()

func statusLine(code int) string { return statusText[statusAt[code-100]:statusAt[code-99]] }
