package limit

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// ZoneOptions describe a zone: NGINX's limit_req_zone (with Rate) or
// limit_conn_zone.
type ZoneOptions struct {
	// Name names the zone in logs and, in Redis, in its keys.
	Name string
	// Key returns the key a request is limited by; a request whose key
	// is empty is not limited.
	Key func(*http.Request) string
	// Size bounds, in bytes, the memory the zone's states take, as
	// NGINX's zone size does (about 8000 states a megabyte for a 4-byte
	// key); at least MinZoneSize. With Redis it bounds the local states
	// used while Redis cannot answer.
	Size int64
	// Rate is a request zone's rate.
	Rate Rate
	// Redis, when set, is the URL of a Redis or Valkey database
	// (redis://[user:pass@]host:port/db, rediss://, unix://) that holds
	// the zone's states, shared by every process naming it and the same
	// zone name.
	Redis string
	// RedisTimeout bounds each Redis operation; 0 means 50ms. A request
	// waits at most this long before the zone limits it locally.
	RedisTimeout time.Duration
	// Logger receives the Redis connection's errors; nil means
	// slog.Default().
	Logger *slog.Logger
}

func (o *ZoneOptions) check() error {
	if o.Name == "" || o.Key == nil {
		return errors.New("limit: a zone needs a name and a key")
	}
	if o.Size < MinZoneSize {
		return fmt.Errorf("limit: zone %q is too small", o.Name)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.RedisTimeout <= 0 {
		o.RedisTimeout = DefaultRedisTimeout
	}
	return nil
}

// ReqZone is a zone of request rates (limit_req_zone).
type ReqZone struct {
	name  string
	key   func(*http.Request) string
	rate  Rate
	local *memReq
	store reqStore // local, or Redis falling back to local
	close func() error
}

// NewReqZone makes a request zone. With Redis, the connection is made in
// the background: the zone limits locally until it is up.
func NewReqZone(o ZoneOptions) (*ReqZone, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.Rate <= 0 {
		return nil, fmt.Errorf("limit: zone %q needs a rate", o.Name)
	}
	z := &ReqZone{name: o.Name, key: o.Key, rate: o.Rate, local: newMemReq(o.Rate, o.Size)}
	z.store, z.close = z.local, func() error { return nil }
	if o.Redis != "" {
		rs, err := newRedisReq(o, z.local)
		if err != nil {
			return nil, err
		}
		z.store, z.close = rs, rs.close
	}
	return z, nil
}

// Name returns the zone's name.
func (z *ReqZone) Name() string { return z.name }

// WithKey returns a zone that shares z's states but reads its keys with
// key: a configuration reloaded with the same zone keeps what the zone
// counted, as NGINX keeps its shared zones, while each configuration
// evaluates the key with its own variables. Closing z closes both.
func (z *ReqZone) WithKey(key func(*http.Request) string) *ReqZone {
	v := *z
	v.key = key
	return &v
}

// Rate returns the zone's rate.
func (z *ReqZone) Rate() Rate { return z.rate }

// Close releases the zone's Redis connection.
func (z *ReqZone) Close() error { return z.close() }

// ConnZone is a zone of requests in progress (limit_conn_zone).
type ConnZone struct {
	name  string
	key   func(*http.Request) string
	local *memConn
	store connStore
	close func() error
}

// NewConnZone makes a zone of requests in progress. With Redis, each
// request in progress holds a lease that its process renews, so that the
// requests of a process that died stop counting once their lease lapses.
func NewConnZone(o ZoneOptions) (*ConnZone, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	z := &ConnZone{name: o.Name, key: o.Key, local: newMemConn(o.Size)}
	z.store, z.close = z.local, func() error { return nil }
	if o.Redis != "" {
		rs, err := newRedisConn(o, z.local)
		if err != nil {
			return nil, err
		}
		z.store, z.close = rs, rs.close
	}
	return z, nil
}

// Name returns the zone's name.
func (z *ConnZone) Name() string { return z.name }

// WithKey returns a zone that shares z's counts but reads its keys with
// key (see ReqZone.WithKey).
func (z *ConnZone) WithKey(key func(*http.Request) string) *ConnZone {
	v := *z
	v.key = key
	return &v
}

// Close releases the zone's Redis connection; the leases it holds lapse.
func (z *ConnZone) Close() error { return z.close() }
