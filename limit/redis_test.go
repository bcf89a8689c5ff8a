package limit

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/redisconn"
)

// startRedis runs a redis-server on a free port for the test, or skips
// it when none is installed.
func startRedis(t *testing.T) (addr string, cmd *exec.Cmd) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd = exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr = fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, cmd
		}
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
	}
}

func TestRedisReqZoneFallsBackAndRecovers(t *testing.T) {
	addr, cmd := startRedis(t)
	// A running Redis has seconds to answer: one later than the 50ms
	// default (a loaded machine, the race detector) would send a lookup
	// to the local zone and the breaker towards open. The lookups made
	// while Redis is paused bring their own 50ms bound (pausedCtx).
	z, err := NewReqZone(ZoneOptions{Name: "r", Key: func(*http.Request) string { return "k" }, Rate: 1, Size: MinZoneSize,
		Redis: "redis://" + addr + "/0", RedisTimeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	rs := z.store.(*redisReq)
	ctx := context.Background()
	for i, want := range []code{codeOK, codeOK, codeBusy} {
		if rc, _, _ := rs.lookup(ctx, "k", 1000, true); rc != want {
			t.Fatalf("request %d with Redis: %d, want %d", i, rc, want)
		}
	}
	cmd.Process.Signal(syscall.SIGSTOP)
	for i := 0; i < 5; i++ {
		pausedCtx, cancel := context.WithTimeout(ctx, DefaultRedisTimeout)
		rs.lookup(pausedCtx, "k", 1000, true)
		cancel()
	}
	if st := rs.breaker().State(); st == redisconn.BreakerClosed {
		t.Fatalf("breaker %v with Redis paused", st)
	}
	// While the breaker is open, k2 is counted locally only.
	for i, want := range []code{codeOK, codeOK, codeBusy} {
		if rc, _, _ := rs.lookup(ctx, "k2", 1000, true); rc != want {
			t.Fatalf("k2 request %d with Redis paused: %d, want %d", i, rc, want)
		}
	}
	// A probe or two fails while Redis is still paused.
	time.Sleep(600 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGCONT)
	// The probe has 250ms a try: a loaded machine may need several.
	deadline := time.Now().Add(30 * time.Second)
	for rs.breaker().State() != redisconn.BreakerClosed {
		if time.Now().After(deadline) {
			t.Fatalf("breaker still %v after SIGCONT", rs.breaker().State())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Redis's bucket for k2 is empty: it decides again.
	if rc, _, _ := rs.lookup(ctx, "k2", 1000, true); rc != codeOK {
		t.Fatalf("k2 after recovery: %d, want OK", rc)
	}
}

// TestRedisConnLeases: a request in progress on one process counts on
// another; its lease is renewed while it lasts, and lapses when its
// process dies without releasing it.
func TestRedisConnLeases(t *testing.T) {
	addr, _ := startRedis(t)
	old := connLease
	// Renewed every third of it: long enough that a loaded machine
	// (CI runs packages in parallel) does not miss a renewal.
	connLease = time.Second
	t.Cleanup(func() { connLease = old })
	// A Redis answering past the 50ms default (the race detector, a
	// loaded machine) would send an acquire to the local zone, which
	// does not see the other process's lease: the test gives it seconds,
	// as TestRedisLongKeysHashed does.
	zone := func() *ConnZone {
		z, err := NewConnZone(ZoneOptions{Name: "c", Key: func(*http.Request) string { return "k" }, Size: MinZoneSize,
			Redis: "redis://" + addr + "/0", RedisTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return z
	}
	a, b := zone(), zone()
	defer b.Close()
	ctx := context.Background()
	rc, release := a.store.acquire(ctx, "k", 1)
	if rc != codeOK {
		t.Fatalf("a: %d", rc)
	}
	// Held past two lease lives: renewed, still counted.
	time.Sleep(2 * connLease)
	if rc, _ := b.store.acquire(ctx, "k", 1); rc != codeBusy {
		t.Fatalf("b while a holds a renewed lease: %d, want busy", rc)
	}
	release()
	rc, releaseB := b.store.acquire(ctx, "k", 1)
	if rc != codeOK {
		t.Fatalf("b after a released: %d", rc)
	}
	releaseB()
	// a takes a lease and dies: the lease lapses.
	if rc, _ := a.store.acquire(ctx, "k", 1); rc != codeOK {
		t.Fatal("a again")
	}
	a.Close()
	if rc, _ := b.store.acquire(ctx, "k", 1); rc != codeBusy {
		t.Fatalf("b right after a died: %d, want busy", rc)
	}
	time.Sleep(connLease + 100*time.Millisecond)
	if rc, _ := b.store.acquire(ctx, "k", 1); rc != codeOK {
		t.Fatalf("b once a's lease lapsed: %d", rc)
	}
}

// redisKeys lists the keys of the Redis at addr (KEYS *).
func redisKeys(t *testing.T, addr string) []string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "*2\r\n$4\r\nKEYS\r\n$1\r\n*\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	line := func() string {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(l, "\r\n")
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(line(), "*"))
	keys := make([]string, 0, n)
	for range n {
		size, _ := strconv.Atoi(strings.TrimPrefix(line(), "$"))
		b := make([]byte, size+2)
		if _, err := io.ReadFull(br, b); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, string(b[:size]))
	}
	return keys
}

// TestRedisLongKeysHashed: a limit_req key of 65535 bytes (the most a
// client's key may be) is named in Redis by its hash, so that it costs
// Redis what a short key does; two such keys differing in their last
// byte are still counted apart, and a short key keeps its own name.
// audit11: each such key held 64 KB of Redis for a minute, bounded by no
// zone size.
func TestRedisLongKeysHashed(t *testing.T) {
	addr, _ := startRedis(t)
	// A Redis that answers late (a loaded machine, the race detector)
	// sends a lookup to the local zone, where a 64 KB key does not fit
	// (codeError): the test gives Redis far more than the 50ms default.
	const timeout = 10 * time.Second
	z, err := NewReqZone(ZoneOptions{Name: "r", Key: func(*http.Request) string { return "k" }, Rate: 1, Size: MinZoneSize,
		Redis: "redis://" + addr + "/0", RedisTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	rs := z.store.(*redisReq)
	ctx := context.Background()
	long := strings.Repeat("k", 65534)
	for _, key := range []string{long + "a", long + "b", "short"} {
		for i, want := range []code{codeOK, codeOK, codeBusy} {
			if rc, _, _ := rs.lookup(ctx, key, 1000, true); rc != want {
				t.Fatalf("key of %d bytes, request %d: %d, want %d", len(key), i, rc, want)
			}
		}
	}
	keys := redisKeys(t, addr)
	slices.Sort(keys)
	const prefix = "mosaic:limit_req:r:"
	if len(keys) != 3 || !strings.HasPrefix(keys[0], prefix+"\x00sha256:") || keys[1] == keys[0] ||
		!strings.HasPrefix(keys[1], prefix+"\x00sha256:") || keys[2] != prefix+"short" {
		t.Fatalf("Redis keys %.80q", keys) // a key may be 64 KB
	}
	for _, k := range keys[:2] {
		if len(k) != len(prefix)+72 {
			t.Errorf("Redis key %.80q: %d bytes, want %d", k, len(k), len(prefix)+72)
		}
	}
	// limit_conn's leases are named the same way, and still counted.
	c, err := NewConnZone(ZoneOptions{Name: "c", Key: func(*http.Request) string { return "k" }, Size: MinZoneSize,
		Redis: "redis://" + addr + "/0", RedisTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rc, release := c.store.acquire(ctx, long+"a", 1)
	if rc != codeOK {
		t.Fatalf("limit_conn, long key: %d", rc)
	}
	defer release()
	if rc, _ := c.store.acquire(ctx, long+"a", 1); rc != codeBusy {
		t.Fatalf("limit_conn, long key held: %d, want busy", rc)
	}
	for _, k := range redisKeys(t, addr) {
		if strings.HasPrefix(k, "mosaic:limit_conn:c:") && len(k) != len("mosaic:limit_conn:c:")+72 {
			t.Errorf("limit_conn's Redis key %.80q: %d bytes", k, len(k))
		}
	}
}
