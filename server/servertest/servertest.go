// Package servertest serves configurations on loopback for tests, as
// net/http/httptest serves handlers: a test of a wiring package (which
// blank-imports the modules it needs) loads a configuration, serves it and
// sends requests to the base URL it gets back.
package servertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testport"
	"github.com/mosaic-edge/mosaic/server"
)

// File is the name configurations are loaded under: errors point at
// "test.conf:LINE".
const File = "test.conf"

// Load builds src, failing t when it does not load. The caller closes the
// configuration, or hands it to Serve, whose runtime closes it.
func Load(t testing.TB, src string) *server.Config {
	t.Helper()
	cfg, err := server.LoadString(File, src)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return cfg
}

// Serve applies cfg to a new runtime, which the test's cleanup shuts down,
// and returns the base URL ("http://127.0.0.1:PORT") of its first
// listener; the configuration listens on 127.0.0.1:0.
func Serve(t testing.TB, cfg *server.Config) (base string) {
	t.Helper()
	rt := server.NewRuntime()
	if err := rt.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rt.Shutdown(ctx)
	})
	return "http://" + rt.Addrs()[0].String()
}

// Start loads src and serves it: Serve(t, Load(t, src)).
func Start(t testing.TB, src string) (base string) {
	t.Helper()
	return Serve(t, Load(t, src))
}

// WantError reports an error to t unless src fails to load with an error
// that contains want. A configuration that loads is closed.
func WantError(t testing.TB, src, want string) {
	t.Helper()
	cfg, err := server.LoadString(File, src)
	if err == nil {
		cfg.Close()
		t.Errorf("%q loaded, want the error %q", src, want)
		return
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%q: error %v, want %q", src, err, want)
	}
}

// RefusedAddr returns a loopback address that refuses connections until
// the test ends, for an upstream server that is down (testport.Refused):
// a listener closed at once would free its port for the next server on
// port 0, the test's own included.
func RefusedAddr(t testing.TB) string {
	t.Helper()
	port, release, err := testport.Refused()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release() })
	return fmt.Sprintf("127.0.0.1:%d", port)
}
