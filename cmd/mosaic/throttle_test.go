package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// limitRateHTTP shows $limit_rate as "set" leaves it.
const limitRateHTTP = `server {
		listen 127.0.0.1:{port};
		location /show { set $limit_rate 2k; return 200 "$limit_rate"; }
		location /none { limit_rate 1k; return 200 "$limit_rate"; }
	}`

func checkLimitRateVar(t *testing.T, who string, port int) {
	t.Helper()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for path, want := range map[string]string{"/show": "2048", "/none": "0"} {
		if _, got := testclient.Get(t, base+path); got != want {
			t.Errorf("%s %s: $limit_rate %q, want %q", who, path, got, want)
		}
	}
}

func TestLimitRateVariableMatchesNGINX(t *testing.T) {
	nginxPath(t)
	port := freePort(t)
	startNGINX(t, t.TempDir(), replacePort(limitRateHTTP, port), port)
	checkLimitRateVar(t, "nginx", port)
}

func TestLimitRateVariableThroughBinary(t *testing.T) {
	port := freePort(t)
	startMosaic(t, t.TempDir(), "http {"+limitRateHTTP+"}", port)
	checkLimitRateVar(t, "mosaic", port)
}

func replacePort(conf string, port int) string {
	return strings.ReplaceAll(conf, "{port}", fmt.Sprint(port))
}
