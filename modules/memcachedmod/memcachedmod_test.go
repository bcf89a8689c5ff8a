package memcachedmod_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	_ "github.com/mosaic-edge/mosaic/modules/memcachedmod"
	_ "github.com/mosaic-edge/mosaic/modules/rewritemod"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// fake is a memcached that answers every get with answer(key), for the
// answers a real memcached never sends. It counts the gets, and closes
// the connection after an answer that does not end with END.
func fake(t *testing.T, answer func(key string) string) (addr string, gets *atomic.Int32) {
	gets = new(atomic.Int32)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			gets.Add(1)
			key := strings.TrimSuffix(strings.TrimPrefix(line, "get "), "\r\n")
			a := answer(key)
			if _, err := io.WriteString(c, a); err != nil || !strings.HasSuffix(a, "END\r\n") {
				return
			}
		}
	})
	return o.Addr(), gets
}

func fetch(t *testing.T, url string) (*http.Response, string, error) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// TestMalformedAnswers: answers that a real memcached cannot give are
// 502 (before the header) or a response cut at the value's length.
func TestMalformedAnswers(t *testing.T) {
	answers := map[string]string{
		"/wrongkey": "VALUE other 0 2\r\nhi\r\nEND\r\n",
		"/cas":      "VALUE /cas 0 2 77\r\nhi\r\nEND\r\n",
		"/nocr":     "VALUE /nocr 0 2\nhi\r\nEND\r\n",
		"/flags":    "VALUE /flags x 2\r\nhi\r\nEND\r\n", // read with memcached_gzip_flag only
		"/long":     "VALUE /long 0 2" + strings.Repeat(" ", 100) + "\r\n",
		"/trailer":  "VALUE /trailer 0 2\r\nhi there\r\nEND\r\n",
		"/short":    "VALUE /short 0 10\r\nhi",
		"/error":    "SERVER_ERROR out of memory\r\n",
	}
	addr, _ := fake(t, func(key string) string { return answers[key] })
	base := servertest.Start(t, fmt.Sprintf(`http { error_log /dev/null; server { listen 127.0.0.1:0;
		location / { set $memcached_key $uri; memcached_pass %s; memcached_buffer_size 64; }
		location /flags { set $memcached_key $uri; memcached_pass %[1]s; memcached_gzip_flag 1; }
	} }`, addr))
	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/wrongkey", 502, ""}, {"/cas", 502, ""}, {"/nocr", 502, ""}, {"/flags", 502, ""},
		{"/long", 502, ""}, {"/error", 502, ""},
		{"/trailer", 200, "hi"},
	} {
		resp, body, err := fetch(t, base+c.path)
		if err != nil || resp.StatusCode != c.status || c.status == 200 && body != c.body {
			t.Errorf("%s: %v %q %v, want %d", c.path, resp, body, err, c.status)
		}
	}
	// The value cut short: the client's response is broken too.
	if _, body, err := fetch(t, base+"/short"); err == nil {
		t.Errorf("/short: a whole response %q", body)
	}
}

// TestNextUpstreamInvalidResponse: memcached_next_upstream
// invalid_response tries the group's next server after an error line,
// not_found after a miss; by default neither does.
func TestNextUpstreamInvalidResponse(t *testing.T) {
	bad, badGets := fake(t, func(string) string { return "ERROR\r\n" })
	miss, _ := fake(t, func(string) string { return "END\r\n" })
	good, _ := fake(t, func(key string) string { return "VALUE " + key + " 0 2\r\nok\r\nEND\r\n" })
	base := servertest.Start(t, fmt.Sprintf(`http { error_log /dev/null;
		upstream bad { server %s; server %s; }
		upstream miss { server %s; server %[2]s; }
		server { listen 127.0.0.1:0;
			set $memcached_key $uri;
			location /a { memcached_pass bad; }
			location /b { memcached_pass bad; memcached_next_upstream invalid_response; }
			location /c { memcached_pass miss; memcached_next_upstream not_found; }
			location /d { memcached_pass miss; }
	} }`, bad, good, miss))
	// Twice each: round robin starts at the group's other server the
	// second time.
	for _, c := range []struct {
		path string
		want string
	}{{"/a", "502 200"}, {"/b", "200 200"}, {"/c", "200 200"}, {"/d", "404 200"}} {
		var got []string
		for range 2 {
			resp, _, err := fetch(t, base+c.path)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprint(resp.StatusCode))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: %v, want %s", c.path, got, c.want)
		}
	}
	if badGets.Load() == 0 {
		t.Error("the bad server was never asked")
	}
}

