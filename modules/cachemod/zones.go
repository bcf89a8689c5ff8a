package cachemod

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/shared"
)

// zoneKind is where a proxy_cache_path zone keeps its entries.
type zoneKind uint8

const (
	zoneMemory zoneKind = iota
	zoneDisk
	zoneRedis
)

func (k zoneKind) String() string {
	switch k {
	case zoneDisk:
		return "disk"
	case zoneRedis:
		return "redis"
	}
	return "memory"
}

// zoneConf is one proxy_cache_path directive.
type zoneConf struct {
	name     string
	kind     zoneKind
	path     string // the directory (absolute) or the Redis URL
	size     int64  // keys_zone SIZE
	maxSize  int64
	inactive time.Duration
	levels   []int
	// redisTimeout bounds each operation of a Redis zone (redis_timeout=,
	// mosaic's own); 0 leaves the store's default.
	redisTimeout time.Duration
	pos          string

	zone *sharedZone // acquired by InitMain
}

// storeKind tells which store a proxy_cache_path PATH selects: the word
// "memory" selects the memory store, a redis://, rediss://, valkey:// or
// valkeys:// URL the Redis store, anything else a directory.
func storeKind(path string) zoneKind {
	switch {
	case path == "memory":
		return zoneMemory
	case strings.HasPrefix(path, "redis://"), strings.HasPrefix(path, "rediss://"),
		strings.HasPrefix(path, "valkey://"), strings.HasPrefix(path, "valkeys://"):
		return zoneRedis
	}
	return zoneDisk
}

// signature identifies the store a zone needs. Two configurations whose
// zones have the same signature share one store, so a reload keeps what
// is cached (as NGINX keeps its shared zones) and never opens a directory
// or a Redis connection twice.
func (z *zoneConf) signature() string {
	return fmt.Sprintf("%s|%s|%s|%d|%d|%s|%v|%s", z.kind, z.name, z.path, z.size, z.maxSize, z.inactive, z.levels, z.redisTimeout)
}

// sharedZone is a store with its counters, shared by the configurations
// that name it alike (internal/shared).
type sharedZone struct {
	sig   string
	store cache.Store
	stats *cache.Stats
}

func (sz *sharedZone) Close() error { return sz.store.Close() }

var zones shared.Registry[*sharedZone]

// acquireZone returns the store of z, opening it unless a configuration
// already holds one with the same signature.
func acquireZone(z *zoneConf, log *slog.Logger) (*sharedZone, error) {
	sig := z.signature()
	return zones.Acquire(sig, func() (*sharedZone, error) {
		s, err := z.open(log)
		if err != nil {
			return nil, err
		}
		return &sharedZone{sig: sig, store: s, stats: new(cache.Stats)}, nil
	})
}

func (z *zoneConf) metricsZone() cache.Zone {
	mz := cache.Zone{Name: z.name, Store: z.kind.String(), Stats: z.zone.stats}
	if rs, ok := z.zone.store.(*cache.RedisStore); ok {
		mz.Breaker = rs.Breaker()
	}
	return mz
}

// releaseZone gives back what acquireZone returned and closes the store
// when the last configuration using it is retired.
func releaseZone(sz *sharedZone) error { return zones.Release(sz.sig) }

// serverChunkSize is the memory store's chunk size in the server. A hit
// writes each chunk to the connection with one system call (net/http does
// not gather writes), so 64 KiB chunks send a 100 KB body in two calls
// where the 16 KiB default takes seven (cache/bench/compare-nginx.sh shows
// the difference). The chunks stay small enough for the allocator.
const serverChunkSize = 64 << 10

