package server

import (
	"context"
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
)

func TestWorkerProcesses(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	cfg := mustLoad(t, "worker_processes 3;")
	cfg.ApplyWorkerProcesses()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Fatalf("GOMAXPROCS %d", n)
	}
	auto := mustLoad(t, "worker_processes auto;")
	if auto.WorkerProcesses != 0 {
		t.Fatalf("auto = %d", auto.WorkerProcesses)
	}
	// A reload to auto restores the value the process started with.
	auto.ApplyWorkerProcesses()
	if n := runtime.GOMAXPROCS(0); n != startProcs {
		t.Fatalf("GOMAXPROCS %d after auto, want %d", n, startProcs)
	}
	// A pool in use adds its threads, as far as the CPUs go.
	cfg = mustLoad(t, "worker_processes 1; thread_pool two threads=2;")
	cfg.ApplyWorkerProcesses()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("GOMAXPROCS %d with the pool unused, want 1", n)
	}
	cfg.ThreadPool("two")
	cfg.ApplyWorkerProcesses()
	if n, want := runtime.GOMAXPROCS(0), min(3, max(runtime.NumCPU(), 1)); n != want {
		t.Fatalf("GOMAXPROCS %d with the pool in use, want %d", n, want)
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
	cfg := mustLoadNoCleanup(t, `http { server { listen unix:`+sock+`; return 200 "via unix [$remote_addr] [$remote_port] [$server_addr] [$server_port]"; } }`)
	rt := NewRuntime()
	if err := rt.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	resp, err := client.Get("http://mosaic/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "via unix [unix:] [] [unix:"+sock+"] []" {
		t.Fatalf("status %d %q", resp.StatusCode, b)
	}
	// Any local user may connect, as with NGINX's chmod.
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o666 {
		t.Fatalf("socket file: %v %v", fi, err)
	}
	client.CloseIdleConnections()
	if err := rt.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A stop removes the socket file, as NGINX does.
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("the socket file outlives the stop: %v", err)
	}
}

// A socket file already at the path (left by a crash, or another
// server's) makes the bind fail, as in NGINX: it is not removed.
func TestUnixSocketStale(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "stale.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	cfg := mustLoadNoCleanup(t, `http { server { listen unix:`+sock+`; return 200 x; } }`)
	defer cfg.Close()
	err = NewRuntime().Apply(cfg)
	if err == nil || !strings.Contains(err.Error(), "bind() to unix:"+sock+" failed") || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("Apply over a stale socket: %v", err)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the stale socket was removed: %v", err)
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

// A specific address whose listen line sets socket parameters is bound on
// its own, as NGINX binds it (its listen docs: "the bind() call is made
// anyway" with backlog, rcvbuf, reuseport...), not served through the
// wildcard socket of its port with its parameters dropped: beside a
// wildcard it then fails to bind, as NGINX does on Linux, unless both
// sockets share the port with reuseport.
func TestSpecificAddressWithSocketParameters(t *testing.T) {
	l, _ := net.Listen("tcp4", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	p := itoa(port)
	cfg := mustLoadNoCleanup(t, `http {
		server { listen `+p+`; return 200 wildcard; }
		server { listen 127.0.0.1:`+p+` rcvbuf=64k; return 200 specific; } }`)
	defer cfg.Close()
	if n := len(cfg.bindAddrs()); n != 2 {
		t.Fatalf("%d sockets to bind, want 2", n)
	}
	if err := NewRuntime().Apply(cfg); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("Apply: %v", err)
	}

	cfg = mustLoadNoCleanup(t, `http {
		server { listen `+p+` reuseport; return 200 wildcard; }
		server { listen 127.0.0.1:`+p+` reuseport; return 200 specific; } }`)
	rt := NewRuntime()
	if err := rt.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown(context.Background())
	if _, body := get(t, "http://127.0.0.1:"+p+"/"); body != "specific" {
		t.Fatalf("127.0.0.1: %q", body)
	}
}
