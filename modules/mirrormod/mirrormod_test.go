package mirrormod_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/mosaic-edge/mosaic/modules/mirrormod"
	_ "github.com/mosaic-edge/mosaic/modules/proxymod"
	_ "github.com/mosaic-edge/mosaic/modules/rewritemod"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// The module's behaviour is tested through the binary, against NGINX
// (cmd/mosaic, TestMirrorMatchesNGINX); these are the configurations it
// refuses, with NGINX's words.
func TestErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{`http { mirror /a; mirror off; }`, `"mirror" directive is duplicate`},
		{`http { mirror off; mirror /a; }`, `"mirror" directive is duplicate`},
		{`http { mirror off; mirror off; }`, `"mirror" directive is duplicate`},
		{`http { mirror; }`, `invalid number of arguments in "mirror" directive`},
		{`http { mirror /a /b; }`, `invalid number of arguments in "mirror" directive`},
		{`http { mirror_request_body maybe; }`, `it must be "on" or "off"`},
		{`http { server { location / { if ($arg_a) { mirror /m; } } } }`, `"mirror" directive is not allowed here`},
	} {
		servertest.WantError(t, c.conf, c.want)
	}
	// Several mirrors at one level, "off" below one that has them.
	servertest.Load(t, `http { mirror /a; mirror /b; mirror_request_body off;
		server { location / { mirror off; } location /x { mirror /c; } } }`)
}

// TestServe runs mirrors through the server under the race detector:
// the client's body goes to the content and to both mirrors, one spooled
// to a file, while the client's answer does not wait for a slow mirror.
// The slow mirror is held until the client has its answer (5 s at most,
// then counted): an answer that waited for it would come only then. (A
// bound of 250 ms on the answer was a bet on the machine's load.)
func TestServe(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	var release chan struct{} // closed once the client has its answer
	var waited atomic.Int32   // slow mirrors that gave up on the release
	shadow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/slow" {
			mu.Lock()
			rel := release
			mu.Unlock()
			select {
			case <-rel:
			case <-time.After(5 * time.Second):
				waited.Add(1)
			}
		}
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+strconv.Itoa(len(b)))
		mu.Unlock()
	}))
	defer shadow.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, "origin "+strconv.Itoa(len(b)))
	}))
	defer origin.Close()
	base := servertest.Start(t, fmt.Sprintf(`http { server { listen 127.0.0.1:0;
		client_body_buffer_size 1k; client_body_temp_path %s;
		location / { mirror /m; mirror /slow; proxy_pass %s; }
		location = /m { internal; proxy_pass %s$request_uri; }
		location = /slow { internal; proxy_pass %[3]s/slow; }
	} }`, t.TempDir(), origin.URL, shadow.URL))
	for _, size := range []int{10, 5000} {
		mu.Lock()
		seen = nil
		rel := make(chan struct{})
		release = rel
		mu.Unlock()
		resp, err := http.Post(base+"/p?a=1", "text/plain", strings.NewReader(strings.Repeat("x", size)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		close(rel)
		if string(b) != "origin "+strconv.Itoa(size) {
			t.Errorf("%d bytes: %q", size, b)
		}
		if n := waited.Swap(0); n > 0 {
			t.Errorf("%d bytes: the answer waited for the slow mirror", size)
		}
		// The next request on the connection waits for the mirrors
		// (its own are not waited for here).
		resp, err = http.Get(base + "/q")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		mu.Lock()
		var got []string
		for _, s := range seen {
			if strings.HasPrefix(s, "POST") {
				got = append(got, s)
			}
		}
		mu.Unlock()
		slices.Sort(got)
		want := []string{"POST /p?a=1 " + strconv.Itoa(size), "POST /slow?a=1 " + strconv.Itoa(size)}
		if !slices.Equal(got, want) {
			t.Errorf("%d bytes: shadow got %q", size, got)
		}
	}
}
