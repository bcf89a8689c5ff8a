package proxymod_test

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// echoOrigin answers with its name, the method and the URI, and the
// Content-Type that the request's X-Type asks for.
func echoOrigin(t *testing.T, name string) string {
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ct := r.Header.Get("X-Type"); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		fmt.Fprintf(w, "%s %s %s", name, r.Method, r.RequestURI)
	}))
	t.Cleanup(o.Close)
	return strings.TrimPrefix(o.URL, "http://")
}

// proxy_pass inside limit_except serves the methods the block does not
// list, as NGINX's implicit location does; GET brings HEAD along.
func TestLimitExceptProxy(t *testing.T) {
	reader, writer := echoOrigin(t, "reader"), echoOrigin(t, "writer")
	base := servertest.Start(t, fmt.Sprintf(`http {
		server {
			listen 127.0.0.1:0;
			location /api/ {
				limit_except GET { proxy_pass http://%s; }
				proxy_pass http://%s;
			}
			location /inherit/ {
				limit_except GET POST { }
				proxy_pass http://%s;
			}
		}
	}`, writer, reader, reader))
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/api/x", "reader GET /api/x"},
		{"POST", "/api/x", "writer POST /api/x"},
		{"DELETE", "/api/x", "writer DELETE /api/x"},
		{"PATCH", "/api/x", "writer PATCH /api/x"},
		// The block without proxy_pass of its own inherits the location's.
		{"PUT", "/inherit/y", "reader PUT /inherit/y"},
	} {
		resp, body := testclient.Do(t, tc.method, base+tc.path)
		if resp.StatusCode != 200 || body != tc.want {
			t.Errorf("%s %s: %d %q, want %q", tc.method, tc.path, resp.StatusCode, body, tc.want)
		}
	}
	resp, _ := testclient.Do(t, "HEAD", base+"/api/x")
	if resp.ContentLength != int64(len("reader HEAD /api/x")) {
		t.Errorf("HEAD went to the writer: Content-Length %d", resp.ContentLength)
	}
	servertest.WantError(t, `http { server { location / { limit_except GET { proxy_pass http://127.0.0.1:1/x; } } } }`,
		`"proxy_pass" cannot have URI part in location given by regular expression, or inside named location, or inside "if" statement`)
}

// The charset directives apply to proxied responses: a type without a
// charset gets the configured one; one with a charset keeps it unless
// override_charset is on, and then only a charset equal but for case is
// rewritten (another would need a conversion, which is logged).
func TestCharsetProxied(t *testing.T) {
	origin := echoOrigin(t, "o")
	base := servertest.Start(t, fmt.Sprintf(`http {
		charset utf-8;
		server {
			listen 127.0.0.1:0;
			location /keep/     { proxy_pass http://%[1]s; }
			location /override/ { override_charset on; proxy_pass http://%[1]s; }
		}
	}`, origin))
	for _, tc := range []struct{ path, sent, want string }{
		{"/keep/", "text/html", "text/html; charset=utf-8"},
		{"/keep/", "text/css", "text/css"},
		{"/keep/", "text/html; charset=koi8-r", "text/html; charset=koi8-r"},
		{"/override/", "text/html; charset=UTF-8", "text/html; charset=utf-8"},
		{"/override/", "text/css; charset=\"utf-8\"", "text/css; charset=utf-8"},
		{"/override/", "text/html; charset=koi8-r", "text/html; charset=koi8-r"},
	} {
		resp, _ := testclient.Get(t, base+tc.path, "X-Type", tc.sent)
		if got := resp.Header.Get("Content-Type"); got != tc.want {
			t.Errorf("%s %q: Content-Type %q, want %q", tc.path, tc.sent, got, tc.want)
		}
	}
}