// open creates the zone's store.
func (z *zoneConf) open(log *slog.Logger) (cache.Store, error) {
	switch z.kind {
	case zoneDisk:
		s, err := cache.NewDiskStore(z.path, cache.DiskOptions{MaxSize: z.maxSize, Inactive: z.inactive, Levels: z.levels, Logger: log})
		if err != nil {
			return nil, err
		}
		return s, nil
	case zoneRedis:
		s, err := cache.NewRedisStore(z.path, cache.RedisOptions{Prefix: z.name + ":", Inactive: z.inactive, Timeout: z.redisTimeout, Logger: log, LocalSize: z.size})
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	size := z.maxSize
	if size == 0 {
		size = z.size
	}
	s, err := cache.NewMemoryStore(cache.MemoryOptions{MaxSize: size, Inactive: z.inactive, ChunkSize: serverChunkSize})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// parseZone reads the arguments of proxy_cache_path.
func parseZone(args []string, parseSize func(string) (int64, error), parseTime func(string) (time.Duration, error)) (*zoneConf, error) {
	z := &zoneConf{kind: zoneMemory}
	if !strings.HasPrefix(args[0], "keys_zone=") {
		z.kind, z.path = storeKind(args[0]), args[0]
		args = args[1:]
		if z.kind == zoneDisk {
			abs, err := filepath.Abs(z.path)
			if err != nil {
				return nil, fmt.Errorf("cache path %q: %w", z.path, err)
			}
			z.path = abs
		} else if z.kind == zoneMemory {
			z.path = ""
		}
	}
	for _, a := range args {
		name, val, ok := strings.Cut(a, "=")
		if !ok {
			return nil, fmt.Errorf("invalid parameter %q", a)
		}
		switch name {
		case "keys_zone":
			zn, sz, ok := strings.Cut(val, ":")
			if !ok || zn == "" {
				return nil, fmt.Errorf("invalid keys zone size %q", a)
			}
			n, err := parseSize(sz)
			if err != nil || n < 8192 {
				return nil, fmt.Errorf("invalid keys zone size %q", a)
			}
			z.name, z.size = zn, n
		case "max_size":
			// An offset, as NGINX's ngx_parse_offset reads it: "10g".
			n, err := conf.ParseOffset(val)
			if err != nil {
				return nil, fmt.Errorf("invalid max_size value %q", a)
			}
			z.maxSize = n
		case "inactive":
			d, err := parseTime(val)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("invalid inactive value %q", a)
			}
			z.inactive = d
		case "levels":
			lv, err := parseLevels(val)
			if err != nil {
				return nil, fmt.Errorf("invalid \"levels\" %q", a)
			}
			z.levels = lv
		case "redis_timeout":
			// mosaic's own: how long a request waits for one Redis
			// operation before it bypasses the store (cache.RedisOptions).
			// Milliseconds are its natural unit, so it reads a time as
			// NGINX's *_timeout directives do, not as inactive=.
			d, err := conf.ParseTime(val)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("invalid redis_timeout value %q", a)
			}
			z.redisTimeout = d
		// Tuning of NGINX's cache loader and manager processes, which
		// mosaic does not have: its loader runs once at start and its
		// sweeper in the background (see README.md). The values are
		// still checked as NGINX checks them.
		case "use_temp_path":
			if val != "on" && val != "off" {
				return nil, fmt.Errorf("invalid use_temp_path value %q, it must be \"on\" or \"off\"", a)
			}
		case "loader_files", "manager_files":
			if _, ok := conf.Atoi(val); !ok {
				return nil, fmt.Errorf("invalid %s value %q", name, a)
			}
		case "loader_sleep", "loader_threshold", "manager_sleep", "manager_threshold":
			if _, err := conf.ParseTime(val); err != nil {
				return nil, fmt.Errorf("invalid %s value %q", name, a)
			}
		case "min_free":
			if _, err := conf.ParseOffset(val); err != nil {
				return nil, fmt.Errorf("invalid %s value %q", name, a)
			}
		case "purger", "purger_files", "purger_sleep", "purger_threshold":
			// NGINX Plus's purger, which Debian's NGINX refuses; accepted
			// without effect (README.md).
		default:
			return nil, fmt.Errorf("invalid parameter %q", a)
		}
	}
	if z.name == "" {
		return nil, fmt.Errorf("\"keys_zone\" must be specified")
	}
	if z.levels != nil && z.kind != zoneDisk {
		return nil, fmt.Errorf("\"levels\" applies to a directory, not to the %s store", z.kind)
	}
	if z.redisTimeout != 0 && z.kind != zoneRedis {
		return nil, fmt.Errorf("\"redis_timeout\" applies to a Redis URL, not to the %s store", z.kind)
	}
	return z, nil
}

// parseLevels reads levels=1:2 (one to three levels of one or two hex
// digits).
func parseLevels(s string) ([]int, error) {
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return nil, fmt.Errorf("too many levels")
	}
	out := make([]int, 0, len(parts))
	for _, p := range parts {
		switch p {
		case "1":
			out = append(out, 1)
		case "2":
			out = append(out, 2)
		default:
			return nil, fmt.Errorf("level %q", p)
		}
	}
	return out, nil
}
