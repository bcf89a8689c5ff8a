package cache_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
)

// waitFor polls cond for up to two seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBodyStreamsWhileStored(t *testing.T) {
	proceed := make(chan struct{})
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "first;")
		w.(http.Flusher).Flush()
		select {
		case <-proceed:
		case <-time.After(5 * time.Second):
		}
		fmt.Fprint(w, "second")
	})
	f := newFront(t, o, cache.Options{})
	resp, err := http.Get(f.URL + "/s")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	first, err := br.ReadString(';')
	if err != nil || first != "first;" {
		t.Fatalf("first part %q, %v", first, err)
	}
	// The client has the first part while the origin is still writing: the
	// cache did not buffer the response.
	close(proceed)
	rest, _ := io.ReadAll(br)
	if string(rest) != "second" {
		t.Fatalf("rest %q", rest)
	}
	waitFor(t, "the entry", func() bool { return f.cache.Stats().Snapshot().Stored == 1 })
	if r := f.get(t, "/s"); r.cacheStatus() != cache.StatusHit || r.body != "first;second" {
		t.Fatalf("then %q %q", r.cacheStatus(), r.body)
	}
}

func TestClientDisconnectStillStores(t *testing.T) {
	clientGone := make(chan struct{})
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "part1;")
		w.(http.Flusher).Flush()
		<-clientGone
		time.Sleep(50 * time.Millisecond)
		fmt.Fprint(w, strings.Repeat("x", 256<<10))
	})
	f := newFront(t, o, cache.Options{})
	conn, err := net.Dial("tcp", f.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /d HTTP/1.1\r\nHost: %s\r\n\r\n", f.Listener.Addr())
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	if _, err := io.ReadFull(resp.Body, b); err != nil || string(b) != "part1;" {
		t.Fatalf("read %q, %v", b, err)
	}
	conn.Close()
	close(clientGone)
	waitFor(t, "the entry", func() bool { return f.cache.Stats().Snapshot().Stored == 1 })
	r := f.get(t, "/d")
	if r.cacheStatus() != cache.StatusHit || len(r.body) != 6+256<<10 {
		t.Fatalf("after the client left: %q, %d bytes", r.cacheStatus(), len(r.body))
	}
	if n := o.hits.Load(); n != 1 {
		t.Fatalf("origin saw %d requests", n)
	}
}

func TestUpstreamFailingMidwayStoresNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		length bool
	}{{"content-length", true}, {"chunked", false}} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				if tc.length {
					w.Header().Set("Content-Length", "1000")
				}
				fmt.Fprint(w, strings.Repeat("y", 100))
				w.(http.Flusher).Flush()
				hangUp(w)
			})
			f := newFront(t, o, cache.Options{})
			resp, err := http.Get(f.URL + "/m")
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if err == nil {
				t.Fatal("the client got a complete response from a broken upstream")
			}
			if s := f.cache.Stats().Snapshot(); s.Stored != 0 {
				t.Fatalf("stored %d entries", s.Stored)
			}
			if n := f.store.(*cache.MemoryStore).Len(); n != 0 {
				t.Fatalf("store holds %d entries", n)
			}
		})
	}
}
