package cache

import (
	"bytes"
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestNormalizeAcceptEncoding(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "",
		"gzip, deflate, br":             "br,deflate,gzip",
		"br;q=1.0, gzip;q=0.8, *;q=0.1": "br,deflate,gzip,zstd",
		"gzip;q=0, br":                  "br",
		"GZIP, x-gzip":                  "gzip",
		"identity":                      "",
		"*":                             "br,deflate,gzip,zstd",
		"*, br;q=0":                     "deflate,gzip,zstd",
		"zstd, br, gzip, deflate":       "br,deflate,gzip,zstd",
		"gzip;q=0.000":                  "",
		"sdch, compress":                "",
		"br ; q = 0.5 , gzip ; level=1": "br,gzip",
	} {
		if got := normalizeAcceptEncoding([]string{in}); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	if got := normalizeAcceptEncoding([]string{"gzip", "br"}); got != "br,gzip" {
		t.Errorf("two lines: %q", got)
	}
}

func TestParseCacheControl(t *testing.T) {
	h := http.Header{"Cache-Control": {`public, max-age=60, s-maxage="120"`, `no-cache="Set-Cookie, X-A", stale-if-error=5, unknown=1`}}
	cc := parseCacheControl(h)
	if !cc.public || cc.maxAge != time.Minute || cc.sMaxAge != 2*time.Minute || cc.staleIfError != 5*time.Second {
		t.Fatalf("%+v", cc)
	}
	if cc.noCache || !reflect.DeepEqual(cc.noCacheFields, []string{"Set-Cookie", "X-A"}) {
		t.Fatalf("no-cache fields %v", cc.noCacheFields)
	}
	dup := parseCacheControl(http.Header{"Cache-Control": {"max-age=60, max-age=10"}})
	if !dup.invalidMaxAge {
		t.Fatal("a duplicate max-age must be invalid")
	}
	if bad := parseCacheControl(http.Header{"Cache-Control": {"max-age=-1"}}); !bad.invalidMaxAge {
		t.Fatal("a negative max-age must be invalid")
	}
}

func TestMetaRoundTrip(t *testing.T) {
	now := time.Unix(1700000000, 123)
	m := &Meta{
		Key: "httpexample.com/a?b", Status: 200, Size: 12345,
		Header:      http.Header{"Content-Type": {"text/html"}, "Set-Thing": {"a", "b"}},
		RequestTime: now, ResponseTime: now.Add(time.Millisecond), InitialAge: 3 * time.Second,
		FreshUntil: now.Add(time.Minute), StaleWhileRevalidate: time.Second, StaleIfError: 2 * time.Second,
		MustRevalidate: true, NoCache: true, Tags: []string{"x", "y"}, Generation: 7,
		Vary: []string{"Accept-Encoding"}, VaryEpoch: "abc", BodyID: 0xfedcba9876543210,
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Meta
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !got.RequestTime.Equal(m.RequestTime) || !got.FreshUntil.Equal(m.FreshUntil) {
		t.Fatalf("times %v %v", got.RequestTime, got.FreshUntil)
	}
	got.RequestTime, got.ResponseTime, got.FreshUntil = m.RequestTime, m.ResponseTime, m.FreshUntil
	if !reflect.DeepEqual(&got, m) {
		t.Fatalf("round trip:\n%+v\n%+v", got, *m)
	}
	for i := range len(b) {
		var x Meta
		if err := x.UnmarshalBinary(b[:i]); err == nil {
			t.Fatalf("truncated to %d bytes decoded", i)
		}
	}
}

// TestMetaTimesPastEncodingRange: a time past 2262 (Expires in 9999) is
// not representable in Unix nanoseconds; it must read back as the last
// time that is, not wrap into the past and make the entry stale.
func TestMetaTimesPastEncodingRange(t *testing.T) {
	far := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	m := &Meta{Key: "k", Status: 200, Header: http.Header{}, FreshUntil: far, ResponseTime: time.Now()}
	b, _ := m.MarshalBinary()
	var got Meta
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC); got.FreshUntil.Before(want) {
		t.Fatalf("FreshUntil %v read back as %v", far, got.FreshUntil)
	}
}

// TestRetentionOfVeryLongLifetimes: how long Redis keeps an entry stays
// positive and bounded whatever its lifetime and stale windows, so that
// the store's grace added to it cannot wrap either; ordinary lifetimes
// are kept exactly.
func TestRetentionOfVeryLongLifetimes(t *testing.T) {
	now := time.Now()
	const forever = time.Duration(1<<63 - 1)
	for _, tc := range []struct {
		name       string
		freshUntil time.Time
		swr, sie   time.Duration
		inactive   time.Duration
		want       time.Duration
	}{
		{"ordinary", now.Add(time.Minute), 10 * time.Second, 0, 10 * time.Minute, 70*time.Second + 10*time.Minute},
		{"stale on arrival", now.Add(-time.Minute), 0, 90 * time.Second, time.Minute, 30*time.Second + time.Minute},
		{"long past", now.Add(-time.Hour), 0, 0, time.Minute, time.Minute},
		{"freshness past a Duration", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), 0, 0, time.Minute, maxRetention + time.Minute},
		{"freshness past a Duration with a stale window", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), time.Hour, 0, time.Minute, maxRetention + time.Minute},
		{"stale window past a Duration", now.Add(time.Minute), forever, forever, time.Minute, maxRetention + time.Minute},
		{"everything past a Duration", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), forever, forever, forever, maxRetention + maxInactive},
		{"inactive of years, as configured", now.Add(time.Hour), 0, 0, 2 * 365 * 24 * time.Hour, time.Hour + 2*365*24*time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Meta{FreshUntil: tc.freshUntil, StaleWhileRevalidate: tc.swr, StaleIfError: tc.sie}
			got := m.retention(now, tc.inactive)
			if got != tc.want {
				t.Errorf("retention %v, want %v", got, tc.want)
			}
			if got+redisGrace <= 0 {
				t.Errorf("retention %v wraps with the grace", got)
			}
		})
	}
}