// A request body that must be kept whole (one of unknown length, proxied
// with HTTP/1.0) stays in memory up to client_body_buffer_size and goes
// beyond it to a file under client_body_temp_path, in NGINX's hashed
// levels, removed when the request ends.
func TestClientBodyBuffer(t *testing.T) {
	temp := t.TempDir()
	files := func() []string {
		var out []string
		_ = filepath.WalkDir(temp, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(temp, p)
				out = append(out, rel)
			}
			return nil
		})
		return out
	}
	// The origin reports what it finds under the temporary directory
	// while the request is sent on, and the name $request_body_file
	// gives.
	type seen struct {
		files []string
		name  string
	}
	seenc := make(chan seen, 1)
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seenc <- seen{files(), r.Header.Get("X-File")}
		fmt.Fprintf(w, "%d %d", r.ContentLength, len(b))
	}))
	t.Cleanup(o.Close)
	base := servertest.Start(t, fmt.Sprintf(`http {
		client_body_buffer_size 1k;
		client_body_temp_path %s 1 2;
		server { listen 127.0.0.1:0; location / { proxy_pass %s; proxy_set_header X-File $request_body_file; } }
	}`, temp, o.URL))
	post := func(n int) string {
		// A reader of unknown length: the client sends it chunked.
		req, _ := http.NewRequest("POST", base+"/", io.MultiReader(strings.NewReader(strings.Repeat("b", n))))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got, s := post(1024), <-seenc; got != "1024 1024" || len(s.files) != 0 || s.name != "" {
		t.Errorf("1k body: %q, %+v", got, s)
	}
	// Past the buffer, the body goes to a file whose name is removed as
	// soon as it is made, as NGINX does: the body is sent from the open
	// file, and $request_body_file names a file no longer there.
	got, s := post(1025), <-seenc
	if got != "1025 1025" || len(s.files) != 0 {
		t.Fatalf("1k+1 body: %q, %+v", got, s)
	}
	// Levels "1 2": the file's last digit, then the two before it.
	rel, err := filepath.Rel(temp, s.name)
	parts := strings.Split(rel, string(filepath.Separator))
	if name := parts[len(parts)-1]; err != nil || len(parts) != 3 || parts[0] != name[len(name)-1:] || parts[1] != name[len(name)-3:len(name)-1] {
		t.Errorf("file %s is not in levels 1 2 below %s", s.name, temp)
	}
	// Nothing is left once the request has ended.
	deadline := time.Now().Add(5 * time.Second)
	for len(files()) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := files(); len(left) != 0 {
		t.Errorf("files left after the request: %v", left)
	}
}

// proxy_set_body frames its value by its length, as NGINX does: an empty
// one goes as "Content-Length: 0" (an upstream may want the length of a
// POST), and the client's body and length are not sent.
func TestSetBodyEmptyFramed(t *testing.T) {
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %q cl=%q", r.Method, b, r.Header.Values("Content-Length"))
	}))
	t.Cleanup(o.Close)
	base := servertest.Start(t, fmt.Sprintf(`http { server { listen 127.0.0.1:0;
		location / { proxy_pass %s; proxy_set_body $arg_b; } } }`, o.URL))
	for _, tc := range []struct{ method, path, body, want string }{
		{"GET", "/x", "", `GET "" cl=["0"]`},
		{"POST", "/x", "client", `POST "" cl=["0"]`},
		{"POST", "/x?b=set", "client", `POST "set" cl=["3"]`},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != tc.want {
			t.Errorf("%s %s: upstream got %s, want %s", tc.method, tc.path, b, tc.want)
		}
	}
}

// A nested location without proxy_redirect lines takes the default line
// of the location around it, built from that location's proxy_pass, as
// NGINX's merge gives it, not one from its own proxy_pass.
func TestRedirectDefaultInherited(t *testing.T) {
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://"+r.Host+"/u/k")
		w.WriteHeader(302)
	}))
	t.Cleanup(o.Close)
	base := servertest.Start(t, fmt.Sprintf(`http { server { listen 127.0.0.1:0; absolute_redirect off;
		location /b/ { proxy_pass %[1]s/u/; location /b/n/ { proxy_pass %[1]s; } } } }`, o.URL))
	req, _ := http.NewRequest("GET", base+"/b/n/x", nil)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Location"); got != "/b/k" {
		t.Errorf("Location %q, want /b/k (the outer location's default line)", got)
	}
}

// A proxy_method value that holds a space, a control byte or DEL (a
// capture of the decoded path) is refused with a 500 and nothing goes
// upstream: NGINX writes it into its request line as it is, where a CR
// LF ends the line and adds header lines of the client's choosing.
func TestMethodWithLineBreakRefused(t *testing.T) {
	got := make(chan string, 4)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		var head []string
		for {
			l, err := br.ReadString('\n')
			if err != nil || l == "\r\n" {
				break
			}
			head = append(head, strings.TrimSuffix(l, "\r\n"))
		}
		got <- strings.Join(head, "|")
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
	})
	base := servertest.Start(t, fmt.Sprintf(`http { server { listen 127.0.0.1:0;
		location ~ "^/m/([\s\S]*)$" { proxy_method $1; proxy_pass http://%s; } } }`, o.Addr()))
	addr := strings.TrimPrefix(base, "http://")
	for _, tc := range []struct{ path, status, sent string }{
		{"/m/PUT", "200", "PUT /m/PUT HTTP/1.0"},
		{"/m/GET%20/x%20HTTP/1.0%0D%0AX-Injected:%20y%0D%0AX-Rest:", "500", ""},
		{"/m/GET%0A", "500", ""},
		{"/m/G%01T", "500", ""},
		{"/m/G%20T", "500", ""},
		{"/m/G%7FT", "500", ""},
	} {
		resp, _ := testclient.Raw(t, addr, "GET "+tc.path+" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
		if s := fmt.Sprint(resp.StatusCode); s != tc.status {
			t.Errorf("%s: status %s, want %s", tc.path, s, tc.status)
		}
		sent := ""
		select {
		case sent = <-got:
		default:
		}
		if line, _, _ := strings.Cut(sent, "|"); line != tc.sent {
			t.Errorf("%s: upstream got %q, want the line %q", tc.path, sent, tc.sent)
		}
	}
}
