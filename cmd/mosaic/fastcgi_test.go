package main

import (
	"bytes"
	"crypto/md5"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// phpFPM is a php-fpm master run by a test, with one pool listening on a
// Unix-domain socket or a loopback port.
type phpFPM struct {
	addr   string // "unix:/path" or "127.0.0.1:port", as fastcgi_pass takes it
	cmd    *exec.Cmd
	out    *syncBuffer
	done   chan error
	exited bool
}

// shipFastCGIFile copies one of the FastCGI files mosaic ships
// (modules/fastcgimod/nginx: fastcgi_params, fastcgi.conf, snippets/...)
// to dir/name, where a configuration of the test includes it.
func shipFastCGIFile(t *testing.T, dir, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "modules", "fastcgimod", "nginx", name))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, name), string(b))
}

// fpmPath returns php-fpm's path, or skips the test.
func fpmPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"php-fpm8.2", "php-fpm"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if _, err := os.Stat("/usr/sbin/php-fpm8.2"); err == nil {
		return "/usr/sbin/php-fpm8.2"
	}
	t.Skip("php-fpm is not installed (.ci/run installs it)")
	return ""
}

// startFPM runs php-fpm in dir (its own configuration, no php.ini, no
// system service) with a pool of workers listening on listen: a socket
// path or a port, and the pool's further settings, one a line. It stops
// when the test ends.
func startFPM(t *testing.T, dir, listen string, workers int, pool ...string) *phpFPM {
	t.Helper()
	bin := fpmPath(t)
	conf := fmt.Sprintf(`[global]
pid = %[1]s/fpm.pid
error_log = %[1]s/fpm.log
daemonize = no
[www]
listen = %[2]s
pm = static
pm.max_children = %[3]d
pm.status_path = /fpm-status
catch_workers_output = yes
php_admin_flag[display_errors] = off
php_admin_flag[log_errors] = on
php_admin_value[upload_max_filesize] = 32M
php_admin_value[post_max_size] = 32M
`, dir, listen, workers) + strings.Join(pool, "\n") + "\n"
	writeFile(t, filepath.Join(dir, "fpm.conf"), conf)
	args := []string{"-n", "-F", "-y", filepath.Join(dir, "fpm.conf"), "-p", dir}
	if os.Getuid() == 0 {
		args = append(args, "-R")
	}
	f := &phpFPM{out: &syncBuffer{}, done: make(chan error, 1)}
	f.cmd = exec.Command(bin, args...)
	f.cmd.Stdout, f.cmd.Stderr = f.out, f.out
	// The workers are the master's children: the group is stopped whole.
	f.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	f.cmd.WaitDelay = 5 * time.Second
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { f.done <- f.cmd.Wait() }()
	t.Cleanup(f.stop)
	network, address := "tcp", listen
	if strings.HasPrefix(listen, "/") {
		network, f.addr = "unix", "unix:"+listen
	} else {
		f.addr = listen
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial(network, address)
		if err == nil {
			c.Close()
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("php-fpm never listened on %s: %v\n%s", listen, err, f.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (f *phpFPM) stop() {
	if f.exited {
		return
	}
	f.exited = true
	_ = syscall.Kill(-f.cmd.Process.Pid, syscall.SIGKILL)
	<-f.done
}

// The PHP application of the tests. index.php reports what it was given
// as "NAME=value" lines, and acts on its query arguments.
var phpFiles = map[string]string{
	"index.php": `<?php
if (isset($_GET['redirect'])) { header('Location: /elsewhere?from=php'); exit; }
if (isset($_GET['moved'])) { header('Status: 301 Moved Permanently'); header('Location: http://example.com/new'); exit; }
if (isset($_GET['missing'])) { http_response_code(404); echo "no such post\n"; exit; }
if (isset($_GET['unavailable'])) { http_response_code(503); echo "from php\n"; exit; }
header('X-App: wordpress-like');
setcookie('session', 'abc123');
setcookie('theme', 'dark');
header('Content-Type: text/plain');
foreach (['REQUEST_METHOD', 'REQUEST_URI', 'QUERY_STRING', 'SCRIPT_NAME', 'SCRIPT_FILENAME', 'PATH_INFO',
          'DOCUMENT_URI', 'CONTENT_TYPE', 'CONTENT_LENGTH', 'SERVER_PROTOCOL', 'GATEWAY_INTERFACE',
          'SERVER_SOFTWARE', 'REDIRECT_STATUS', 'HTTP_X_CUSTOM', 'HTTP_HOST'] as $k) {
    echo $k, '=', $_SERVER[$k] ?? '-', "\n";
}
echo 'POST=', json_encode($_POST), "\n";
echo 'COOKIE=', json_encode($_COOKIE), "\n";
`,
	"upload.php": `<?php
$in = fopen('php://input', 'rb');
$ctx = hash_init('md5');
$n = 0;
while (!feof($in)) { $b = fread($in, 65536); $n += strlen($b); hash_update($ctx, $b); }
header('Content-Type: text/plain');
echo $n, ' ', hash_final($ctx), "\n";
`,
	"fatal.php": `<?php
this_function_does_not_exist();
`,
	"slow.php": `<?php
usleep(1500000);
echo "late\n";
`,
	"maintenance.html": "down for maintenance\n",
	// abort.php writes its marker only if all its output could be sent.
	"abort.php": `<?php
usleep(300000);
for ($i = 0; $i < 64; $i++) { echo str_repeat('x', 65536); flush(); }
file_put_contents(__DIR__ . '/../marker-' . $_GET['n'], 'done');
`,
	"warn.php": "<?php error_log('Deprecated feature used'); echo \"page\\n\";\n",
	"time.php": "<?php echo hrtime(true), \"\\n\";\n",
}

// wordpressConf is the WordPress recipe's configuration (NGINX wiki),
// with PATH_INFO as NGINX's PHP FastCGI example sets it, and the locations
// the tests add: a streamed upload, one without keepalive, php-fpm's
// status page and a second pool on TCP.
const wordpressConf = `
error_log {dir}/error.log info;
http {
    upstream php {
        server {fpm};
        keepalive 4;
    }
    fastcgi_cache_path {dir}/cache keys_zone=php:1m;
    upstream failover {
        server {dead};
        server {fpm};
    }
    upstream counted {
        server {counter};
        keepalive 4;
    }
    server {
        listen 127.0.0.1:{port};
        server_name wordpress.test;
        root {dir}/www;
        index index.php;
        client_max_body_size 32m;
        error_page 503 /maintenance.html;

        location = /favicon.ico { log_not_found off; access_log off; }
        location / {
            try_files $uri $uri/ /index.php?$args;
        }
        location ~ [^/]\.php(/|$) {
            fastcgi_split_path_info ^(.+?\.php)(/.*)$;
            include fastcgi_params;
            fastcgi_intercept_errors on;
            fastcgi_pass php;
            fastcgi_keep_conn on;
            fastcgi_read_timeout 1s;
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
            fastcgi_param PATH_INFO $fastcgi_path_info;
        }
        location /streamed/ {
            fastcgi_request_buffering off;
            include fastcgi.conf;
            fastcgi_param SCRIPT_FILENAME {dir}/www/upload.php;
            fastcgi_pass php;
        }
        location /mirrored/ {
            mirror /mirror-sink;
            include fastcgi.conf;
            fastcgi_param SCRIPT_FILENAME {dir}/www/index.php;
            fastcgi_pass php;
        }
        location = /mirror-sink { internal; return 204; }
        location /failover/ {
            include fastcgi.conf;
            fastcgi_param SCRIPT_FILENAME {dir}/www/index.php;
            fastcgi_pass failover;
        }
        location /caught/ {
            include fastcgi.conf;
            fastcgi_param SCRIPT_FILENAME {dir}/www/warn.php;
            fastcgi_catch_stderr "Deprecated feature";
            fastcgi_pass php;
        }
        location /nobody/ {
            fastcgi_pass_request_body off;
            include fastcgi.conf;
            fastcgi_param SCRIPT_FILENAME {dir}/www/upload.php;
            fastcgi_pass php;
        }
        location /abort/ {
            include fastcgi.conf;
            fastcgi_param SCRIPT_FILENAME {dir}/www/abort.php;
            fastcgi_buffering off;
            fastcgi_pass php;
            location /abort/ignored/ {
                fastcgi_ignore_client_abort on;
                fastcgi_pass php;
            }
        }
        location /no-keepalive/ {
            include fastcgi.conf;
            fastcgi_param SCRIPT_FILENAME {dir}/www/index.php;
            fastcgi_pass {fpm};
        }
        location /cached/ {
            include fastcgi.conf;
            fastcgi_param SCRIPT_FILENAME {dir}/www/time.php;
            fastcgi_pass php;
            fastcgi_cache php;
            fastcgi_cache_key $request_uri;
            fastcgi_cache_valid 200 1m;
            add_header X-Cache $upstream_cache_status;
        }
        location /counted/ {
            include fastcgi.conf;
            fastcgi_param SCRIPT_FILENAME {dir}/www/index.php;
            location /counted/keepalive/ {
                fastcgi_pass counted;
                fastcgi_keep_conn on;
            }
            location /counted/close/ {
                fastcgi_pass counted;
            }
        }
        location /tcp/ {
            include fastcgi.conf;
            fastcgi_param SCRIPT_FILENAME {dir}/www/index.php;
            fastcgi_pass {tcp};
        }
    }
}
`

type fastcgiSite struct {
	dir, base string
	fpm, tcp  *phpFPM
	counter   *tcpRelay
	mosaic    *proc
}

// tcpRelay relays TCP connections to a server (php-fpm's socket, a
// gateway's port) and records the address each came from: how many there
// were (php-fpm's status page counts requests, not connections), and the
// local address a proxy bound, which the application behind cannot tell.
type tcpRelay struct {
	ln    net.Listener
	mu    sync.Mutex
	peers []string
}

func newTCPRelay(t *testing.T, network, address string) *tcpRelay {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpRelay{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			host, _, _ := net.SplitHostPort(in.RemoteAddr().String())
			p.mu.Lock()
			p.peers = append(p.peers, host)
			p.mu.Unlock()
			go func() {
				defer in.Close()
				out, err := net.Dial(network, address)
				if err != nil {
					return
				}
				defer out.Close()
				go func() { io.Copy(out, in); out.(interface{ CloseWrite() error }).CloseWrite() }()
				io.Copy(in, out)
			}()
		}
	}()
	return p
}

func (p *tcpRelay) addr() string { return p.ln.Addr().String() }

// list returns the peers' addresses, in the order they connected.
func (p *tcpRelay) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.peers...)
}

// count is how many connections came.
func (p *tcpRelay) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.peers)
}

