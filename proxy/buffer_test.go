package proxy_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/proxy"
)

// countingRecorder records the size of every body write.
type countingRecorder struct {
	*httptest.ResponseRecorder
	writes []int
}

func (c *countingRecorder) Write(p []byte) (int, error) {
	c.writes = append(c.writes, len(p))
	return c.ResponseRecorder.Write(p)
}

func TestBufferSizeBoundsWrites(t *testing.T) {
	body := strings.Repeat("x", 1000)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(body))
	}))
	defer origin.Close()
	p, err := proxy.ParsePass(origin.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{100, 0} {
		h, err := proxy.New(proxy.Options{Pass: p, BufferSize: size})
		if err != nil {
			t.Fatal(err)
		}
		rec := &countingRecorder{ResponseRecorder: httptest.NewRecorder()}
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if rec.Body.String() != body {
			t.Fatalf("size %d: body of %d bytes", size, rec.Body.Len())
		}
		for _, n := range rec.writes {
			if size > 0 && n > size {
				t.Fatalf("size %d: a write of %d bytes", size, n)
			}
		}
		if size == 100 && len(rec.writes) < 10 {
			t.Fatalf("size 100: %d writes", len(rec.writes))
		}
	}
}
