package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/internal/cbrotli"
)

// TestCompressDictionaryThroughBinary serves big.js to clients that hold
// an older version of it (a dictionary named by compress_dictionary):
// brotli as dcb, zstd as dcz, each decoded with the dictionary (dcb by
// Google's decoder, built by internal/cbrotli: the dcb part is skipped
// without it); add_header gives the older file its Use-As-Dictionary; the
// file's 304 varies on Available-Dictionary as its 200 does; a location
// with "compress_dictionary off" answers br.
func TestCompressDictionaryThroughBinary(t *testing.T) {
	// The dictionary: big.js as it was, before its first 3,000 bytes changed.
	files := siteFiles(t)
	older := append([]byte("/* v1 */"), files["big.js"][3_000:]...)
	dictDir := t.TempDir()
	dictPath := filepath.Join(dictDir, "v1.js")
	if err := os.WriteFile(dictPath, older, 0o644); err != nil {
		t.Fatal(err)
	}
	s := startSite(t, strings.ReplaceAll(`http {
		brotli on;
		brotli_types application/javascript;
		zstd on;
		zstd_types application/javascript;
		gzip_vary on;
		server {
			listen 127.0.0.1:{port};
			root {root};
			compress_dictionary {dict};
			location = /mid.js { add_header Use-As-Dictionary 'match="/*.js"'; }
			location /plain/ { alias {root}/; compress_dictionary off; }
		}
	}`, "{dict}", dictPath))
	hash := sha256.Sum256(older)
	avail := ":" + base64.StdEncoding.EncodeToString(hash[:]) + ":"

	resp, _ := get(t, s.base+"/mid.js", ae, "br")
	if got := resp.Header.Get("Use-As-Dictionary"); got != `match="/*.js"` {
		t.Errorf("Use-As-Dictionary %q", got)
	}
	_, br := s.expect(t, "/big.js", "br", "big.js", ae, "br")

	resp, dcz := get(t, s.base+"/big.js", ae, "zstd, dcz", "Available-Dictionary", avail)
	if ce := resp.Header.Get("Content-Encoding"); ce != "dcz" {
		t.Fatalf("Content-Encoding %q, want dcz", ce)
	}
	if vary := strings.Join(resp.Header["Vary"], ", "); !strings.Contains(vary, "Available-Dictionary") {
		t.Errorf("Vary %q lacks Available-Dictionary", vary)
	}
	if !bytes.Equal(dcz[8:40], hash[:]) {
		t.Fatalf("dcz header % x lacks the dictionary's hash", dcz[:40])
	}
	zr, err := zstd.NewReader(bytes.NewReader(dcz), zstd.WithDecoderDictRaw(0, older), zstd.WithDecoderMaxWindow(128<<20))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	zr.Close()
	if err != nil || !bytes.Equal(got, files["big.js"]) {
		t.Fatalf("dcz decodes to %d bytes (%v), want big.js's %d", len(got), err, len(files["big.js"]))
	}
	if len(dcz)*4 > len(br) {
		t.Errorf("dcz %d bytes, br %d: the dictionary was not used", len(dcz), len(br))
	}

	// The file server's 304 varies as its 200 does.
	resp, _ = get(t, s.base+"/big.js", ae, "br, dcb", "Available-Dictionary", avail, "If-None-Match", s.etagOf(t, "big.js"))
	if vary := strings.Join(resp.Header["Vary"], ", "); resp.StatusCode != 304 || vary != "Accept-Encoding, Available-Dictionary" {
		t.Errorf("conditional GET: status %d, Vary %q", resp.StatusCode, vary)
	}

	// compress_dictionary off: br, though the client holds the dictionary.
	s.expect(t, "/plain/big.js", "br", "big.js", ae, "br, dcb", "Available-Dictionary", avail)

	resp, dcb := get(t, s.base+"/big.js", ae, "br, zstd, dcb, dcz", "Available-Dictionary", avail)
	if ce := resp.Header.Get("Content-Encoding"); ce != "dcb" {
		t.Fatalf("Content-Encoding %q, want dcb", ce)
	}
	if !bytes.Equal(dcb[:4], []byte{0xff, 0x44, 0x43, 0x42}) || !bytes.Equal(dcb[4:36], hash[:]) {
		t.Fatalf("dcb header % x", dcb[:36])
	}
	path, err := cbrotli.Decoder()
	if err != nil {
		t.Skipf("no C decoder with dictionaries: %v", err)
	}
	got, err = cbrotli.Decode(path, t.TempDir(), dcb[36:], older)
	if err != nil || !bytes.Equal(got, files["big.js"]) {
		t.Fatalf("dcb decodes to %d bytes (%v), want big.js's %d", len(got), err, len(files["big.js"]))
	}
}

// "mosaic -t" names the file and line of a dictionary it cannot use.
func TestCompressDictionaryConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.dict")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// One byte over the bound: read no further than that.
	huge := filepath.Join(dir, "huge.dict")
	if err := os.WriteFile(huge, make([]byte, 16<<20+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ directive, want string }{
		{"compress_dictionary " + filepath.Join(dir, "missing.dict") + ";", `cannot read "` + filepath.Join(dir, "missing.dict") + `": no such file or directory`},
		{"compress_dictionary " + empty + ";", "empty dictionary"},
		{"compress_dictionary " + huge + ";", "dictionary over 16777216 bytes"},
		{"compress_dictionary off; compress_dictionary " + empty + ";", `"off" must be alone at its level`},
	} {
		path := filepath.Join(dir, "t.conf")
		conf := "http {\n  server {\n    listen 127.0.0.1:1;\n    " + c.directive + "\n  }\n}\n"
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) || !strings.Contains(string(out), path+":4") {
			t.Errorf("%s: %v %q, want %q at %s:4", c.directive, err, out, c.want, path)
		}
	}
}
