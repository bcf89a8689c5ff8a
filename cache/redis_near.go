package cache

import (
	"context"
	"io"
)

// The Redis store's local tier (RedisOptions.LocalSize) is an in-process
// memory store holding a copy of the entries this instance writes and
// reads. It is served only while Redis cannot answer: when the circuit
// breaker is open, an operation times out or the connection is down.
// While Redis answers, Redis alone decides what is stored, and the copy
// follows it: a key Redis no longer holds is dropped from the copy, and a
// hit on a version the copy lacks refreshes it as the body streams to the
// client. Purges and deletions reach both tiers, so that a purge made on
// this instance during an outage holds too. What another instance purged
// while this one was not reading the key may still be served from the copy
// during an outage, within the entry's freshness: that is the price of
// answering at memory speed instead of going to the origin.

// localDetail is the Cache-Status detail of a hit served from the local
// tier: the shared store was unavailable.
const localDetail = "store-unavailable"

// localObject is an entry served from the local tier.
type localObject struct{ Object }

// CacheStatusDetail makes the hit's Cache-Status say that the shared store
// was bypassed.
func (localObject) CacheStatusDetail() string { return localDetail }

// statusDetail returns the Cache-Status detail an Object asks for, if any.
func statusDetail(o Object) string {
	if d, ok := o.(interface{ CacheStatusDetail() string }); ok {
		return d.CacheStatusDetail()
	}
	return ""
}

// nearGet answers a Get that Redis could not: from the local tier when it
// holds the key, else with cause, which sends the request to the origin.
func (s *RedisStore) nearGet(key string, cause error) (Object, error) {
	if s.near == nil {
		return nil, cause
	}
	obj, err := s.near.Get(context.Background(), key)
	if err != nil {
		return nil, cause
	}
	s.rc.Breaker().CountLocal()
	return localObject{obj}, nil
}

// nearFollow keeps the local tier in step with an entry Redis returned:
// nothing to do when the copy holds the same version; an entry without a
// body (a Vary marker) is copied at once; otherwise the copy is made while
// the body streams.
func (s *RedisStore) nearFollow(obj *redisObject) Object {
	if s.near == nil {
		return obj
	}
	m := obj.v.meta
	if cur, err := s.near.Get(context.Background(), m.Key); err == nil && sameVersion(cur.Meta(), m) {
		return obj
	}
	if m.Size == 0 {
		if w, err := s.near.Put(context.Background(), m.Key); err == nil {
			_ = w.Commit(context.Background(), m)
		}
		return obj
	}
	return &followObject{redisObject: obj}
}

// sameVersion reports whether two metadata describe the same stored
// response: a refill or a revalidation changes the response time.
func sameVersion(a, b *Meta) bool {
	return a.Size == b.Size && a.Generation == b.Generation &&
		a.ResponseTime.Equal(b.ResponseTime) && a.FreshUntil.Equal(b.FreshUntil)
}

// followObject is a Redis hit whose body is copied to the local tier as it
// is written out; the copy is committed only when the whole body went out.
type followObject struct{ *redisObject }

func (o *followObject) WriteTo(w io.Writer) (int64, error) {
	lw, err := o.s.near.Put(context.Background(), o.v.meta.Key)
	if err != nil {
		return o.redisObject.WriteTo(w)
	}
	t := &nearCopy{dst: w, copy: lw}
	n, err := o.redisObject.WriteTo(t)
	if err != nil || t.failed || n != o.v.meta.Size {
		lw.Abort()
		return n, err
	}
	_ = lw.Commit(context.Background(), o.v.meta)
	return n, nil
}

// nearCopy writes to the client and to the local copy; a failing copy (an
// entry larger than the tier) is abandoned without disturbing the client.
type nearCopy struct {
	dst    io.Writer
	copy   Writer
	failed bool
}

func (t *nearCopy) Write(p []byte) (int, error) {
	n, err := t.dst.Write(p)
	if !t.failed && n > 0 {
		if _, cerr := t.copy.Write(p[:n]); cerr != nil {
			t.failed = true
		}
	}
	return n, err
}
