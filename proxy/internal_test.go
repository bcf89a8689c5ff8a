package proxy

// Tests of unexported parts; the tests of the API are in package
// proxy_test.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
)

func TestAppendSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0.000", 12 * time.Millisecond: "0.012", 1500 * time.Millisecond: "1.500",
		62*time.Second + 7*time.Millisecond: "62.007", -1: "-",
		9*time.Second + 999*time.Millisecond + 999*time.Microsecond: "9.999",
		10 * time.Second: "10.000", 100*time.Millisecond + 50*time.Microsecond: "0.100",
	} {
		if got := string(appendSeconds(nil, d)); got != want {
			t.Errorf("%v -> %q, want %q", d, got, want)
		}
	}
}

func TestStripPort(t *testing.T) {
	for in, want := range map[string]string{
		"origin.test": "origin.test", "origin.test:8443": "origin.test",
		"[::1]": "[::1]", "[::1]:443": "[::1]", "127.0.0.1:443": "127.0.0.1", "": "",
	} {
		if got := stripPort(in); got != want {
			t.Errorf("stripPort(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSelectionTriesEachServerOnce: within one request every server is
// tried at most once, with every method, also in groups larger than 64.
func TestSelectionTriesEachServerOnce(t *testing.T) {
	key := func(r *http.Request) string { return r.URL.Path }
	for _, m := range []Method{RoundRobin, LeastConn, Hash, ConsistentHash, IPHash, Random, RandomTwo} {
		for _, n := range []int{3, 70} {
			servers := make([]Server, n)
			for i := range servers {
				servers[i] = Server{Addr: fmt.Sprintf("10.0.0.%d:80", i)}
			}
			up, err := NewUpstream("many", servers, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := up.SetMethod(m, key); err != nil {
				t.Fatal(err)
			}
			var sel selection
			sel.reset(up, httptest.NewRequest("GET", "/k", nil))
			seen := map[string]bool{}
			now := time.Now()
			for p := sel.next(now); p != nil; p = sel.next(now) {
				if seen[p.addr] {
					t.Fatalf("%v, %d servers: %s picked twice", m, n, p.addr)
				}
				seen[p.addr] = true
			}
			if len(seen) != n || sel.tries != n {
				t.Errorf("%v, %d servers: %d picked, %d tries", m, n, len(seen), sel.tries)
			}
		}
	}
}

func TestUpstreamDefaultPort(t *testing.T) {
	u, err := NewUpstream("u", []Server{{Addr: "example.com"}, {Addr: "[::1]"}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if u.primary[0].addr != "example.com:80" || u.primary[1].addr != "[::1]:80" {
		t.Errorf("default port not added: %q %q", u.primary[0].addr, u.primary[1].addr)
	}
}

// statusText shows each status as its digits, from one string for 100 to
// 599, and "-" for none.
func TestStatusText(t *testing.T) {
	if got := statusText(0); got != "-" {
		t.Errorf("statusText(0) = %q, want -", got)
	}
	for _, code := range []int{99, 100, 101, 200, 304, 499, 502, 599, 600, 999, 1000} {
		if got, want := statusText(code), strconv.Itoa(code); got != want {
			t.Errorf("statusText(%d) = %q, want %q", code, got, want)
		}
	}
}

// TestSpellings: the names of an upstream's head that ReadResponse
// recased are listed as written, one a line for a name written on
// several lines, in whatever case (NGINX keeps each line's name);
// canonical names, those NGINX's header filter writes itself
// (Content-Type) and what follows the head (the body) are left out; a
// head of canonical names makes no list, and one with a recased name
// (ETag, as many servers write it) two allocations.
func TestSpellings(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nX_A: 1\r\nx-custom: 2\r\nX-CUSTOM: 3\r\ncontent-type: text/plain\r\n" +
		"X-Plain: 4\r\nContent-Length: 11\r\n\r\nx-body: no\n"
	h := http.Header{"X_a": {"1"}, "X-Custom": {"2", "3"}, "Content-Type": {"text/plain"}, "X-Plain": {"4"}, "Content-Length": {"11"}}
	got := spellings([]byte(head), h)
	if want := []string{"X_A", "x-custom", "X-CUSTOM"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("spellings: %v, want %v", got, want)
	}
	if got := spellings([]byte("HTTP/1.1 200 OK\r\nX-Plain: 4\r\n\r\n"), http.Header{"X-Plain": {"4"}}); got != nil {
		t.Errorf("canonical names: %v, want nil", got)
	}
	// A canonical line of a name that another line spells otherwise is
	// listed too, so that its value keeps its name.
	dup := "HTTP/1.1 200 OK\r\nX-Dup: 1\r\nX-A: 0\r\nx-dup: 2\r\nX-DUP: 3\r\n\r\n"
	dh := http.Header{"X-Dup": {"1", "2", "3"}, "X-A": {"0"}}
	if got, want := spellings([]byte(dup), dh), []string{"X-Dup", "x-dup", "X-DUP"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("two spellings: %v, want %v", got, want)
	}
	etag := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nETag: \"e\"\r\nContent-Length: 2\r\n\r\nok")
	eh := http.Header{"Content-Type": {"text/html"}, "Etag": {`"e"`}, "Content-Length": {"2"}}
	if n := testing.AllocsPerRun(100, func() { _ = spellings(etag, eh) }); n > 2 {
		t.Errorf("a head with ETag: %v allocations, want 2 at most", n)
	}
	// The upstream's head is bounded by size alone: a list of its every
	// recased name would cost the writer a comparison of each field with
	// each name.
	many := []byte("HTTP/1.1 200 OK\r\n")
	mh := http.Header{}
	for i := range 1000 {
		name := fmt.Sprintf("x-%d", i)
		many = fmt.Appendf(many, "%s: 1\r\n", name)
		mh[http.CanonicalHeaderKey(name)] = []string{"1"}
	}
	many = append(many, "\r\n"...)
	if got := spellings(many, mh); len(got) != header.MaxSpellings || got[0] != "x-0" {
		t.Errorf("a head of 1000 recased names: %d listed, want the first %d", len(got), header.MaxSpellings)
	}
}
