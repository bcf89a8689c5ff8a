package static

import (
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestParseOffset(t *testing.T) {
	for s, want := range map[string]int64{
		"0": 0, "7": 7, "0012": 12, "9223372036854775807": 1<<63 - 1,
		"": -1, "-1": -1, "+1": -1, "1.5": -1, " 1": -1, "9223372036854775808": -1, "99999999999999999999": -1,
	} {
		got, ok := parseOffset(s)
		if !ok {
			got = -1
		}
		if got != want {
			t.Errorf("parseOffset(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestFLVCut serves a file through the FLV Cutter: the header and the
// file from the start, the whole file for a start it does not take, the
// ETag of the cut body's length, and several ranges of the cut body, one
// across the header's end, as a well-formed multipart body (NGINX breaks
// the connection there; see the README).
func TestFLVCut(t *testing.T) {
	root := t.TempDir()
	data := "FLV\x01\x05\x00\x00\x00\x09\x00\x00\x00\x00" + strings.Repeat("0123456789", 10)
	if err := os.WriteFile(filepath.Join(root, "a.flv"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(root, "a.flv"), fixedMtime, fixedMtime); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Root: root, Cut: FLV})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	get := func(target, rng string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", target, nil)
		if rng != "" {
			r.Header.Set("Range", rng)
		}
		h.ServeHTTP(w, r)
		return w
	}
	for target, want := range map[string]string{
		"/a.flv?start=50":  string(flvHeader) + data[50:],
		"/a.flv?start=0":   data,
		"/a.flv?start=113": data,
		"/a.flv?start=x":   data,
		"/a.flv":           data,
	} {
		w := get(target, "")
		if w.Code != 200 || w.Body.String() != want {
			t.Errorf("%s: %d %q, want %q", target, w.Code, w.Body, want)
		}
	}
	if etag := get("/a.flv?start=50", "").Header().Get("Etag"); etag != `"5f5e1000-4c"` {
		t.Errorf("ETag %s, want the cut body's length, 13+113-50", etag)
	}
	w := get("/a.flv?start=50", "bytes=2-4,10-16,70-")
	if w.Code != http.StatusPartialContent {
		t.Fatalf("%d %q", w.Code, w.Body)
	}
	_, params, err := mime.ParseMediaType(w.Header().Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(flvHeader) + data[50:]
	mr := multipart.NewReader(w.Body, params["boundary"])
	for _, want := range []string{body[2:5], body[10:17], body[70:]} {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(p)
		if string(got) != want {
			t.Errorf("part %q, want %q", got, want)
		}
	}
}

// FuzzFLV reads random "start" values: the cut is the whole file or the
// header and a tail of it, never outside it, and a start that parses is
// the number the digits say.
func FuzzFLV(f *testing.F) {
	for _, s := range []string{"100", "0", "", "%31", "9223372036854775808", "-5", "007"} {
		f.Add(s, int64(1000))
	}
	f.Fuzz(func(t *testing.T, start string, size int64) {
		if size < 0 {
			size = -size
		}
		if n, ok := parseOffset(start); ok && strconv.FormatInt(n, 10) != strings.TrimLeft(start, "0") && n != 0 {
			t.Fatalf("parseOffset(%q) = %d", start, n)
		}
		r := httptest.NewRequest("GET", "/a.flv", nil)
		r.URL.RawQuery = "start=" + start
		c, status := FLV(r, nil, size)
		if status != 0 || c.From < 0 || c.To != size || c.From > c.To || c.From > 0 && len(c.Head) != 13 {
			t.Fatalf("start %q size %d: %+v %d", start, size, c, status)
		}
	})
}
