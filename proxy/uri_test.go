package proxy_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/proxy"
)

// TestURIReplacement checks the request URI the upstream receives, through
// real HTTP, for proxy_pass with and without a URI part.
func TestURIReplacement(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.RequestURI)
	}))
	defer origin.Close()
	addr := hostOf(origin)

	tests := []struct {
		name     string
		pass     string // appended to "http://" + addr
		location string
		request  string
		want     string
	}{
		{"no URI keeps the request URI", "", "/name/", "/name/x?a=1&b=2", "/name/x?a=1&b=2"},
		{"no URI keeps it raw", "", "/", "/a%2Fb/%7Ec?q=%20", "/a%2Fb/%7Ec?q=%20"},
		{"prefix replaced", "/remote/", "/name/", "/name/x", "/remote/x"},
		{"prefix replaced, query kept", "/remote/", "/name/", "/name/x/y?k=v", "/remote/x/y?k=v"},
		{"slash URI", "/", "/name/", "/name/page", "/page"},
		{"URI without trailing slash", "/remote", "/name/", "/name/x", "/remotex"},
		{"root location", "/base/", "/", "/a/b", "/base/a/b"},
		{"exact path", "/remote/", "/name/", "/name/", "/remote/"},
		{"decoded path escaped again", "/r/", "/n/", "/n/a%20b%3Fc%25", "/r/a%20b%3Fc%25"},
		{"plain path characters stay", "/r/", "/n/", "/n/a%2Cb~c", "/r/a,b~c"},
		// NGINX 1.22 escapes what RFC 3986 does not allow in a URI.
		{"characters a URI may not hold escaped", "/r/", "/n/", "/n/a%7C%22%3C%3E%5C%5E%60%7B%7D", "/r/a%7C%22%3C%3E%5C%5E%60%7B%7D"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := proxyTo(t, "http://"+addr+tt.pass, proxy.Options{LocationPrefix: tt.location})
			f := newFront(t, h)
			status, body, _ := get(t, f.URL+tt.request)
			if status != 200 || body != tt.want {
				t.Errorf("%s -> %d %q, want %q", tt.request, status, body, tt.want)
			}
		})
	}
}

// TestURIOfInProcessRequest: a request built in-process (a subrequest, or
// one whose URI the server rewrote) has no RequestURI; its URL is sent.
func TestURIOfInProcessRequest(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.RequestURI)
	}))
	defer origin.Close()
	h := proxyTo(t, "http://"+hostOf(origin), proxy.Options{})
	f := newFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sub, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "/frag/7?x=y", nil)
		if err != nil {
			t.Error(err)
			return
		}
		h.ServeHTTP(w, sub)
	}))
	if status, body, _ := get(t, f.URL+"/page"); status != 200 || body != "/frag/7?x=y" {
		t.Errorf("got %d %q", status, body)
	}
}

// TestURIControlsEscaped: a URI made of variables can hold what no client
// could send in a request line (a rewrite puts the decoded $uri into
// $args): its controls and spaces go upstream escaped, so that a CR LF
// cannot end the request line and add header lines.
func TestURIControlsEscaped(t *testing.T) {
	lines := make(chan string, 1)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			lines <- "unreadable: " + err.Error()
			return
		}
		lines <- req.RequestURI + " injected=" + req.Header.Get("X-Injected")
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
	})
	h := proxyTo(t, "http://"+o.Addr(), proxy.Options{})
	f := newFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// What "set $args $uri;" makes of /a%20HTTP/1.1%0d%0aX-Injected:%20yes
		r.RequestURI = ""
		r.URL.RawQuery = "a HTTP/1.1\r\nX-Injected: yes\x7f"
		h.ServeHTTP(w, r)
	}))
	if status, body, _ := get(t, f.URL+"/p"); status != 200 || body != "ok" {
		t.Fatalf("got %d %q", status, body)
	}
	if got, want := <-lines, "/p?a%20HTTP/1.1%0D%0AX-Injected:%20yes%7F injected="; got != want {
		t.Errorf("upstream got %q, want %q", got, want)
	}
}

// TestURIOfAbsoluteFormTarget: a client that sends an absolute-form target
// ("GET http://host/path HTTP/1.1") gets its path sent upstream as it
// came, as NGINX passes its unparsed URI: bytes that net/url would escape
// again (here a raw UTF-8 name) are left alone, as they are for the same
// path in origin form.
func TestURIOfAbsoluteFormTarget(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.RequestURI)
	}))
	defer origin.Close()
	f := newFront(t, proxyTo(t, "http://"+hostOf(origin), proxy.Options{}))
	for _, target := range []string{"/caf\xc3\xa9/a'b?x=1", "http://other.example/caf\xc3\xa9/a'b?x=1"} {
		c, err := net.Dial("tcp", f.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET "+target+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		c.Close()
		if want := "/caf\xc3\xa9/a'b?x=1"; string(body) != want {
			t.Errorf("%q went upstream as %q, want %q", target, body, want)
		}
	}
}
