package http1

import (
	"net/http"
	"strconv"
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

// statusLines holds "HTTP/1.1 NNN Reason\r\n" for every code: NGINX's
// phrase from 200 on, none where NGINX sends none ("HTTP/1.1 418 \r\n");
// Go's for the interim 1xx, which NGINX sends only as an upstream's.
var statusLines = func() (t [900]string) {
	for code := 100; code < 1000; code++ {
		phrase := reason.Phrase(code)
		if code < 200 {
			phrase = http.StatusText(code)
		}
		t[code-100] = "HTTP/1.1 " + strconv.Itoa(code) + " " + phrase + "\r\n"
	}
	return t
}()

func statusLine(code int) string { return statusLines[code-100] }