func startFastCGISite(t *testing.T) *fastcgiSite {
	t.Helper()
	fpmPath(t)
	dir := t.TempDir()
	for name, body := range phpFiles {
		writeFile(t, filepath.Join(dir, "www", name), body)
	}
	s := &fastcgiSite{dir: dir}
	s.fpm = startFPM(t, filepath.Join(dir, "fpm-unix"), filepath.Join(dir, "php.sock"), 4)
	s.tcp = startFPM(t, filepath.Join(dir, "fpm-tcp"), fmt.Sprintf("127.0.0.1:%d", freePort(t)), 1)
	s.counter = newTCPRelay(t, "unix", filepath.Join(dir, "php.sock"))
	port := freePort(t)
	conf := strings.NewReplacer("{dir}", dir, "{fpm}", s.fpm.addr, "{tcp}", s.tcp.addr,
		"{counter}", s.counter.addr(), "{dead}", fmt.Sprintf("127.0.0.1:%d", refusedPort(t))).Replace(wordpressConf)
	s.mosaic = startMosaic(t, dir, conf, port)
	s.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	return s
}

// report reads index.php's "NAME=value" lines.
func report(body string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(body, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

// TestFastCGIWordPress serves a PHP application through php-fpm with the
// WordPress recipe's configuration.
func TestFastCGIWordPress(t *testing.T) {
	s := startFastCGISite(t)
	dir, base := s.dir, s.base

	t.Run("index with query", func(t *testing.T) {
		resp, body := do(t, "GET", base+"/?p=42&x=y", nil)
		r := report(body)
		if resp.StatusCode != 200 || r["REQUEST_METHOD"] != "GET" || r["QUERY_STRING"] != "p=42&x=y" ||
			r["REQUEST_URI"] != "/?p=42&x=y" || r["SCRIPT_FILENAME"] != dir+"/www/index.php" ||
			r["SCRIPT_NAME"] != "/index.php" || r["GATEWAY_INTERFACE"] != "CGI/1.1" || r["REDIRECT_STATUS"] != "200" {
			t.Fatalf("%d\n%s", resp.StatusCode, body)
		}
		if got := resp.Header.Get("Content-Type"); got != "text/plain;charset=UTF-8" && got != "text/plain" {
			t.Errorf("Content-Type %q", got)
		}
	})
	t.Run("permalink through try_files", func(t *testing.T) {
		resp, body := do(t, "GET", base+"/2024/01/hello-world/?replytocom=7", nil)
		r := report(body)
		if resp.StatusCode != 200 || r["QUERY_STRING"] != "replytocom=7" || r["REQUEST_URI"] != "/2024/01/hello-world/?replytocom=7" ||
			r["DOCUMENT_URI"] != "/index.php" {
			t.Fatalf("%d\n%s", resp.StatusCode, body)
		}
	})
	t.Run("PATH_INFO", func(t *testing.T) {
		_, body := do(t, "GET", base+"/index.php/wp-json/wp/v2/posts", nil)
		r := report(body)
		if r["PATH_INFO"] != "/wp-json/wp/v2/posts" || r["SCRIPT_NAME"] != "/index.php" ||
			r["SCRIPT_FILENAME"] != dir+"/www/index.php" {
			t.Fatalf("%s", body)
		}
	})
	t.Run("POST form", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, base+"/index.php", strings.NewReader("log=admin&pwd=s%26cret"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		_, body := doRequest(t, req)
		r := report(body)
		if r["POST"] != `{"log":"admin","pwd":"s&cret"}` || r["CONTENT_LENGTH"] != "22" ||
			r["CONTENT_TYPE"] != "application/x-www-form-urlencoded" || r["REQUEST_METHOD"] != "POST" {
			t.Fatalf("%s", body)
		}
	})
	t.Run("chunked POST", func(t *testing.T) {
		// A body of unknown length is read whole first: PHP needs its
		// CONTENT_LENGTH.
		req, _ := http.NewRequest(http.MethodPost, base+"/index.php", io.MultiReader(strings.NewReader("a=1&"), strings.NewReader("b=2")))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		_, body := doRequest(t, req)
		if r := report(body); r["POST"] != `{"a":"1","b":"2"}` || r["CONTENT_LENGTH"] != "7" {
			t.Fatalf("%s", body)
		}
	})
	t.Run("chunked POST read by a mirror", func(t *testing.T) {
		// The mirror reads the body whole before the content: its
		// length is $content_length then, as NGINX's.
		req, _ := http.NewRequest(http.MethodPost, base+"/mirrored/", io.MultiReader(strings.NewReader("a=1&"), strings.NewReader("b=2")))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		_, body := doRequest(t, req)
		if r := report(body); r["POST"] != `{"a":"1","b":"2"}` || r["CONTENT_LENGTH"] != "7" {
			t.Fatalf("%s", body)
		}
	})
	t.Run("10 MB upload", func(t *testing.T) {
		data := bytes.Repeat([]byte("0123456789abcdef"), 10<<20/16)
		sum := md5.Sum(data)
		want := fmt.Sprintf("%d %s\n", len(data), hex.EncodeToString(sum[:]))
		for _, path := range []string{"/upload.php", "/streamed/upload"} {
			req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(data))
			req.Header.Set("Content-Type", "application/octet-stream")
			resp, body := doRequest(t, req)
			if resp.StatusCode != 200 || body != want {
				t.Errorf("%s: %d %q, want %q", path, resp.StatusCode, body, want)
			}
		}
	})
	t.Run("headers and cookies", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, base+"/index.php", nil)
		req.Header.Set("X-Custom", "from the client")
		req.Header.Set("Cookie", "wordpress_logged_in=u1; pref=a")
		resp, body := doRequest(t, req)
		r := report(body)
		if r["HTTP_X_CUSTOM"] != "from the client" || r["COOKIE"] != `{"wordpress_logged_in":"u1","pref":"a"}` ||
			!strings.HasPrefix(r["HTTP_HOST"], "127.0.0.1:") {
			t.Errorf("%s", body)
		}
		if got := resp.Header.Values("Set-Cookie"); len(got) != 2 || got[0] != "session=abc123" || got[1] != "theme=dark" {
			t.Errorf("Set-Cookie %q", got)
		}
		if resp.Header.Get("X-App") != "wordpress-like" || resp.Header.Get("Status") != "" {
			t.Errorf("header %v", resp.Header)
		}
	})
	t.Run("Location and Status", func(t *testing.T) {
		resp, _ := do(t, "GET", base+"/index.php?redirect=1", nil)
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/elsewhere?from=php" {
			t.Errorf("Location alone: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, _ = do(t, "GET", base+"/index.php?moved=1", nil)
		if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "http://example.com/new" {
			t.Errorf("Status 301: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
	})
	t.Run("404 from PHP", func(t *testing.T) {
		resp, body := do(t, "GET", base+"/index.php?missing=1", nil)
		if resp.StatusCode != 404 || body != "no such post\n" {
			t.Errorf("%d %q", resp.StatusCode, body)
		}
	})
	t.Run("intercept_errors with error_page", func(t *testing.T) {
		resp, body := do(t, "GET", base+"/index.php?unavailable=1", nil)
		if resp.StatusCode != 503 || body != "down for maintenance\n" {
			t.Errorf("%d %q", resp.StatusCode, body)
		}
	})
	t.Run("fatal error", func(t *testing.T) {
		resp, _ := do(t, "GET", base+"/fatal.php", nil)
		if resp.StatusCode != 500 {
			t.Errorf("status %d", resp.StatusCode)
		}
		waitFor(t, "the PHP error in the error log", func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return strings.Contains(string(b), `FastCGI sent in stderr: \"PHP message: PHP Fatal error:  Uncaught Error: Call to undefined function this_function_does_not_exist()`)
		})
	})
	t.Run("missing script", func(t *testing.T) {
		resp, _ := do(t, "GET", base+"/nothing-here.php", nil)
		if resp.StatusCode != 404 {
			t.Errorf("status %d", resp.StatusCode)
		}
	})
	t.Run("slow is 504", func(t *testing.T) {
		resp, _ := do(t, "GET", base+"/slow.php", nil)
		if resp.StatusCode != http.StatusGatewayTimeout {
			t.Errorf("status %d", resp.StatusCode)
		}
		waitFor(t, "the timeout in the error log", func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return strings.Contains(string(b), "upstream timed out while reading response header from upstream")
		})
	})
	t.Run("keepalive", func(t *testing.T) {
		const n = 20
		for _, c := range []struct {
			path string
			want func(int) bool
		}{
			{"/counted/keepalive/", func(conns int) bool { return conns == 1 }},
			// The first may take the connection the group kept, which the
			// application then closes.
			{"/counted/close/", func(conns int) bool { return conns >= n-1 }},
		} {
			before := s.counter.count()
			for i := 0; i < n; i++ {
				if resp, body := do(t, "GET", base+c.path, nil); resp.StatusCode != 200 || report(body)["REQUEST_URI"] != c.path {
					t.Fatalf("%s: %d %s", c.path, resp.StatusCode, body)
				}
			}
			if got := s.counter.count() - before; !c.want(got) {
				t.Errorf("%d requests to %s took %d connections", n, c.path, got)
			}
		}
	})
	t.Run("next_upstream", func(t *testing.T) {
		// The group's first server refuses: the request goes on to the
		// next one (fastcgi_next_upstream's default, error timeout).
		if resp, body := do(t, "GET", base+"/failover/?a=1", nil); resp.StatusCode != 200 || report(body)["QUERY_STRING"] != "a=1" {
			t.Errorf("failover: %d %q", resp.StatusCode, body)
		}
	})
	t.Run("catch_stderr and pass_request_body", func(t *testing.T) {
		if resp, body := do(t, "GET", base+"/caught/", nil); resp.StatusCode != http.StatusBadGateway {
			t.Errorf("catch_stderr: %d %q", resp.StatusCode, body)
		}
		req, _ := http.NewRequest(http.MethodPost, base+"/nobody/", strings.NewReader("not for php"))
		if resp, body := doRequest(t, req); resp.StatusCode != 200 || !strings.HasPrefix(body, "0 ") {
			t.Errorf("pass_request_body off: %d %q", resp.StatusCode, body)
		}
	})
	t.Run("ignore_client_abort", func(t *testing.T) {
		// The client leaves before the script has written anything: with
		// fastcgi_ignore_client_abort the script still runs to its end.
		leave := func(path string) {
			c, err := net.Dial("tcp4", strings.TrimPrefix(base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)
			time.Sleep(100 * time.Millisecond)
			c.Close()
		}
		leave("/abort/ignored/?n=ignored")
		leave("/abort/?n=default")
		waitFor(t, "the script whose client left to finish", func() bool {
			_, err := os.Stat(filepath.Join(dir, "marker-ignored"))
			return err == nil
		})
		time.Sleep(300 * time.Millisecond)
		if _, err := os.Stat(filepath.Join(dir, "marker-default")); err == nil {
			t.Error("without fastcgi_ignore_client_abort the script ran to its end")
		}
	})
	t.Run("fastcgi_cache", func(t *testing.T) {
		first, a := do(t, "GET", base+"/cached/page", nil)
		second, b := do(t, "GET", base+"/cached/page", nil)
		_, c := do(t, "GET", base+"/cached/other", nil)
		if first.Header.Get("X-Cache") != "MISS" || second.Header.Get("X-Cache") != "HIT" || a != b || a == c || a == "" {
			t.Errorf("%s %q, then %s %q; other %q", first.Header.Get("X-Cache"), a, second.Header.Get("X-Cache"), b, c)
		}
	})
	t.Run("TCP, then php-fpm stopped is 502", func(t *testing.T) {
		resp, body := do(t, "GET", base+"/tcp/?q=1", nil)
		if resp.StatusCode != 200 || report(body)["QUERY_STRING"] != "q=1" {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		s.tcp.stop()
		resp, _ = do(t, "GET", base+"/tcp/?q=1", nil)
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("status %d", resp.StatusCode)
		}
		waitFor(t, "the refusal in the error log", func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return strings.Contains(string(b), "connect() failed while connecting to upstream")
		})
	})
}

