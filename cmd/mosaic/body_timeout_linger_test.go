package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

// After client_body_timeout NGINX ends the request as timed out (408 in
// its log, nothing sent) and closes at once, with no lingering close:
// what the client sends after that meets a closed socket, and the
// kernel resets the connection. mosaic lingered there, reading and
// dropping what came for lingering_timeout.
func TestBodyTimeoutClosesWithoutLingerAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "read\n")
	}))
	t.Cleanup(origin.Close)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`client_body_timeout 300ms; lingering_close on; lingering_timeout 5s;
			server { listen 127.0.0.1:%d; location / { proxy_pass %s; } }`, port, origin.URL)
	})
	dialEach(t, mport, nport, func(t *testing.T, c net.Conn) {
		fmt.Fprint(c, "POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n0123456789")
		got, err := io.ReadAll(c) // the body stops: the server gives up
		if err != nil || len(got) != 0 {
			t.Errorf("the server sent %q and ended with %v; want nothing, then an end of file", got, err)
		}
		// A closed socket answers the first write with a reset, which
		// the second meets; a lingering one reads and drops both.
		var werr error
		for i := 0; i < 2 && werr == nil; i++ {
			_, werr = io.WriteString(c, "more of the body")
			time.Sleep(100 * time.Millisecond)
		}
		if werr == nil {
			t.Errorf("writes after the close went through: the server lingered")
		} else if !errors.Is(werr, syscall.ECONNRESET) && !errors.Is(werr, syscall.EPIPE) {
			t.Errorf("the write after the close failed with %v; want a reset", werr)
		}
	})
}
