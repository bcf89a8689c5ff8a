package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// "retiretest_wait NAME" makes a location whose requests block until the
// test releases NAME (see gates) or their context ends; the context's
// Err is then kept for the test.
type retireConf struct{ name string }

var retireModule = &Module{
	Name:   "retiretest",
	NewLoc: func() any { return &retireConf{} },
	Directives: []Directive{{Name: "retiretest_wait", Context: CtxLocation, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
		c.Loc().(*retireConf).name = c.Args[0]
		return nil
	}}},
}

// gate is one name's requests: entered is told of each arrival, release
// lets them answer, ended receives the context's end of a request whose
// context ended first.
type gate struct {
	entered chan struct{}
	release chan struct{}
	ended   chan error
}

var (
	gates     sync.Map // name -> *gate
	gateCount atomic.Int64
)

// gateName is a name no other test run (-count) uses.
func gateName(t *testing.T) string {
	return fmt.Sprintf("%s-%d", t.Name(), gateCount.Add(1))
}

func gateFor(name string) *gate {
	g, _ := gates.LoadOrStore(name, &gate{entered: make(chan struct{}, 8), release: make(chan struct{}), ended: make(chan error, 8)})
	return g.(*gate)
}

func init() {
	retireModule.Content = func(l *Location) (http.Handler, error) {
		rc := LocConf[*retireConf](l, retireModule)
		if rc.name == "" {
			return nil, nil
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			g := gateFor(rc.name)
			g.entered <- struct{}{}
			select {
			case <-g.release:
				w.Write([]byte("released"))
			case <-r.Context().Done():
				g.ended <- r.Context().Err()
			}
		}), nil
	}
	contentOrder = append(contentOrder, retireModule.Name)
	Register(retireModule)
}

// openFile reports whether the process has path open.
func openFile(t *testing.T, path string) bool {
	t.Helper()
	return openCount(t, path) > 0
}

// openCount counts the process's descriptors open on path.
func openCount(t *testing.T, path string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == path {
			n++
		}
	}
	return n
}

// eventually waits up to two seconds for cond.
func eventually(cond func() bool) bool {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

func poolClosed(cfg *Config) bool {
	p, _ := cfg.ThreadPool("default")
	return errors.Is(p.Submit(func() {}), ErrPoolClosed)
}

// A retired configuration gives back its thread pool and its error log as
// soon as its last request ends, long before the shutdown limit, even
// while a request on the new configuration runs on.
func TestRetiredConfigClosesWithItsLastRequest(t *testing.T) {
	dir, name := t.TempDir(), gateName(t)
	// Both configurations name the same address, so the socket stays.
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	confFor := func(which string) string {
		return `error_log ` + filepath.Join(dir, which+".log") + ` info;
			http { server { listen ` + addr + `; location / { retiretest_wait ` + name + which + `; } } }`
	}
	rt, base := startRuntime(t, confFor("old"))
	old := rt.Config()
	// The default pool's 32 workers start with its first task: started
	// here, so that their end can be seen below.
	pool, _ := old.ThreadPool("default")
	ran := make(chan struct{})
	if err := pool.Submit(func() { close(ran) }); err != nil {
		t.Fatal(err)
	}
	<-ran
	oldLog := filepath.Join(dir, "old.log")
	oldGate, newGate := gateFor(name+"old"), gateFor(name+"new")

	oldDone := make(chan string, 1)
	go func() {
		resp, err := http.Get(base + "/")
		if err != nil {
			oldDone <- err.Error()
			return
		}
		resp.Body.Close()
		oldDone <- resp.Status
	}()
	<-oldGate.entered

	next, err := LoadString("test.conf", confFor("new"))
	if err != nil {
		t.Fatal(err)
	}
	goroutines := runtime.NumGoroutine()
	if err := rt.Apply(next); err != nil {
		t.Fatal(err)
	}
	newDone := make(chan struct{})
	go func() {
		defer close(newDone)
		if resp, err := http.Get(base + "/"); err == nil {
			resp.Body.Close()
		}
	}()
	<-newGate.entered

	// The old request still runs: the old configuration stays open.
	time.Sleep(100 * time.Millisecond)
	if poolClosed(old) || !openFile(t, oldLog) {
		t.Fatal("the old configuration closed under a running request")
	}
	close(oldGate.release)
	if status := <-oldDone; status != "200 OK" {
		t.Fatalf("old request: %s", status)
	}
	if !eventually(func() bool { return poolClosed(old) && !openFile(t, oldLog) }) {
		t.Fatalf("2s after its last request: pool closed %v, %s open %v", poolClosed(old), oldLog, openFile(t, oldLog))
	}
	// Its 32 workers are gone too (with some slack for the connections
	// of the two requests).
	if !eventually(func() bool { return runtime.NumGoroutine() <= goroutines-32+8 }) {
		t.Errorf("goroutines: %d before the reload, %d after the old configuration closed", goroutines, runtime.NumGoroutine())
	}
	// The kept socket's own errors go to the error log in force, not to
	// the closed one.
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("BAD\r\n\r\n"))
	io.Copy(io.Discard, c)
	c.Close()
	newLog := filepath.Join(dir, "new.log")
	if !eventually(func() bool {
		b, _ := os.ReadFile(newLog)
		return strings.Contains(string(b), "client sent invalid request")
	}) {
		b, _ := os.ReadFile(newLog)
		t.Errorf("the listener's error went elsewhere; new.log:\n%s", b)
	}
	select {
	case <-newDone:
		t.Fatal("the request on the new configuration ended early")
	default:
	}
	if poolClosed(next) || !openFile(t, newLog) {
		t.Fatal("the new configuration closed")
	}
	close(newGate.release)
	<-newDone
}

// A request that the shutdown limit ends says so through its context,
// which handlers log, rather than passing for a client that left.
func TestShutdownLimitCutsRequestsVisibly(t *testing.T) {
	name := gateName(t)
	cfg := mustLoadNoCleanup(t, `http { server { listen 127.0.0.1:0; location / { retiretest_wait `+name+`; } } }`)
	rt := NewRuntime()
	if err := rt.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	g := gateFor(name)
	go func() {
		if resp, err := http.Get("http://" + rt.Addrs()[0].String() + "/"); err == nil {
			resp.Body.Close()
		}
	}()
	<-g.entered
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := rt.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want the deadline", err)
	}
	select {
	case err := <-g.ended:
		if !errors.Is(err, context.Canceled) || err.Error() != "request cut by the shutdown deadline" {
			t.Errorf("the cut request's context ended with %v", err)
		}
	case <-time.After(30 * time.Second): // reached only if it never is
		t.Fatal("the request was not cut")
	}
}
