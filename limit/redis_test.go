//go:build unix

package limit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/rueidis"

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

// delayProxy stands between a client and the Redis at addr as a far
// network would: while delay is set, what the client sends waits that
// long before it goes on, and is counted once with what else the client
// sent meanwhile (the rest of a pipeline, which the client writes in
// chunks as it builds it), so that sends is how many round trips the
// client made, whatever the chunks.
type delayProxy struct {
	addr  string
	delay atomic.Int64 // ns
	sends atomic.Int64
}

func startDelayProxy(t *testing.T, addr string) *delayProxy {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	p := &delayProxy{addr: l.Addr().String()}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); s.Close() })
			go io.Copy(c, s)
			go func() {
				buf := make([]byte, 1<<20) // a whole pipeline
				for {
					n, err := c.Read(buf)
					if n > 0 {
						if d := p.delay.Load(); d > 0 {
							p.sends.Add(1)
							time.Sleep(time.Duration(d))
							n, err = drain(c, buf, n)
						}
						if _, err := s.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						s.Close()
						return
					}
				}
			}()
		}
	}()
	return p
}

// drain reads into buf[n:] what c has already received and returns the
// length read in all; a read that waits 5ms for more, or a full buf, ends
// it.
func drain(c net.Conn, buf []byte, n int) (int, error) {
	defer c.SetReadDeadline(time.Time{})
	for {
		if n == len(buf) {
			return n, nil
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
		m, err := c.Read(buf[n:])
		n += m
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// leaseScores reads the lapse time of every lease in keys, by key and id.
func leaseScores(t *testing.T, addr string, keys []string) map[string]map[string]float64 {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cmds := make(rueidis.Commands, 0, len(keys))
	for _, k := range keys {
		cmds = append(cmds, c.B().Zrange().Key(k).Min("0").Max("-1").Withscores().Build())
	}
	scores := make(map[string]map[string]float64, len(keys))
	for i, r := range c.DoMulti(context.Background(), cmds...) {
		zs, err := r.AsZScores()
		if err != nil {
			t.Fatalf("ZRANGE %s: %v", keys[i], err)
		}
		scores[keys[i]] = map[string]float64{}
		for _, z := range zs {
			scores[keys[i]][z.Member] = z.Score
		}
	}
	return scores
}

// redisCalls is how many times the Redis at addr ran each of cmds
// (INFO commandstats names, "script|load"), by name.
func redisCalls(t *testing.T, addr string, cmds ...string) map[string]int {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := c.Do(context.Background(), c.B().Info().Section("commandstats").Build()).ToString()
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	calls := make(map[string]int, len(cmds))
	for line := range strings.Lines(info) {
		for _, cmd := range cmds {
			if rest, ok := strings.CutPrefix(line, "cmdstat_"+cmd+":calls="); ok {
				n, _, _ := strings.Cut(rest, ",")
				calls[cmd], _ = strconv.Atoi(n)
			}
		}
	}
	return calls
}

// TestRedisConnRenewsInBatches: a renewal pass over many keys, with a
// Redis 20ms away, costs a round trip or two a batch, not one a key, and
// still extends each lease of each key (a key with more leases than a
// batch holds is split over batches) and brings back none released.
// Renewed key by key, a pass over 300 keys took 300 round trips (6s at
// 20ms): past a few hundred keys tens of ms away it outlasted the 15s
// lease, and requests still in progress stopped counting elsewhere. A
// batch is one pipeline of EVALSHA, with no SCRIPT LOAD before it (a
// second round trip within the batch's one timeout), and a Redis that
// lost its scripts still gets every renewal (EVAL again).
func TestRedisConnRenewsInBatches(t *testing.T) {
	addr, _ := startRedis(t)
	proxy := startDelayProxy(t, addr)
	old, oldBatch := connLease, renewBatch
	// The loop's own pass (every third of the lease) stays out of the
	// test's count.
	connLease = time.Minute
	t.Cleanup(func() { connLease, renewBatch = old, oldBatch })
	z, err := NewConnZone(ZoneOptions{Name: "c", Key: func(*http.Request) string { return "k" }, Size: 1 << 20,
		Redis: "redis://" + proxy.addr + "/0", RedisTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	rs := z.store.(*redisConn)
	ctx := context.Background()
	const keys, many = 300, 100
	acquire := func(key string) func() {
		rc, release := rs.acquire(ctx, key, many+1)
		if rc != codeOK {
			t.Fatalf("acquire %s: %d", key, rc)
		}
		return release
	}
	for i := range keys {
		acquire("k" + strconv.Itoa(i))
	}
	for range many {
		acquire("many")
	}
	released := acquire("many")
	released()
	rs.mu.Lock()
	held := slices.Collect(maps.Keys(rs.leases))
	ids := 0
	for _, l := range rs.leases {
		ids += len(l)
	}
	rs.mu.Unlock()
	if len(held) != keys+1 || ids != keys+many {
		t.Fatalf("%d keys, %d leases held, want %d and %d", len(held), ids, keys+1, keys+many)
	}

	const delay = 20 * time.Millisecond
	// A pass costs trips round trips, one a batch of batches.
	pass := func(batches, trips int) {
		t.Helper()
		before := leaseScores(t, addr, held)
		callsBefore := redisCalls(t, addr, "script|load", "evalsha")
		proxy.sends.Store(0)
		proxy.delay.Store(int64(delay))
		start := time.Now()
		rs.renew()
		took := time.Since(start)
		proxy.delay.Store(0)
		sends := proxy.sends.Load()
		t.Logf("%d leases of %d keys in batches of %d: %d round trips of %v, %v",
			ids, len(held), renewBatch, sends, delay, took.Round(time.Millisecond))
		if sends > int64(trips) {
			t.Errorf("a pass took %d round trips, want at most %d for %d batch(es)", sends, trips, batches)
		}
		calls := redisCalls(t, addr, "script|load", "evalsha")
		if n := calls["script|load"] - callsBefore["script|load"]; n != 0 {
			t.Errorf("a pass sent %d SCRIPT LOAD, want none: each costs a round trip within the batch's timeout", n)
		}
		if n := calls["evalsha"] - callsBefore["evalsha"]; n < len(held) {
			t.Errorf("a pass ran %d EVALSHA, want at least one a key (%d)", n, len(held))
		}
		after := leaseScores(t, addr, held)
		for _, k := range held {
			if len(after[k]) != len(before[k]) {
				t.Errorf("%s: %d leases after the pass, %d before", k, len(after[k]), len(before[k]))
			}
			for id, s := range before[k] {
				if after[k][id] <= s {
					t.Errorf("%s lease %s: lapses at %v after the pass, %v before: not renewed", k, id, after[k][id], s)
				}
			}
		}
	}
	// The first pass finds the script not in Redis's cache: NOSCRIPT,
	// then EVAL, one more round trip.
	pass(1, 2)
	// Batches of 64 leases: 400 leases in 7, the key of 100 leases
	// split over two or three.
	renewBatch = 64
	batches := (keys + many + renewBatch - 1) / renewBatch
	pass(batches, batches)
	// A Redis that lost its scripts (restarted, SCRIPT FLUSH) answers
	// the pipeline NOSCRIPT: its commands go again as EVAL, a second
	// round trip this once.
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Do(ctx, c.B().ScriptFlush().Build()).Error(); err != nil {
		t.Fatal(err)
	}
	renewBatch = oldBatch
	before := leaseScores(t, addr, held)
	time.Sleep(2 * time.Millisecond) // Redis's clock in ms: a renewal must move each lapse time
	rs.renew()
	after := leaseScores(t, addr, held)
	for _, k := range held {
		for id, s := range before[k] {
			if after[k][id] <= s {
				t.Errorf("after SCRIPT FLUSH, %s lease %s lapses at %v, %v before: not renewed", k, id, after[k][id], s)
			}
		}
	}
}