// diffPHPServer is the server block both mosaic and NGINX run in front of
// the same php-fpm pool, with the shipped fastcgi_params and
// snippets/fastcgi-php.conf.
const diffPHPServer = `
    server {
        listen 127.0.0.1:{port};
        root {dir}/www;
        index index.php;
        error_page 503 /maintenance.html;
        location / {
            try_files $uri $uri/ /index.php?$args;
        }
        location ~ [^/]\.php(/|$) {
            include snippets/fastcgi-php.conf;
            fastcgi_intercept_errors on;
            fastcgi_pass {fpm};
        }
    }
`

// TestFastCGIMatchesNGINX sends the same requests to mosaic and to
// Debian's NGINX, both in front of one php-fpm pool, and compares what
// the application saw and what the client got.
func TestFastCGIMatchesNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	for name, body := range phpFiles {
		writeFile(t, filepath.Join(dir, "www", name), body)
	}
	fpm := startFPM(t, filepath.Join(dir, "fpm"), filepath.Join(dir, "php.sock"), 2)
	block := strings.NewReplacer("{dir}", dir, "{fpm}", fpm.addr).Replace(diffPHPServer)

	// NGINX reads the files mosaic ships, from its configuration folder.
	ndir := filepath.Join(dir, "nginx")
	for _, name := range []string{"fastcgi_params", "fastcgi.conf", "snippets/fastcgi-php.conf"} {
		shipFastCGIFile(t, ndir, name)
	}
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return strings.ReplaceAll(block, "{port}", strconv.Itoa(port))
	})

	type request struct {
		method, path, body string
	}
	for _, rq := range []request{
		{"GET", "/?p=1", ""},
		{"GET", "/2024/hello/?a=b&c", ""},
		{"GET", "/index.php/some/path/info?x=1", ""},
		{"GET", "/index.php?redirect=1", ""},
		{"GET", "/index.php?moved=1", ""},
		{"GET", "/index.php?missing=1", ""},
		{"GET", "/index.php?unavailable=1", ""},
		{"GET", "/fatal.php", ""},
		{"GET", "/nothing.php", ""},
		{"GET", "/nothing.php/x", ""},
		{"POST", "/index.php", "a=1&b=%20two"},
		{"HEAD", "/index.php", ""},
	} {
		var got [2]*http.Response
		var bodies [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest(rq.method, fmt.Sprintf("http://127.0.0.1:%d%s", port, rq.path), strings.NewReader(rq.body))
			if rq.body != "" {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			req.Host = "site.test"
			req.Header.Set("X-Custom", "x")
			req.Header.Set("Cookie", "k=v")
			got[i], bodies[i] = doRequest(t, req)
		}
		m, n := got[0], got[1]
		what := rq.method + " " + rq.path
		if m.StatusCode != n.StatusCode {
			t.Errorf("%s: status mosaic %d, nginx %d", what, m.StatusCode, n.StatusCode)
			continue
		}
		for _, h := range []string{"Location", "Content-Type", "X-App", "X-Powered-By", "Status"} {
			if m.Header.Get(h) != n.Header.Get(h) {
				t.Errorf("%s: %s mosaic %q, nginx %q", what, h, m.Header.Get(h), n.Header.Get(h))
			}
		}
		if mv, nv := m.Header.Values("Set-Cookie"), n.Header.Values("Set-Cookie"); strings.Join(mv, "\n") != strings.Join(nv, "\n") {
			t.Errorf("%s: Set-Cookie mosaic %q, nginx %q", what, mv, nv)
		}
		if m.StatusCode >= 400 && m.StatusCode != 404 && m.StatusCode != 503 {
			continue // error pages name their server
		}
		if m.StatusCode == 404 && !strings.Contains(rq.path, "missing") {
			continue // the server's own 404 page
		}
		if bodies[0] != bodies[1] {
			t.Errorf("%s: body\nmosaic: %q\nnginx:  %q", what, bodies[0], bodies[1])
		}
	}
}

