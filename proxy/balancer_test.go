package proxy_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// Behaviours of a namedOrigin.
const (
	modeOK      = iota // answer with the origin's name (and the body size)
	modeDrop           // close each connection as soon as it is accepted
	modeHangUp         // read the request head, then close without answering
	modeSilent         // read the request, never answer
	modeGarbage        // answer with something that is not HTTP
	mode500            // answer 500
)

// namedOrigin is a loopback origin whose behaviour a test switches.
type namedOrigin struct {
	*testorigin.Raw
	name     string
	mode     atomic.Int32
	accepted atomic.Int32
	served   atomic.Int32
}

func newNamedOrigin(t *testing.T, name string, mode int) *namedOrigin {
	t.Helper()
	o := &namedOrigin{name: name}
	o.mode.Store(int32(mode))
	o.Raw = testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		o.accepted.Add(1)
		for {
			switch o.mode.Load() {
			case modeDrop:
				return
			case modeHangUp:
				http.ReadRequest(br)
				return
			}
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			n, _ := io.Copy(io.Discard, req.Body)
			switch o.mode.Load() {
			case modeSilent:
				io.Copy(io.Discard, br)
				return
			case modeGarbage:
				io.WriteString(c, "NOT HTTP AT ALL\r\n\r\n")
				return
			case mode500:
				io.WriteString(c, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\noops")
				continue
			}
			o.served.Add(1)
			body := o.name
			if n > 0 {
				body = fmt.Sprintf("%s:%d", o.name, n)
			}
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		}
	})
	return o
}

func TestWeightedRoundRobin(t *testing.T) {
	a, b := newNamedOrigin(t, "a", modeOK), newNamedOrigin(t, "b", modeOK)
	sa, sb := server(a.Addr()), server(b.Addr())
	sa.Weight, sb.Weight = 3, 1
	up := mustUpstream(t, "backend", 0, sa, sb)
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up}))
	var seq strings.Builder
	for i := 0; i < 8; i++ {
		_, body, _ := get(t, f.URL+"/")
		seq.WriteString(body)
	}
	if seq.String() != "aabaaaba" {
		t.Errorf("weights 3:1 gave %q, want the smooth aaba aaba", seq.String())
	}

	x, y, z := newNamedOrigin(t, "x", modeOK), newNamedOrigin(t, "y", modeOK), newNamedOrigin(t, "z", modeOK)
	sx := server(x.Addr())
	sx.Weight = 5
	up = mustUpstream(t, "five", 0, sx, server(y.Addr()), server(z.Addr()))
	f = newFront(t, proxyTo(t, "http://five", proxy.Options{Upstream: up}))
	seq.Reset()
	for i := 0; i < 7; i++ {
		_, body, _ := get(t, f.URL+"/")
		seq.WriteString(body)
	}
	if seq.String() != "xxyxzxx" {
		t.Errorf("weights 5:1:1 gave %q, want xxyxzxx", seq.String())
	}
}

