package cache_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/internal/testport"
	"github.com/redis/rueidis"
)

// redisServer is a redis-server process started by the tests on a free
// loopback port.
type redisServer struct {
	bin  string
	cmd  *exec.Cmd
	addr string
	port int
	once sync.Once
}

func (r *redisServer) url() string { return "redis://" + r.addr + "/0" }

func (r *redisServer) stop() {
	r.once.Do(func() {
		r.cmd.Process.Kill()
		r.cmd.Wait()
	})
}

// launchRedis starts a redis-server without persistence on a free port and
// waits until it accepts connections.
func launchRedis(bin string) (*redisServer, error) {
	port, err := testport.Free()
	if err != nil {
		return nil, err
	}
	return launchRedisOn(bin, port)
}

// launchRedisOn is launchRedis on a given port.
func launchRedisOn(bin string, port int) (*redisServer, error) {
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &redisServer{bin: bin, cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port), port: port}
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", r.addr)
		if err == nil {
			c.Close()
			return r, nil
		}
		if time.Now().After(deadline) {
			r.stop()
			return nil, fmt.Errorf("redis-server did not start: %w", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startRedis starts a redis-server for one test, or skips the test when
// the binary is not installed.
func startRedis(t testing.TB) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	r, err := launchRedis(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.stop)
	return r
}

// restartRedis kills r and starts an empty redis-server on its port, as
// an operator restarting Redis does, stopped when the test ends.
func restartRedis(t testing.TB, r *redisServer) *redisServer {
	t.Helper()
	r.stop()
	n, err := launchRedisOn(r.bin, r.port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.stop)
	return n
}

var (
	sharedRedisOnce sync.Once
	sharedRedis     *redisServer
	sharedRedisSkip bool
)

// testRedis returns the redis-server shared by the package's tests (each
// test writes under its own prefix), stopped by TestMain.
func testRedis(t testing.TB) *redisServer {
	t.Helper()
	var err error
	sharedRedisOnce.Do(func() {
		bin, lerr := exec.LookPath("redis-server")
		if lerr != nil {
			sharedRedisSkip = true
			return
		}
		sharedRedis, err = launchRedis(bin)
	})
	if err != nil {
		t.Fatal(err)
	}
	if sharedRedisSkip || sharedRedis == nil {
		t.Skip("redis-server not installed")
	}
	return sharedRedis
}

var prefixSeq atomic.Int64

func newRedisStore(t testing.TB, url, prefix string, opts cache.RedisOptions) *cache.RedisStore {
	t.Helper()
	opts.Prefix = prefix
	s, err := cache.NewRedisStore(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func uniquePrefix(t testing.TB) string {
	return fmt.Sprintf("t%d:", prefixSeq.Add(1))
}

// redisClient is a plain client for test assertions and manipulation.
func redisClient(t testing.TB, r *redisServer) rueidis.Client {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{r.addr}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func redisKeys(t testing.TB, c rueidis.Client, pattern string) []string {
	t.Helper()
	keys, err := c.Do(context.Background(), c.B().Keys().Pattern(pattern).Build()).AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}
