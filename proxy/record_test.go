package proxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/vars"
)

// The $upstream_* values are computed from the request's record when
// read, from another goroutine too (as the access log reads them) while
// the exchange goes on: the server and status once the header is passed
// on, with the timings and lengths as NGINX has them then (no response
// time, no body counted, the bytes read with the header), the final ones
// once the exchange is over. Run with -race.
func TestUpstreamValuesReadDuringExchange(t *testing.T) {
	release := make(chan struct{})
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "head")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, "tail")
	}))
	t.Cleanup(origin.Close)
	h := proxyTo(t, origin.URL, proxy.Options{BufferingOff: true})
	st := &vars.State{Start: time.Now()}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(vars.NewContext(r.Context(), st)))
	}))
	t.Cleanup(front.Close)
	resp, err := http.Get(front.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 4)
	if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != "head" {
		t.Fatalf("first part %q, %v", buf, err)
	}
	addr := strings.TrimPrefix(origin.URL, "http://")
	for name, want := range map[string]string{"upstream_addr": addr, "upstream_status": "200", "proxy_host": addr} {
		if v, ok := st.Get(name); !ok || v != want {
			t.Errorf("during the body: $%s = %q %v, want %q", name, v, ok, want)
		}
	}
	for name, want := range map[string]string{"upstream_response_time": "-", "upstream_response_length": "0", "upstream_bytes_sent": "0"} {
		if v, ok := st.Get(name); !ok || v != want {
			t.Errorf("during the body: $%s = %q %v, want %q", name, v, ok, want)
		}
	}
	for _, name := range []string{"upstream_connect_time", "upstream_header_time", "upstream_bytes_received"} {
		if v, ok := st.Get(name); !ok || v == "" || v == "-" || v == "0" {
			t.Errorf("during the body: $%s = %q %v, want a value", name, v, ok)
		}
	}
	close(release)
	if rest, _ := io.ReadAll(resp.Body); string(rest) != "tail" {
		t.Fatalf("rest %q", rest)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		if v, _ := st.Get("upstream_response_time"); v != "-" {
			if v, _ := st.Get("upstream_response_length"); v != "8" {
				t.Errorf("$upstream_response_length = %q, want 8", v)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no $upstream_response_length after the exchange")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if v, _ := st.Get("upstream_response_time"); len(v) != 5 || v[1] != '.' {
		t.Errorf("$upstream_response_time = %q", v)
	}
}

// A request served twice through the proxy in one State, as an internal
// redirect from one proxied location to another does, lists both
// exchanges' tries, joined with " : " as NGINX joins its locations'.
func TestUpstreamValuesJoinedAcrossRedirect(t *testing.T) {
	a, b := newNamedOrigin(t, "a", modeOK), newNamedOrigin(t, "b", modeOK)
	ha := proxyTo(t, "http://"+a.Addr(), proxy.Options{})
	hb := proxyTo(t, "http://"+b.Addr(), proxy.Options{})
	st := &vars.State{Start: time.Now()}
	for _, h := range []http.Handler{ha, hb} {
		r := httptest.NewRequest("GET", "/", nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r.WithContext(vars.NewContext(r.Context(), st)))
		if w.Code != 200 {
			t.Fatalf("status %d", w.Code)
		}
	}
	for name, want := range map[string]string{
		"upstream_addr":            a.Addr() + " : " + b.Addr(),
		"upstream_status":          "200 : 200",
		"upstream_response_length": "1 : 1",
		"proxy_host":               b.Addr(),
	} {
		if v, _ := st.Get(name); v != want {
			t.Errorf("$%s = %q, want %q", name, v, want)
		}
	}
}

// PublishLookup, which a cache in front of the proxy calls before its
// lookup, sets $proxy_host and $proxy_port and no $upstream_* value, as
// NGINX's HIT has them, without an allocation; an exchange after it (a
// MISS) shows its own try alone, and the tries of an earlier location
// stay listed.
func TestPublishLookup(t *testing.T) {
	a, b := newNamedOrigin(t, "a", modeOK), newNamedOrigin(t, "b", modeOK)
	ha := proxyTo(t, "http://"+a.Addr(), proxy.Options{})
	hb := proxyTo(t, "http://"+b.Addr(), proxy.Options{})
	want := func(st *vars.State, values map[string]string) {
		t.Helper()
		for name, want := range values {
			if v, _ := st.Get(name); v != want {
				t.Errorf("$%s = %q, want %q", name, v, want)
			}
		}
	}
	st := &vars.State{Start: time.Now()}
	r := httptest.NewRequest("GET", "/", nil)
	r = r.WithContext(vars.NewContext(r.Context(), st))
	if n := testing.AllocsPerRun(100, func() { hb.PublishLookup(r) }); n != 0 {
		t.Errorf("PublishLookup: %v allocations, want 0", n)
	}
	_, port, _ := strings.Cut(b.Addr(), ":")
	want(st, map[string]string{"proxy_host": b.Addr(), "proxy_port": port, "upstream_addr": "", "upstream_status": ""})

	hb.ServeHTTP(httptest.NewRecorder(), r)
	want(st, map[string]string{"upstream_addr": b.Addr(), "upstream_status": "200"})

	st = &vars.State{Start: time.Now()}
	r = r.WithContext(vars.NewContext(r.Context(), st))
	ha.ServeHTTP(httptest.NewRecorder(), r)
	hb.PublishLookup(r)
	want(st, map[string]string{"proxy_host": b.Addr(), "upstream_addr": a.Addr(), "upstream_status": "200"})
}

// The record PublishLookup shares among the requests a cache answers is
// only read: HITs and MISSes of one handler at once each see their own
// values, a MISS its one try (no " : " of a shared record's), a HIT
// none. Run with -race.
func TestPublishLookupConcurrent(t *testing.T) {
	o := newNamedOrigin(t, "o", modeOK)
	h := proxyTo(t, "http://"+o.Addr(), proxy.Options{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 20 {
				st := &vars.State{Start: time.Now()}
				r := httptest.NewRequest("GET", "/", nil)
				r = r.WithContext(vars.NewContext(r.Context(), st))
				h.PublishLookup(r)
				want := ""
				if g%2 == 1 { // a MISS
					h.ServeHTTP(httptest.NewRecorder(), r)
					want = o.Addr()
				}
				host, _ := st.Get("proxy_host")
				addr, _ := st.Get("upstream_addr")
				if host != o.Addr() || addr != want {
					t.Errorf("$proxy_host %q, $upstream_addr %q, want %q", host, addr, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
