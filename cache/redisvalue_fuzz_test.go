package cache

import (
	"bytes"
	"net/http"
	"testing"
)

// FuzzRedisValue: whatever a Redis holds under a metadata key (written
// by another version, another program, or anyone who can write to it),
// reading it as a value returns an error or a value whose chunk count
// its size explains, and which reads back the same after writing it.
func FuzzRedisValue(f *testing.F) {
	s := &RedisStore{chunkSize: 16}
	meta := &Meta{Key: "k", Status: 200, Header: http.Header{"A": {"b"}}, Size: 5}
	f.Add((&redisValue{meta: meta, inline: []byte("hello")}).marshal())
	big := &Meta{Key: "k", Status: 200, Size: 40}
	f.Add((&redisValue{entity: "e1", chunks: 3, meta: big}).marshal())
	f.Add((&redisValue{entity: "e1", chunks: 1 << 62, meta: big}).marshal())
	f.Add([]byte{redisValueVersion})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := s.parseValue(b)
		if err != nil {
			return
		}
		if v.entity == "" && v.chunks != 0 || v.entity != "" && int64(v.chunks) != (v.meta.Size+15)/16 {
			t.Fatalf("%q: %d chunks for %d bytes (entity %q)", b, v.chunks, v.meta.Size, v.entity)
		}
		again, err := s.parseValue(v.marshal())
		if err != nil {
			t.Fatalf("%q: written again, it reads as %v", b, err)
		}
		if again.entity != v.entity || again.chunks != v.chunks || !bytes.Equal(again.inline, v.inline) {
			t.Fatalf("%q: written again, it reads as %+v, was %+v", b, again, v)
		}
	})
}