func TestMaxFailsAndRecovery(t *testing.T) {
	a, b := newNamedOrigin(t, "a", modeDrop), newNamedOrigin(t, "b", modeOK)
	sa := server(a.Addr())
	sa.FailTimeout = 300 * time.Millisecond
	up := mustUpstream(t, "backend", 0, sa, server(b.Addr()))
	logs := &logBuffer{}
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, Logger: logs.logger()}))

	if status, body, _ := get(t, f.URL+"/x"); status != 200 || body != "b" {
		t.Fatalf("first request: %d %q", status, body)
	}
	if got, want := f.lastVar("upstream_addr"), a.Addr()+", "+b.Addr(); got != want {
		t.Errorf("$upstream_addr %q, want %q", got, want)
	}
	if got := f.lastVar("upstream_status"); got != "502, 200" {
		t.Errorf("$upstream_status %q", got)
	}
	for _, want := range []string{
		"level=ERROR", "while reading response header from upstream",
		"level=WARN", "upstream server temporarily disabled",
		`upstream=http://` + a.Addr() + "/x",
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}

	// Within fail_timeout the failed server gets nothing.
	for i := 0; i < 4; i++ {
		get(t, f.URL+"/")
		if got := f.lastVar("upstream_addr"); got != b.Addr() {
			t.Errorf("request %d went to %q while a was out", i, got)
		}
	}
	if got := a.accepted.Load(); got != 1 {
		t.Errorf("a accepted %d connections while out of rotation", got)
	}

	// After fail_timeout a recovered server is back in rotation.
	a.mode.Store(modeOK)
	time.Sleep(350 * time.Millisecond)
	for i := 0; i < 6; i++ {
		if status, _, _ := get(t, f.URL+"/"); status != 200 {
			t.Fatalf("status %d", status)
		}
		if strings.Contains(f.lastVar("upstream_status"), "502") {
			t.Errorf("failure after recovery: %s", f.lastVar("upstream_status"))
		}
	}
	if a.served.Load() < 2 {
		t.Errorf("a served %d requests after recovery, want it back in rotation", a.served.Load())
	}
}

func TestMaxFailsZeroNeverDisables(t *testing.T) {
	a, b := newNamedOrigin(t, "a", modeDrop), newNamedOrigin(t, "b", modeOK)
	sa := server(a.Addr())
	sa.MaxFails = 0
	up := mustUpstream(t, "backend", 0, sa, server(b.Addr()))
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up}))
	for i := 0; i < 6; i++ {
		if status, body, _ := get(t, f.URL+"/"); status != 200 || body != "b" {
			t.Fatalf("request %d: %d %q", i, status, body)
		}
	}
	// Every other request picks a first, fails over to b.
	if got := a.accepted.Load(); got != 3 {
		t.Errorf("a was tried %d times in 6 requests, want 3", got)
	}
}

// TestNoFailTimeoutEndsWithTheSecond: with NoFailTimeout (NGINX's
// fail_timeout=0) a failed server is out of rotation until the second of
// its failure ends, as NGINX's seconds clock has it: the requests that
// follow within that second do not try it again.
func TestNoFailTimeoutEndsWithTheSecond(t *testing.T) {
	a, b := newNamedOrigin(t, "a", modeDrop), newNamedOrigin(t, "b", modeOK)
	sa := server(a.Addr())
	sa.FailTimeout = proxy.NoFailTimeout
	up := mustUpstream(t, "backend", 0, sa, server(b.Addr()))
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up}))
	// Early in a second, so that the requests share it.
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second + 20*time.Millisecond).Sub(now))
	second := time.Now().Unix()
	for i := 0; i < 6; i++ {
		if status, body, _ := get(t, f.URL+"/"); status != 200 || body != "b" {
			t.Fatalf("request %d: %d %q", i, status, body)
		}
	}
	if time.Now().Unix() != second {
		t.Skip("the requests took more than the rest of a second")
	}
	if got := a.accepted.Load(); got != 1 {
		t.Errorf("a was tried %d times within the second of its failure, want once", got)
	}
}

func TestBackupServers(t *testing.T) {
	a, c := newNamedOrigin(t, "a", modeOK), newNamedOrigin(t, "c", modeOK)
	sc := server(c.Addr())
	sc.Backup = true
	up := mustUpstream(t, "backend", 0, server(a.Addr()), sc)
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up}))
	for i := 0; i < 4; i++ {
		if _, body, _ := get(t, f.URL+"/"); body != "a" {
			t.Errorf("request %d answered by %q while the primary is up", i, body)
		}
	}
	a.mode.Store(modeDrop)
	if status, body, _ := get(t, f.URL+"/"); status != 200 || body != "c" {
		t.Errorf("primary down: %d %q, want the backup", status, body)
	}
	if got, want := f.lastVar("upstream_addr"), a.Addr()+", "+c.Addr(); got != want {
		t.Errorf("$upstream_addr %q, want %q", got, want)
	}
	// The primary is now out for fail_timeout: the backup answers directly.
	if _, body, _ := get(t, f.URL+"/"); body != "c" || f.lastVar("upstream_addr") != c.Addr() {
		t.Errorf("got %q via %q", body, f.lastVar("upstream_addr"))
	}
}

