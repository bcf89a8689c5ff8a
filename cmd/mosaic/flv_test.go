package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// flvFile is a small FLV file: the header, then script, audio and video
// tags with their PreviousTagSize fields, as an encoder writes them.
func flvFile() []byte {
	var b bytes.Buffer
	b.WriteString("FLV\x01\x05\x00\x00\x00\x09\x00\x00\x00\x00")
	for i := 0; i < 40; i++ {
		typ := []byte{8, 9}[i%2] // audio, video
		if i == 0 {
			typ = 18 // script data
		}
		data := bytes.Repeat([]byte{byte(i)}, 20+i*7)
		tag := []byte{typ, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
		tag[1], tag[2], tag[3] = byte(len(data)>>16), byte(len(data)>>8), byte(len(data))
		ts := uint32(i * 40)
		tag[4], tag[5], tag[6], tag[7] = byte(ts>>16), byte(ts>>8), byte(ts), byte(ts>>24)
		b.Write(tag)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, uint32(len(tag)+len(data)))
	}
	return b.Bytes()
}

// sameFull sends a request to both servers and reports where the status,
// the body or one of the fields of a file's answer differ.
func sameFull(t *testing.T, mport, nport int, head string) {
	t.Helper()
	req := head + "\r\nConnection: close\r\n\r\n"
	sig := func(port int) string {
		r, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
		s := fmt.Sprint(r.StatusCode)
		for _, k := range []string{"X-If", "Content-Type", "Etag", "Last-Modified", "Accept-Ranges", "Content-Range", "Allow"} {
			s += fmt.Sprintf(" %s=%q", k, r.Header.Values(k))
		}
		s += fmt.Sprintf(" Location=%q", strings.Replace(r.Header.Get("Location"), fmt.Sprint(port), "PORT", 1))
		if r.StatusCode != http.StatusOK && r.StatusCode != http.StatusPartialContent {
			return s // error pages name the server
		}
		return s + fmt.Sprintf(" Content-Length=%q body=%q", r.Header.Values("Content-Length"), body)
	}
	if m, n := sig(mport), sig(nport); m != n {
		t.Errorf("%q:\nmosaic %s\nnginx  %s", head, m, n)
	}
}

// TestFLVMatchesNGINX compares the flv module with Debian's NGINX on the
// same file: starts inside the file, at 0, at and past its end, not a
// number, with a sign, overflowing, an empty value, the argument's name
// in capitals or after another argument, HEAD and other methods, the
// conditional requests (the ETag is the cut body's), ranges of the cut
// body, a directory, a missing file, an "if" block that inherits "flv"
// and a nested location that does not.
func TestFLVMatchesNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	data := flvFile()
	writeFile(t, filepath.Join(root, "v/clip.flv"), string(data))
	writeFile(t, filepath.Join(root, "v/plain/p.flv"), string(data))
	writeFile(t, filepath.Join(root, "v/sub/index.html"), "index")
	mtime := time.Unix(1600000000, 0)
	for _, name := range []string{"v/clip.flv", "v/plain/p.flv"} {
		if err := os.Chtimes(filepath.Join(root, name), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`types { video/x-flv flv; text/html html; }
		server {
			listen 127.0.0.1:%d; root %s;
			location /v/ { flv; if ($arg_x) { add_header X-If 1; } location /v/plain/ { } }
			location /noranges/ { flv; max_ranges 0; alias %[2]s/v/; }
		}`, port, root)
	})
	size := len(data)
	lm := "Sun, 13 Sep 2020 12:26:40 GMT"
	starts := []string{
		"1", "13", "100", "999", fmt.Sprint(size - 1), fmt.Sprint(size), fmt.Sprint(size + 1),
		"0", "00", "-1", "+5", "1.5", "5x", "", "%31", "9223372036854775807", "9223372036854775808",
		"99999999999999999999",
	}
	var heads []string
	for _, s := range starts {
		heads = append(heads, "GET /v/clip.flv?start="+s+" HTTP/1.1")
	}
	heads = append(heads,
		"GET /v/clip.flv HTTP/1.1",
		"GET /v/clip.flv?START=100 HTTP/1.1",
		"GET /v/clip.flv?a=1&start=100&start=200 HTTP/1.1",
		"GET /v/clip.flv?xstart=100 HTTP/1.1",
		"GET /v/clip.flv?start HTTP/1.1",
		"HEAD /v/clip.flv?start=100 HTTP/1.1",
		"POST /v/clip.flv?start=100 HTTP/1.1\r\nContent-Length: 0",
		"POST /v/missing.flv HTTP/1.1\r\nContent-Length: 0",
		"DELETE /v/sub/ HTTP/1.1",
		"GET /v/missing.flv?start=100 HTTP/1.1",
		"GET /v/sub HTTP/1.1",
		"GET /v/sub/ HTTP/1.1",
		"GET /v/plain/p.flv?start=100 HTTP/1.1",
		"GET /v/clip.flv?start=100&x=1 HTTP/1.1",
		"GET /v/clip.flv?start=100 HTTP/1.1\r\nIf-Modified-Since: "+lm,
		"GET /v/clip.flv?start=100 HTTP/1.1\r\nIf-None-Match: \"5f5e1000-"+fmt.Sprintf("%x", 13+size-100)+"\"",
		"GET /v/clip.flv?start=100 HTTP/1.1\r\nIf-None-Match: \"5f5e1000-"+fmt.Sprintf("%x", size)+"\"",
		"GET /v/clip.flv?start=100 HTTP/1.1\r\nIf-Match: \"nope\"",
		"GET /v/clip.flv?start=100 HTTP/1.1\r\nRange: bytes=0-5",
		"GET /v/clip.flv?start=100 HTTP/1.1\r\nRange: bytes=5-30",
		"GET /v/clip.flv?start=100 HTTP/1.1\r\nRange: bytes=20-",
		"GET /v/clip.flv?start=100 HTTP/1.1\r\nRange: bytes=-7",
		"GET /v/clip.flv?start=100 HTTP/1.1\r\nRange: bytes=99999-",
		"GET /v/clip.flv?start=100 HTTP/1.1\r\nRange: bytes=5-30\r\nIf-Range: "+lm,
		"GET /v/clip.flv?start=100 HTTP/1.1\r\nRange: bytes=5-30\r\nIf-Range: Sun, 13 Sep 2020 12:26:41 GMT",
		"GET /noranges/clip.flv?start=100 HTTP/1.1\r\nRange: bytes=5-30",
	)
	for _, h := range heads {
		sameFull(t, mport, nport, h+"\r\nHost: a.test")
	}

	// What the cut body is, read from mosaic: the header, then the file
	// from the offset.
	_, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), "GET /v/clip.flv?start=100 HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
	if want := "FLV\x01\x05\x00\x00\x00\x09\x00\x00\x00\x00" + string(data[100:]); body != want {
		t.Errorf("start=100: %d bytes, want %d", len(body), len(want))
	}
}
