package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Requests pipelined over TLS where one repeats Content-Length after more
// than eight other names (past the parser's small list of names met) or
// among the first: the answers before it, its 400, the connection's end
// (close_notify or not) and the access log are NGINX's.
func TestRepeatedFieldPipelinedOverTLSAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format s '$request_uri $status';
			access_log %[1]s/%[2]s.log s;
			server { listen 127.0.0.1:%[3]d ssl; ssl_certificate %[4]s; ssl_certificate_key %[5]s;
				location / { return 200 "ok $http_x_a $http_x_i\n"; } }`,
			dir, who, port, cert, key)
	})
	many := "X-A: 1\r\nX-B: 2\r\nX-C: 3\r\nX-D: 4\r\nX-E: 5\r\nX-F: 6\r\nX-G: 7\r\nX-H: 8\r\nX-I: 9\r\nX-A: again\r\n"
	for k, bad := range []string{
		many + "Content-Length: 0\r\nX-J: 10\r\ncontent-length: 0\r\n",
		"Content-Length: 0\r\nX-A: 1\r\ncontent-length: 0\r\n" + many,
	} {
		reqs := []string{
			"GET /one HTTP/1.1\r\nHost: a\r\n" + many + "\r\n",
			"GET /bad HTTP/1.1\r\nHost: a\r\n" + bad + "\r\n",
			"GET /after HTTP/1.1\r\nHost: a\r\n\r\n",
		}
		res := map[string]string{}
		for who, port := range map[string]int{"m": mport, "n": nport} {
			c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{InsecureSkipVerify: true})
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(10 * time.Second))
			io.WriteString(c, strings.Join(reqs, ""))
			br := bufio.NewReader(c)
			var out []string
			for {
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					out = append(out, "end: "+err.Error())
					break
				}
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != 200 {
					b = nil // the error pages name the server
				}
				out = append(out, resp.Status+" "+string(b))
			}
			c.Close()
			// NGINX logs the 400 once its lingering close ends.
			log := waitLog(t, filepath.Join(dir, who+".log"), 2*(k+1))
			res[who] = strings.Join(out, " | ") + "\nlog: " + strings.Join(log[len(log)-2:], " | ")
		}
		if res["m"] != res["n"] {
			t.Errorf("mosaic %s\nNGINX  %s", res["m"], res["n"])
		}
		if !strings.Contains(res["n"], "400 Bad Request") {
			t.Errorf("NGINX's answers are not as expected: %s", res["n"])
		}
	}
}