func FuzzMetaUnmarshal(f *testing.F) {
	m := &Meta{Key: "k", Status: 200, Header: http.Header{"A": {"b"}}, Tags: []string{"t"}}
	b, _ := m.MarshalBinary()
	f.Add(b)
	f.Add([]byte{metaVersion})
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Meta
		if err := m.UnmarshalBinary(data); err != nil {
			return
		}
		// Whatever decodes must encode back to the same bytes' meaning.
		again, _ := m.MarshalBinary()
		var n Meta
		if err := n.UnmarshalBinary(again); err != nil {
			t.Fatalf("re-decoding: %v", err)
		}
	})
}

func FuzzCacheControl(f *testing.F) {
	f.Add(`public, max-age=60, no-cache="a,b", s-maxage="1"`)
	f.Add(`"unterminated, max-age=1`)
	f.Fuzz(func(t *testing.T, v string) {
		cc := parseCacheControl(http.Header{"Cache-Control": {v}})
		if cc.maxAge < -1 || cc.sMaxAge < -1 {
			t.Fatalf("negative lifetime %+v", cc)
		}
		normalizeAcceptEncoding([]string{v})
	})
}

func TestMemoryStoreChunksAndBounds(t *testing.T) {
	s, err := NewMemoryStore(MemoryOptions{MaxSize: 1 << 20, ChunkSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	put := func(key string, body string) error {
		w, err := s.Put(ctx, key)
		if err != nil {
			return err
		}
		for i := 0; i < len(body); i += 333 {
			if _, err := w.Write([]byte(body[i:min(i+333, len(body))])); err != nil {
				return err
			}
		}
		return w.Commit(ctx, &Meta{Key: key, Status: 200, Header: http.Header{}})
	}
	body := strings.Repeat("abcdefghij", 540)
	if err := put("k", body); err != nil {
		t.Fatal(err)
	}
	obj, err := s.Get(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	e := obj.(*memEntry)
	if len(e.chunks) != 6 || cap(e.chunks[0]) != 1000 || cap(e.chunks[5]) != 400 {
		t.Fatalf("%d chunks, caps %d/%d", len(e.chunks), cap(e.chunks[0]), cap(e.chunks[5]))
	}
	var buf bytes.Buffer
	if _, err := obj.WriteTo(&buf); err != nil || buf.String() != body || obj.Meta().Size != int64(len(body)) {
		t.Fatalf("body %d bytes, size %d, %v", buf.Len(), obj.Meta().Size, err)
	}
	// Update keeps the body and replaces the metadata.
	if err := s.Update(ctx, &Meta{Key: "k", Status: 203, Header: http.Header{}}); err != nil {
		t.Fatal(err)
	}
	obj, _ = s.Get(ctx, "k")
	buf.Reset()
	obj.WriteTo(&buf)
	if obj.Meta().Status != 203 || buf.String() != body {
		t.Fatalf("after update: %d, %d bytes", obj.Meta().Status, buf.Len())
	}
	if err := s.Update(ctx, &Meta{Key: "absent"}); err != ErrNotFound {
		t.Fatalf("update of an absent key: %v", err)
	}
	// A body larger than the store is refused.
	if err := put("huge", strings.Repeat("x", 2<<20)); err == nil {
		t.Fatal("an entry larger than the store was accepted")
	}
	// The byte bound holds.
	for i := range 100 {
		put(strings.Repeat("k", i+1), strings.Repeat("y", 50<<10))
	}
	s.entries.CleanUp()
	if w := s.entries.WeightedSize(); w > 1<<20 {
		t.Fatalf("holds %d bytes with a bound of 1 MiB", w)
	}
}

func TestValidRuleOrder(t *testing.T) {
	byStatus, anyTTL, hasAny, err := compileValid([]Valid{
		{TTL: 10 * time.Minute},
		{Codes: []int{404, 200}, TTL: time.Minute},
		{Any: true, TTL: 5 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The first directive naming a status wins, as in NGINX.
	if byStatus[200] != 10*time.Minute || byStatus[302] != 10*time.Minute || byStatus[404] != time.Minute {
		t.Fatalf("%v", byStatus)
	}
	if !hasAny || anyTTL != 5*time.Second {
		t.Fatalf("any: %v %v", hasAny, anyTTL)
	}
}