func TestNoLiveUpstreams(t *testing.T) {
	a, b := newNamedOrigin(t, "a", modeDrop), newNamedOrigin(t, "b", modeDrop)
	up := mustUpstream(t, "backend", 0, server(a.Addr()), server(b.Addr()))
	logs := &logBuffer{}
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, Logger: logs.logger()}))
	if status, _, _ := get(t, f.URL+"/"); status != 502 {
		t.Errorf("all failing: status %d", status)
	}
	if got := f.lastVar("upstream_status"); got != "502, 502" {
		t.Errorf("$upstream_status %q", got)
	}
	// Both are now out of rotation.
	if status, _, _ := get(t, f.URL+"/"); status != 502 {
		t.Errorf("none live: status %d", status)
	}
	if got := f.lastVar("upstream_addr"); got != "backend" {
		t.Errorf("$upstream_addr %q, want the group name", got)
	}
	if !strings.Contains(logs.String(), "no live upstreams while connecting to upstream") {
		t.Errorf("log: %s", logs)
	}
	if a.accepted.Load() != 1 || b.accepted.Load() != 1 {
		t.Errorf("servers out of rotation were tried: %d %d", a.accepted.Load(), b.accepted.Load())
	}
}

func TestSingleServerIsNeverDisabled(t *testing.T) {
	a := newNamedOrigin(t, "a", modeDrop)
	up := mustUpstream(t, "backend", 0, server(a.Addr()))
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up}))
	for i := 0; i < 3; i++ {
		if status, _, _ := get(t, f.URL+"/"); status != 502 {
			t.Errorf("status %d", status)
		}
	}
	a.mode.Store(modeOK)
	if status, body, _ := get(t, f.URL+"/"); status != 200 || body != "a" {
		t.Errorf("recovered server: %d %q", status, body)
	}
	if got := a.accepted.Load(); got != 4 {
		t.Errorf("a was tried %d times, want every time", got)
	}
}

func TestNextUpstream(t *testing.T) {
	post := func(t *testing.T, url, method, body string) (int, string) {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		name       string
		firstMode  int
		method     string
		body       string
		readTO     time.Duration
		wantStatus int
		wantBody   string
		wantUpStat string
	}{
		{"GET after a refused connection", modeDrop, "GET", "", 0, 200, "b", "502, 200"},
		{"GET after a read timeout", modeSilent, "GET", "", 150 * time.Millisecond, 200, "b", "504, 200"},
		{"POST not retried once sent", modeHangUp, "POST", "data", 0, 502, "", "502"},
		{"PUT with a streamed body not retried", modeHangUp, "PUT", "data", 0, 502, "", "502"},
		{"invalid header not retried", modeGarbage, "GET", "", 0, 502, "", "502"},
		{"500 passed through", mode500, "GET", "", 0, 500, "oops", "500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := newNamedOrigin(t, "a", tt.firstMode), newNamedOrigin(t, "b", modeOK)
			up := mustUpstream(t, "backend", 0, server(a.Addr()), server(b.Addr()))
			f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, ReadTimeout: tt.readTO}))
			status, body := post(t, f.URL+"/", tt.method, tt.body)
			if status != tt.wantStatus || (tt.wantBody != "" && body != tt.wantBody) {
				t.Errorf("got %d %q, want %d %q", status, body, tt.wantStatus, tt.wantBody)
			}
			if got := f.lastVar("upstream_status"); got != tt.wantUpStat {
				t.Errorf("$upstream_status %q, want %q", got, tt.wantUpStat)
			}
		})
	}

	t.Run("POST retried after a connect failure", func(t *testing.T) {
		b := newNamedOrigin(t, "b", modeOK)
		up := mustUpstream(t, "backend", 0, server(servertest.RefusedAddr(t)), server(b.Addr()))
		f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up}))
		status, body := post(t, f.URL+"/", "POST", "payload")
		if status != 200 || body != "b:7" {
			t.Errorf("got %d %q, want the body delivered to b", status, body)
		}
	})

	// The server hangs up while the client's body is still coming (it
	// has read a part, and waits long enough for the exchange to wait
	// for the rest): the exchange stops reading the body with a read
	// deadline, which net/http takes for a client gone and cancels the
	// request's context for. That cancellation is the exchange's own,
	// not the client's leaving (499): the failure is the upstream's.
	t.Run("POST cut short mid-body by a hangup", func(t *testing.T) {
		var tries atomic.Int32
		a := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
			tries.Add(1)
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			io.ReadFull(br, make([]byte, 4))
			time.Sleep(50 * time.Millisecond)
		})
		b := newNamedOrigin(t, "b", modeOK)
		up := mustUpstream(t, "backend", 0, server(a.Addr()), server(b.Addr()))
		f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up}))
		c, err := net.Dial("tcp", f.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\ndata")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("got %d, want 502 (NGINX's with proxy_request_buffering off)", resp.StatusCode)
		}
		if got := f.lastVar("upstream_status"); got != "502" {
			t.Errorf("$upstream_status %q, want \"502\"", got)
		}
		if tries.Load() != 1 || b.accepted.Load() != 0 {
			t.Errorf("tried a %d and b %d times, want a once", tries.Load(), b.accepted.Load())
		}
	})
}

