package server

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestWorkerProcesses(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	cfg := mustLoad(t, "worker_processes 3;")
	cfg.ApplyWorkerProcesses()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Fatalf("GOMAXPROCS %d", n)
	}
	if cfg := mustLoad(t, "worker_processes auto;"); cfg.WorkerProcesses != 0 {
		t.Fatalf("auto = %d", cfg.WorkerProcesses)
	}
}

func TestThreadPool(t *testing.T) {
	cfg := mustLoad(t, "thread_pool big threads=2 max_queue=2;")
	p, ok := cfg.ThreadPool("big")
	if !ok || p.Threads != 2 || p.MaxQueue != 2 {
		t.Fatalf("pool %+v %v", p, ok)
	}
	if d, ok := cfg.ThreadPool("default"); !ok || d.Threads != 32 {
		t.Fatalf("default pool %+v", d)
	}
	// Two workers busy, two tasks queued, the next refused.
	block := make(chan struct{})
	unblock := sync.OnceFunc(func() { close(block) })
	defer unblock()
	var ran atomic.Int32
	var started sync.WaitGroup
	started.Add(2)
	for i := 0; i < 2; i++ {
		if err := p.Submit(func() { started.Done(); <-block; ran.Add(1) }); err != nil {
			t.Fatal(err)
		}
	}
	started.Wait() // both workers are busy
	for i := 0; i < 2; i++ {
		if err := p.Submit(func() { ran.Add(1) }); err != nil {
			t.Fatalf("queued: %v", err)
		}
	}
	if err := p.Submit(func() {}); err != ErrQueueFull {
		t.Fatalf("overflow: %v", err)
	}
	unblock()
	p.Close()
	if ran.Load() != 4 {
		t.Fatalf("%d tasks ran", ran.Load())
	}
	if err := p.Submit(func() {}); err != ErrPoolClosed {
		t.Fatalf("after close: %v", err)
	}
}

func TestErrorLogLevels(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "error.log")
	cfg := mustLoad(t, "error_log "+path+" warn;")
	cfg.Logger.Info("not written")
	cfg.Logger.Warn("written warning")
	cfg.Logger.Log(context.Background(), LevelNotice, "not written either")
	cfg.Logger.Error("written error")
	data, _ := os.ReadFile(path)
	s := string(data)
	if !strings.Contains(s, "level=warn msg=\"written warning\"") || !strings.Contains(s, "level=error") || strings.Contains(s, "not written") {
		t.Fatalf("log:\n%s", s)
	}
}

func TestKeepaliveTimeoutZeroCloses(t *testing.T) {
	_, base := startRuntime(t, `http { keepalive_timeout 0; server { listen 127.0.0.1:0; return 200 x; } }`)
	resp, _ := get(t, base+"/")
	if !resp.Close {
		t.Fatalf("connection kept alive: %v", resp.Header)
	}
}

func TestUnixSocketListener(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "m.sock")
	cfg := mustLoadNoCleanup(t, `http { server { listen unix:`+sock+`; return 200 "via unix"; } }`)
	rt := NewRuntime()
	if err := rt.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown(context.Background())
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	resp, err := client.Get("http://mosaic/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func TestSpecificAddressBehindWildcard(t *testing.T) {
	// Find a free port, then configure a wildcard and a specific address
	// on it: both are served through one socket.
	l, _ := net.Listen("tcp4", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	p := itoa(port)
	cfg := mustLoadNoCleanup(t, `http {
		server { listen `+p+`; return 200 wildcard; }
		server { listen 127.0.0.1:`+p+`; return 200 specific; } }`)
	if n := len(cfg.bindAddrs()); n != 1 {
		t.Fatalf("%d sockets to bind", n)
	}
	rt := NewRuntime()
	if err := rt.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown(context.Background())
	if _, body := get(t, "http://127.0.0.1:"+p+"/"); body != "specific" {
		t.Fatalf("127.0.0.1: %q", body)
	}
}
