package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// TestConnAddrsKeptConnectionAsNGINX: the client's and the server's
// addresses are split once per connection (vars.Conn) and kept for
// its later requests, so a request whose address realip replaces, on a
// kept connection, must read its own, and the requests after it the
// connection's again; over TCP and over a Unix-domain socket, whose
// $remote_addr is "unix:" and $server_addr the socket's path. NGINX and
// mosaic run the same configuration and answer each request of one
// connection alike.
func TestConnAddrsKeptConnectionAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	sock := map[string]string{}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sock[who] = filepath.Join(dir, who+".sock")
		return fmt.Sprintf(`
			server {
				listen 127.0.0.1:%d;
				listen unix:%s;
				set_real_ip_from 127.0.0.1;
				set_real_ip_from unix:;
				real_ip_header X-Real-IP;
				location / { return 200 "$remote_addr|$remote_port|$server_addr|$server_port|$realip_remote_addr\n"; }
			}`, port, sock[who])
	})
	for who, port := range map[string]int{"m": mport, "n": nport} {
		for _, network := range []string{"tcp", "unix"} {
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			if network == "unix" {
				addr = sock[who]
			}
			c, err := net.DialTimeout(network, addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			// The connection's own addresses, as the variables read them.
			own := "unix:||unix:" + addr + "||unix:"
			if network == "tcp" {
				cport := fmt.Sprint(c.LocalAddr().(*net.TCPAddr).Port)
				own = fmt.Sprintf("127.0.0.1|%s|127.0.0.1|%d|127.0.0.1", cport, port)
			}
			server := "127.0.0.1|" + fmt.Sprint(port)
			if network == "unix" {
				server = "unix:" + addr + "|"
			}
			peer := "127.0.0.1"
			if network == "unix" {
				peer = "unix:"
			}
			br := bufio.NewReader(c)
			for i, step := range []struct{ field, want string }{
				{"", own},
				{"X-Real-IP: 1.2.3.4", "1.2.3.4||" + server + "|" + peer},
				{"", own},
				{"X-Real-IP: [2001:db8::5]:8443", "2001:db8::5|8443|" + server + "|" + peer},
				{"X-Real-IP: 5.6.7.8", "5.6.7.8||" + server + "|" + peer},
				{"", own},
			} {
				req := "GET / HTTP/1.1\r\nHost: a\r\n"
				if step.field != "" {
					req += step.field + "\r\n"
				}
				if _, err := io.WriteString(c, req+"\r\n"); err != nil {
					t.Fatal(err)
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("%s %s request %d: %v", who, network, i, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if got := string(body); resp.StatusCode != http.StatusOK || got != step.want+"\n" {
					t.Errorf("%s %s request %d (%q): %d %q, want %q", who, network, i, step.field, resp.StatusCode, got, step.want)
				}
			}
			c.Close()
		}
	}
}
