package server

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestConnInfoOnHTTP1 checks that a request read by http1 finds its
// connection's record (connInfoOf through http1.ConnContext): $connection
// is the connection's number, the same for its requests and another for
// the next connection, and $connection_requests counts its requests.
func TestConnInfoOnHTTP1(t *testing.T) {
	_, base := startRuntime(t, `http { server { listen 127.0.0.1:0;
		location / { return 200 "$connection $connection_requests"; } } }`)
	var ids []string
	for range 2 {
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(c)
		var id string
		for i, want := range []string{"1", "2", "3"} {
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			conn, n, _ := strings.Cut(string(b), " ")
			if conn == "" || conn == "0" || n != want || (i > 0 && conn != id) {
				t.Errorf("request %d: %q, want the connection's number and %s", i+1, b, want)
			}
			id = conn
		}
		c.Close()
		ids = append(ids, id)
	}
	if ids[0] == ids[1] {
		t.Errorf("two connections numbered %s", ids[0])
	}
}

// TestConnInfoOf checks the record's look-up apart from http1: a root over
// a connection's context found by Value (another server's request, a
// context wrapping the connection's) and over none.
func TestConnInfoOf(t *testing.T) {
	cc := &connCtx{Context: context.Background(), info: connInfo{id: 7}}
	type other struct{}
	for _, ctx := range []context.Context{cc, context.WithValue(cc, other{}, 1)} {
		if ci := connInfoOf(&reqRoot{Context: ctx}); ci != &cc.info {
			t.Errorf("over %v: %v, want the connection's record", ctx, ci)
		}
	}
	if ci := connInfoOf(&reqRoot{Context: context.Background()}); ci != nil {
		t.Errorf("over no connection: %v, want nil", ci)
	}
	if v := cc.Value(other{}); v != nil {
		t.Errorf("another key: %v, want the parent's nil", v)
	}
}
