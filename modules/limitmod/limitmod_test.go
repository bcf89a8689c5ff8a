package limitmod

import (
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

// TestSignatureHasRedisTimeout: a reload that changes only a zone's
// redis_timeout= opens the zone anew (limit/README.md says so); a
// signature without it would keep the old zone, and its old bound, as
// the same one.
func TestSignatureHasRedisTimeout(t *testing.T) {
	key, err := vars.Compile("$uri")
	if err != nil {
		t.Fatal(err)
	}
	zone := func(d time.Duration) *zoneConf {
		return &zoneConf{kind: kindReq, name: "z", key: key, size: 1 << 20, rate: 1000,
			redis: "redis://127.0.0.1:6379/0", redisTimeout: d}
	}
	if a, b := zone(0).signature(), zone(time.Second).signature(); a == b {
		t.Errorf("redis_timeout=1s and the default share the signature %q", a)
	}
}
