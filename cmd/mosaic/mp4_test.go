package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testmp4"
)

// TestMP4MatchesNGINX compares the mp4 module with Debian's NGINX on the
// same generated files (moov after or before mdat, 32- and 64-bit chunk
// offsets, version 1 headers), headers and bodies byte for byte: starts
// and ends in whole seconds and fractions, 0, past the duration, an end
// before the start, arguments that do not parse, mp4_start_key_frame,
// mp4_max_buffer_size too small for moov, buffer sizes of 0, files cut
// short, a file that is not MP4, HEAD, conditional requests and ranges
// of the cut file; arguments percent-encoded, repeated or with "+" and
// ";", read raw as NGINX reads them; a symbolic link under
// disable_symlinks (on, if_not_owner with open_file_cache) and a
// location with gzip_static, whose .gz file mp4 does not send.
func TestMP4MatchesNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	mtime := time.Unix(1600000000, 0)
	files := map[string][]byte{
		"v/end.mp4":   testmp4.Build(testmp4.Options{}),
		"v/first.mp4": testmp4.Build(testmp4.Options{MoovFirst: true}),
		"v/co64.mp4":  testmp4.Build(testmp4.Options{Co64: true, Version1: true}),
		"v/text.mp4":  []byte("this is not an MP4 file at all, only text\n"),
	}
	// Cut short: inside moov (at the end), inside mdat (after moov).
	files["v/trunc-moov.mp4"] = files["v/end.mp4"][:len(files["v/end.mp4"])-100]
	files["v/trunc-mdat.mp4"] = files["v/first.mp4"][:len(files["v/first.mp4"])/2]
	for name, data := range files {
		writeFile(t, filepath.Join(root, name), string(data))
		if err := os.Chtimes(filepath.Join(root, name), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("first.mp4", filepath.Join(root, "v/link.mp4")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "v/first.mp4.gz"), "gzipped")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`types { video/mp4 mp4; }
		server {
			listen 127.0.0.1:%d; root %s;
			location /v/ { mp4; }
			location /key/ { mp4; mp4_start_key_frame on; alias %[2]s/v/; }
			location /small/ { mp4; mp4_max_buffer_size 1k; mp4_buffer_size 1k; alias %[2]s/v/; }
			location /sym/ { mp4; disable_symlinks on; alias %[2]s/v/; }
			location /symo/ { mp4; disable_symlinks if_not_owner; open_file_cache max=10; alias %[2]s/v/; }
			location /symn/ { mp4; disable_symlinks if_not_owner; alias %[2]s/v/; }
			location /gz/ { mp4; gzip_static on; alias %[2]s/v/; }
			location /zero/ { mp4; mp4_max_buffer_size 0; mp4_buffer_size 0; alias %[2]s/v/; }
		}`, port, root)
	})
	args := []string{
		"", "start=0", "start=1", "start=1.5", "start=2.25", "start=0.04", "start=4.999", "start=9.5",
		"start=9.99", "start=10", "start=11", "start=100", "start=1&end=3", "start=2.3&end=2.7",
		"start=0&end=5", "end=5", "end=0", "start=5&end=3", "start=3&end=3", "start=1&end=100",
		"start=x", "start=", "start=1..2", "start=-1", "end=x", "start=1.23456789", "START=2",
		"start=0.001&end=0.002", "start=6&end=9.99", "start=7.77&end=8.88",
	}
	// A grid of starts and ends across the 9.56 s of video (and 9.98 s
	// of audio), landing inside chunks, on chunk and key-frame bounds,
	// and past the ends.
	for ms := 0; ms <= 10400; ms += 613 {
		args = append(args, fmt.Sprintf("start=%d.%03d", ms/1000, ms%1000))
		for _, d := range []int{1, 40, 387, 2500} {
			e := ms + d
			args = append(args, fmt.Sprintf("start=%d.%03d&end=%d.%03d", ms/1000, ms%1000, e/1000, e%1000))
		}
	}
	for _, name := range []string{"end.mp4", "first.mp4", "co64.mp4"} {
		for _, loc := range []string{"/v/", "/key/"} {
			for _, a := range args {
				sameFull(t, mport, nport, "GET "+loc+name+"?"+a+" HTTP/1.1\r\nHost: a.test")
			}
		}
		for _, a := range []string{"start=2", "", "start=0"} {
			sameFull(t, mport, nport, "GET /small/"+name+"?"+a+" HTTP/1.1\r\nHost: a.test")
			sameFull(t, mport, nport, "GET /zero/"+name+"?"+a+" HTTP/1.1\r\nHost: a.test")
		}
	}
	for _, h := range []string{
		"GET /v/trunc-moov.mp4?start=1 HTTP/1.1",
		"GET /v/trunc-mdat.mp4?start=1 HTTP/1.1",
		"GET /v/trunc-mdat.mp4?start=0 HTTP/1.1",
		"GET /v/text.mp4?start=1 HTTP/1.1",
		"GET /v/text.mp4 HTTP/1.1",
		"HEAD /v/end.mp4?start=2 HTTP/1.1",
		"POST /v/end.mp4?start=2 HTTP/1.1\r\nContent-Length: 0",
		"GET /v/end.mp4?start=2 HTTP/1.1\r\nIf-Modified-Since: Sun, 13 Sep 2020 12:26:40 GMT",
		"GET /v/text.mp4?start=2 HTTP/1.1\r\nIf-Modified-Since: Sun, 13 Sep 2020 12:26:40 GMT",
		"GET /v/end.mp4?start=2 HTTP/1.1\r\nRange: bytes=10-200",
		"GET /v/end.mp4?start=2 HTTP/1.1\r\nRange: bytes=0-1,5-9",
		"GET /v/end.mp4 HTTP/1.1\r\nRange: bytes=0-1,5-9",
		"GET /v/first.mp4?start=0 HTTP/1.1\r\nRange: bytes=0-1,5-9",
		"GET /v/end.mp4?start=%32 HTTP/1.1",
		"GET /v/end.mp4?start=2&start=3 HTTP/1.1",
		"GET /v/end.mp4?start=2+ HTTP/1.1",
		"GET /v/end.mp4?start=+2 HTTP/1.1",
		"GET /v/end.mp4?start=2;x HTTP/1.1",
		"GET /v/end.mp4?start=2%2e5 HTTP/1.1",
		"GET /v/end.mp4?end=%35 HTTP/1.1",
		"GET /v/end.mp4?x=1&START=2&End=4 HTTP/1.1",
		"GET /v/end.mp4?start=2&end=4&end=6 HTTP/1.1",
		"GET /v/end.mp4?start=2 HTTP/1.1\r\nRange: bytes=-100",
		"GET /v/end.mp4?start=2 HTTP/1.1\r\nRange: bytes=100000000-",
		"GET /v/first.mp4?start=2 HTTP/1.1\r\nRange: bytes=10-20\r\nIf-Range: Sun, 13 Sep 2020 12:26:40 GMT",
		"GET /v/first.mp4?start=2 HTTP/1.1\r\nRange: bytes=10-20\r\nIf-Range: Sun, 13 Sep 2020 12:26:41 GMT",
		"HEAD /v/text.mp4?start=2 HTTP/1.1",
		"HEAD /v/first.mp4?start=2&end=3 HTTP/1.1\r\nRange: bytes=5-10",
		"GET /v/first.mp4?start=2 HTTP/1.1\r\nIf-None-Match: *",
		"GET /v/first.mp4?start=2 HTTP/1.1\r\nIf-Match: \"x\"",
		"GET /v/first.mp4?start=2 HTTP/1.1\r\nIf-Unmodified-Since: Sun, 13 Sep 2020 12:26:39 GMT",
		"GET /v/ HTTP/1.1",
		"GET /sym/link.mp4?start=2 HTTP/1.1",
		"GET /sym/link.mp4 HTTP/1.1",
		"GET /symo/link.mp4?start=2 HTTP/1.1",
		"GET /v/link.mp4?start=2 HTTP/1.1",
		"GET /symn/link.mp4?start=2 HTTP/1.1",
		"GET /symn/link.mp4 HTTP/1.1",
		"GET /symo/link.mp4 HTTP/1.1",
		"GET /gz/first.mp4?start=2 HTTP/1.1\r\nAccept-Encoding: gzip",
		"GET /gz/first.mp4 HTTP/1.1\r\nAccept-Encoding: gzip",
		"HEAD /gz/first.mp4 HTTP/1.1\r\nAccept-Encoding: gzip",
		"GET /v HTTP/1.1",
		"GET /v/missing.mp4?start=2 HTTP/1.1",
		"GET /v/trunc-moov.mp4?start=0 HTTP/1.1",
		"GET /v/trunc-moov.mp4?end=1 HTTP/1.1",
	} {
		sameFull(t, mport, nport, h+"\r\nHost: a.test")
	}

	// The cut is a cut: an MP4 file shorter than the original, its moov
	// box rebuilt and its mdat the bytes of the samples kept.
	for name, data := range files {
		if name == "v/text.mp4" || strings.HasPrefix(name, "v/trunc") {
			continue
		}
		resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), "GET /"+name+"?start=2&end=5 HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
		if resp.StatusCode != 200 || len(body) >= len(data) || body[4:8] != "ftyp" || !strings.Contains(body[:400], "moov") {
			t.Errorf("%s: %d, %d bytes of %d", name, resp.StatusCode, len(body), len(data))
		}
	}
}