// ResolveServers turns a server line's host name into one server per
// address with the line's parameters, keeps IP addresses and sockets as
// they are, and refuses a name without an address in NGINX's words.
func TestResolveServers(t *testing.T) {
	got, err := proxy.ResolveServers(context.Background(), []proxy.Server{
		{Addr: "localhost:8080", Weight: 3, MaxFails: 2, Backup: true},
		{Addr: "127.0.0.2"},
		{Addr: "unix:/run/app.sock"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got); n < 3 {
		t.Fatalf("%d servers: %+v", n, got)
	}
	local := got[:len(got)-2]
	for _, s := range local {
		if s.Name != "localhost:8080" || s.Weight != 3 || s.MaxFails != 2 || !s.Backup ||
			s.Addr != "127.0.0.1:8080" && s.Addr != "[::1]:8080" {
			t.Errorf("localhost:8080 became %+v", s)
		}
	}
	if rest := got[len(got)-2:]; rest[0].Addr != "127.0.0.2:80" || rest[1].Addr != "unix:/run/app.sock" {
		t.Errorf("an address and a socket became %+v", rest)
	}
	_, err = proxy.ResolveServers(context.Background(), []proxy.Server{{Addr: "nosuch.invalid:8080"}})
	if err == nil || err.Error() != `host not found in upstream "nosuch.invalid:8080"` {
		t.Errorf("an unknown name: %v", err)
	}
}

// ServeVia sends a request to the servers of the group given with it, not
// to the handler's own (here a name that resolves nowhere): each fresh
// group has its refused server tried first, then the origin.
func TestServeViaGroupOfTheRequest(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "origin")
	}))
	defer origin.Close()
	refused := servertest.RefusedAddr(t)
	h := proxyTo(t, "http://name.test", proxy.Options{})
	for i := range 3 {
		// Each request's group: the refused address first, then the
		// origin; every request tries both.
		up := mustUpstream(t, "name.test", 0, server(refused), server(hostOf(origin)))
		rec := httptest.NewRecorder()
		h.ServeVia(rec, httptest.NewRequest("GET", "/", nil), up, "")
		if rec.Code != 200 || rec.Body.String() != "origin" {
			t.Errorf("request %d: %d %q", i+1, rec.Code, rec.Body.String())
		}
		rec = httptest.NewRecorder()
		h.ServeVia(rec, httptest.NewRequest("GET", "/", nil), up, "")
		if rec.Code != 200 {
			t.Errorf("request %d again: %d", i+1, rec.Code)
		}
	}
}