// TestReadTimeout: memcached_read_timeout bounds the wait for an answer.
func TestReadTimeout(t *testing.T) {
	addr, _ := fake(t, func(string) string { time.Sleep(300 * time.Millisecond); return "END\r\n" })
	base := servertest.Start(t, fmt.Sprintf(`http { error_log /dev/null; server { listen 127.0.0.1:0;
		location / { set $memcached_key $uri; memcached_pass %s; memcached_read_timeout 100ms; } } }`, addr))
	if resp, _, err := fetch(t, base+"/x"); err != nil || resp.StatusCode != 504 {
		t.Errorf("%v %v, want 504", resp, err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{`location / { memcached_pass 127.0.0.1:11211; }`, `unknown "memcached_key" variable`},
		{`location / { set $memcached_key $uri; memcached_pass 127.0.0.1:11211; memcached_pass 127.0.0.1:11212; }`, "duplicate"},
		{`location / { set $memcached_key $uri; memcached_pass 127.0.0.1:11211; memcached_next_upstream http_500; }`, `invalid value "http_500"`},
		{`location / { set $memcached_key $uri; memcached_pass 127.0.0.1:11211; memcached_next_upstream invalid_header; }`, `invalid value "invalid_header"`},
		{`location / { set $memcached_key $uri; memcached_pass 127.0.0.1:11211; memcached_gzip_flag -1; }`, "invalid number"},
		{`location / { set $memcached_key $uri; memcached_pass $host; }`, "variables"},
		{`location / { set $memcached_key $uri; memcached_pass localhost; }`, "no port"},
		{`memcached_pass 127.0.0.1:11211;`, "not allowed"},
		{`location / { if ($arg_a) { memcached_gzip_flag 1; } }`, "not allowed"},
		{`location / { memcached_param A b; }`, "unknown directive"},
		{`location / { memcached_buffering off; }`, "unknown directive"},
	} {
		servertest.WantError(t, `http { server { `+c.conf+` } }`, c.want)
	}
	cfg := servertest.Load(t, `http { memcached_gzip_flag 2; memcached_connect_timeout 1s; memcached_bind 127.0.0.1;
		memcached_socket_keepalive on; memcached_next_upstream error timeout invalid_response not_found;
		memcached_next_upstream_tries 2; memcached_next_upstream_timeout 1s; memcached_send_timeout 1s;
		memcached_read_timeout 1s; memcached_buffer_size 8k;
		server { location / { set $memcached_key $uri; if ($arg_a) { memcached_pass unix:/nonexistent; } memcached_pass 127.0.0.1:11211; } } }`)
	cfg.Close()
}

// TestIfBlock: an "if" block of the location passes to its own
// memcached_pass, or to its location's when it has none, with the key
// and the gzip flag in force there.
func TestIfBlock(t *testing.T) {
	answer := func(tag string, flags int) func(string) string {
		return func(key string) string {
			return fmt.Sprintf("VALUE %s %d %d\r\n%s\r\nEND\r\n", key, flags, len(tag+key), tag+key)
		}
	}
	a, _ := fake(t, answer("a:", 0))
	b, _ := fake(t, answer("b:", 1))
	base := servertest.Start(t, fmt.Sprintf(`http { error_log /dev/null; server { listen 127.0.0.1:0;
		location / {
			set $memcached_key $uri;
			memcached_gzip_flag 1;
			if ($arg_to = b) { memcached_pass %s; }
			if ($arg_key) { set $memcached_key $arg_key; }
			memcached_pass %s;
		}
	} }`, b, a))
	for _, c := range []struct{ path, body, coding string }{
		{"/x", "a:/x", ""},
		{"/x?to=b", "b:/x", "gzip"},
		{"/x?key=other", "a:other", ""},
	} {
		req, _ := http.NewRequest("GET", base+c.path, nil)
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != c.body || resp.Header.Get("Content-Encoding") != c.coding {
			t.Errorf("%s: %d %q %q, want %q %q", c.path, resp.StatusCode, body, resp.Header.Get("Content-Encoding"), c.body, c.coding)
		}
	}
}