// realWorldDir is the corpus of real configurations beside the
// repository, when there is one.
func realWorldDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "nginx-configs", "real-world"))
	if err == nil {
		if _, err = os.Stat(filepath.Join(dir, "prepare.sh")); err == nil {
			return dir
		}
	}
	t.Skip("no real-world configurations beside the repository")
	return ""
}

var (
	listenV6RE    = regexp.MustCompile(`(?m)^\s*listen\s+\[::\]:\d+[^;]*;`)
	listen80RE    = regexp.MustCompile(`listen\s+80\s*;`)
	listen443RE   = regexp.MustCompile(`listen\s+443\s+ssl[^;]*;`)
	serverBlockRE = regexp.MustCompile(`server\s*\{`)
	fpmTarget     = regexp.MustCompile(`unix:[^\s;]*\.sock(et)?|127\.0\.0\.1:9000`)
)

// TestFastCGIRealWorld serves a page through php-fpm with the PHP sites
// of the real-world corpus, prepared as its README says, with their
// listeners moved to loopback ports and their php-fpm address to the
// test's pool.
func TestFastCGIRealWorld(t *testing.T) {
	corpus := realWorldDir(t)
	fpmPath(t)
	dir := t.TempDir()
	out, err := exec.Command(filepath.Join(corpus, "prepare.sh"), filepath.Join(dir, "rw")).CombinedOutput()
	if err != nil {
		t.Fatalf("prepare.sh: %v\n%s", err, out)
	}
	sock := filepath.Join(dir, "php.sock")
	startFPM(t, filepath.Join(dir, "fpm"), sock, 2)
	for _, c := range []struct {
		name, root, host, path string
		tls                    bool
	}{
		{"25-wordpress-nginx-wiki", "fs/var/www/wordpress", "domain.tld", "/2024/05/a-post/?p=1", false},
		{"21-laravel", "fs/srv/example.com/public", "example.com", "/users/7?tab=posts", false},
		{"08-nextcloud", "fs/var/www/nextcloud", "cloud.example.com", "/index.php/apps/files/", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			edir := filepath.Join(dir, "rw", c.name)
			site := filepath.Join(edir, c.name+".conf")
			b, err := os.ReadFile(site)
			if err != nil {
				t.Fatal(err)
			}
			port, tlsPort := freePort(t), freePort(t)
			conf := listenV6RE.ReplaceAllString(string(b), "")
			conf = listen80RE.ReplaceAllString(conf, fmt.Sprintf("listen 127.0.0.1:%d;", port))
			conf = listen443RE.ReplaceAllString(conf, fmt.Sprintf("listen 127.0.0.1:%d ssl;", tlsPort))
			conf = fpmTarget.ReplaceAllString(conf, "unix:"+sock)
			if !strings.Contains(conf, "listen ") {
				// NGINX's default, port 80, moved to the test's.
				conf = serverBlockRE.ReplaceAllString(conf, fmt.Sprintf("server {\n\tlisten 127.0.0.1:%d;", port))
			}
			writeFile(t, site, conf)
			writeFile(t, filepath.Join(edir, c.root, "index.php"),
				"<?php header('Content-Type: text/plain'); echo 'served by php for ', $_SERVER['REQUEST_URI'], ' from ', $_SERVER['SCRIPT_FILENAME'], \"\\n\";\n")
			runMosaic(t, edir, filepath.Join(edir, "nginx.conf"), port)
			scheme, use := "http", port
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			if c.tls {
				scheme, use = "https", tlsPort
				client.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
			}
			req, _ := http.NewRequest("GET", fmt.Sprintf("%s://127.0.0.1:%d%s", scheme, use, c.path), nil)
			req.Host = c.host
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := "served by php for " + c.path + " from "
			if resp.StatusCode != 200 || !strings.HasPrefix(string(body), want) || !strings.Contains(string(body), "/index.php") {
				t.Errorf("%d %q, want %q...", resp.StatusCode, body, want)
			}
		})
	}
}
