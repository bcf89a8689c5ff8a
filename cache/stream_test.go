package cache_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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

// halfReads is a store whose entries break off halfway through their body
// with an error that does not say the entry is corrupt, as a store that
// stops answering mid-body does.
type halfReads struct{ cache.Store }

func (s halfReads) Get(ctx context.Context, key string) (cache.Object, error) {
	obj, err := s.Store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	return halfObject{obj}, nil
}

type halfObject struct{ cache.Object }

func (o halfObject) WriteTo(w io.Writer) (int64, error) {
	var whole bytes.Buffer
	if _, err := o.Object.WriteTo(&whole); err != nil {
		return 0, err
	}
	n, err := w.Write(whole.Bytes()[:whole.Len()/2])
	if err != nil {
		return int64(n), err
	}
	return int64(n), errors.New("store stopped answering")
}

// lengthless drops Content-Length when the header goes out, as a body
// filter (gzip) in front of the cache does: the client then knows the
// body is complete only from how the response ends.
type lengthless struct{ http.ResponseWriter }

func (l lengthless) WriteHeader(code int) {
	l.Header().Del("Content-Length")
	l.ResponseWriter.WriteHeader(code)
}

func TestStoreReadErrorBreaksTheResponse(t *testing.T) {
	body := strings.Repeat("z", 10<<10)
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, body)
	})
	ms, err := cache.NewMemoryStore(cache.MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	c, err := cache.New(newProxy(t, o.URL), cache.Options{Store: halfReads{ms}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.ServeHTTP(lengthless{w}, r)
	}))
	get := func() (string, error) {
		resp, err := http.Get(srv.URL + "/h")
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	if got, err := get(); err != nil || got != body {
		t.Fatalf("miss: %d bytes, %v", len(got), err)
	}
	// The hit's body breaks off: the client must see a broken response,
	// not half a body that ends as if complete.
	if got, err := get(); err == nil {
		t.Fatalf("hit: %d of %d bytes, delivered as complete", len(got), len(body))
	}
}
