package main

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// bodyFileOrigin answers with what the proxy passed: the body, the
// $request_body and $request_body_file it sent as fields, what that file
// holds and whether it is there (NGINX removes the name of a body's file
// that merely overflowed memory at once), its path written with dir's servers' temporary directories
// as T and each run of digits as N (the two servers number their files
// differently, in the same layout).
func bodyFileOrigin(t *testing.T, dir string) string {
	t.Helper()
	digits := regexp.MustCompile(`[0-9]+`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		name, content := r.Header.Get("X-File"), ""
		if name != "" {
			b, err := os.ReadFile(name)
			content = fmt.Sprintf("%q exists=%v", b, err == nil)
			for _, who := range []string{"m", "n"} {
				name = strings.Replace(name, filepath.Join(dir, who+"-body"), "T", 1)
			}
			name = digits.ReplaceAllString(name, "N")
		}
		fmt.Fprintf(w, "body=%q request_body=%q file=%q content=%s\n", body, r.Header.Get("X-Body"), name, content)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// TestClientBodyInFileOnlyAsNGINX proxies the same bodies from both
// servers under client_body_in_file_only on, clean and off, and
// client_body_in_single_buffer: what $request_body and
// $request_body_file say, what the file holds when the upstream reads
// it, where it is (client_body_temp_path with its levels), and which
// files are left once the requests are done (on keeps them).
func TestClientBodyInFileOnlyAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	origin := bodyFileOrigin(t, dir)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%[1]d;
			client_body_temp_path %[2]s/%[3]s-body 1 2;
			proxy_set_header X-File $request_body_file;
			proxy_set_header X-Body $request_body;
			location /on/ { client_body_in_file_only on; proxy_pass http://%[4]s; }
			location /clean/ { client_body_in_file_only clean; proxy_pass http://%[4]s; }
			location /off/ { client_body_in_file_only off; proxy_pass http://%[4]s; }
			location /big/ { client_body_buffer_size 8; proxy_pass http://%[4]s; }
			location /single/ { client_body_in_single_buffer on; proxy_pass http://%[4]s; }
			location /mirror/ { client_body_in_file_only on; mirror /m; proxy_pass http://%[4]s; }
			location = /m { internal; return 204; }
		}`, port, dir, who, origin)
	})
	post := func(path, body string) string {
		return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: a.test\r\nContent-Length: %d", path, len(body))
	}
	chunked := "POST /on/c HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked"
	kept, big := 0, strings.Repeat("past eight bytes", 200)
	for _, c := range []struct{ head, body string }{
		{post("/on/a", "hello, file"), "hello, file"},
		{post("/on/empty", ""), ""},
		{"GET /on/none HTTP/1.1\r\nHost: a.test", ""},
		{chunked, "5\r\nhello\r\n0\r\n\r\n"},
		{post("/clean/a", "hello, clean"), "hello, clean"},
		{post("/clean/empty", ""), ""},
		{post("/off/a", "hello, memory"), "hello, memory"},
		// Longer than the header's buffer: NGINX keeps a body that fits
		// there, read with the header, in memory whatever
		// client_body_buffer_size says.
		{post("/big/a", big), big},
		{post("/single/a", "one buffer"), "one buffer"},
		// Mirrored: the body is read once, into one file, for both.
		{post("/mirror/a", "mirrored"), "mirrored"},
	} {
		sameAnswer(t, mport, nport, c.head, c.body)
		if (strings.Contains(c.head, "/on/") || strings.Contains(c.head, "/mirror/")) && !strings.Contains(c.head, "GET") {
			kept++
		}
	}
	// on leaves its files; clean, off and a body past the buffer remove
	// theirs when the request ends.
	for _, who := range []string{"m", "n"} {
		var left []string
		for end := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			left = left[:0]
			filepath.WalkDir(filepath.Join(dir, who+"-body"), func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					left = append(left, p)
				}
				return nil
			})
			if len(left) == kept || time.Now().After(end) {
				break
			}
		}
		if len(left) != kept {
			t.Errorf("%s: %d files left, want %d: %q", who, len(left), kept, left)
		}
	}
}

// TestErrorPageResendsBodyFileAsNGINX: a body saved in a file (past
// client_body_buffer_size, under client_body_in_file_only, or by mirror)
// is the request's, as NGINX's r->request_body: an error_page after a
// failed upstream sends it again whole to the page's upstream, as a body
// kept in memory is sent, not an empty one.
func TestErrorPageResendsBodyFileAsNGINX(t *testing.T) {
	nginxPath(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.HasPrefix(r.URL.Path, "/fail") {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		// NGINX keeps a short body that came with the header in memory
		// whatever client_body_buffer_size says (server/README.md), so
		// whether a file is named is compared where every body has one.
		file := ""
		if strings.HasPrefix(r.URL.Path, "/on/") || strings.HasPrefix(r.URL.Path, "/clean/") {
			file = fmt.Sprintf(" file=%v", r.Header.Get("X-File") != "")
		}
		fmt.Fprintf(w, "%s %s body=%q%s\n", r.Method, r.URL.RequestURI(), b, file)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%[1]d;
			client_body_temp_path %[3]s/%[4]s-body 1;
			proxy_set_header X-File $request_body_file;
			proxy_intercept_errors on;
			error_page 503 = @fallback;
			location /mem/ { proxy_pass http://%[2]s/fail; }
			location /big/ { client_body_buffer_size 8; proxy_pass http://%[2]s/fail; }
			location /clean/ { client_body_in_file_only clean; proxy_pass http://%[2]s/fail; }
			location /on/ { client_body_in_file_only on; proxy_pass http://%[2]s/fail; }
			location /mirror/ { client_body_buffer_size 8; mirror /m; proxy_pass http://%[2]s/fail; }
			location = /m { internal; return 204; }
			location @fallback { proxy_pass http://%[2]s; }
		}`, port, srv.Listener.Addr().String(), dir, who)
	})
	for _, p := range []string{"/mem/", "/big/", "/clean/", "/on/", "/mirror/"} {
		for _, body := range []string{"abc", "a body past eight bytes"} {
			sameAnswer(t, mport, nport, fmt.Sprintf("POST %s HTTP/1.1\r\nHost: a.test\r\nContent-Length: %d", p, len(body)), body)
		}
		sameAnswer(t, mport, nport, "POST "+p+" HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked", "a\r\nchunked 10\r\n0\r\n\r\n")
	}
}

// The body directives are refused where NGINX refuses them, with its
// message and the line named.
func TestClientBodyInFileOnlyErrorsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, block := range []string{
		"client_body_in_file_only maybe;",
		"client_body_in_file_only on;\nclient_body_in_file_only off;",
		"client_body_in_single_buffer yes;",
		"client_body_in_single_buffer on;\nclient_body_in_single_buffer on;",
	} {
		mout, err, want := testBoth(t, dir, i, block)
		if want == "" || err == nil || !strings.Contains(mout, want) {
			t.Errorf("%q:\nmosaic %s\nnginx  %s", block, mout, want)
		}
	}
}
