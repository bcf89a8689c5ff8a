package cache

import (
	"bytes"
	"encoding/binary"
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
	f.Add(marshalChunks(&redisValue{entity: "e1", meta: big}, 1<<62))
	// A count that fits a 64-bit int and not a 32-bit one (where, wrapped
	// to 1, it read as one chunk of a body of 64 GiB).
	huge := &Meta{Key: "k", Status: 200, Size: 16<<32 + 1}
	f.Add(marshalChunks(&redisValue{entity: "e1", meta: huge}, 1<<32+1))
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

// marshalChunks is v marshalled with a chunk count that an int may not
// hold: v's own count, 0, is one byte after the version and the entity.
func marshalChunks(v *redisValue, chunks uint64) []byte {
	b := v.marshal()
	i := 1 + len(appendString(nil, v.entity))
	return append(binary.AppendUvarint(b[:i:i], chunks), b[i+1:]...)
}
