package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testmp4"
)

// TestMP4AttackMatchesNGINX (audit10): files whose tables lie about their
// counts and sizes, and start/end arguments at the edges of the integer
// range, answered byte for byte as Debian's NGINX answers them.
func TestMP4AttackMatchesNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	good := testmp4.Build(testmp4.Options{MoovFirst: true})
	// patch sets the 4 bytes at the offset of the first typ box plus at.
	patch := func(typ string, at int, v uint32) []byte {
		b := bytes.Clone(good)
		i := bytes.Index(b, []byte(typ))
		if i < 4 {
			t.Fatalf("no %s box", typ)
		}
		binary.BigEndian.PutUint32(b[i+at:], v)
		return b
	}
	files := map[string][]byte{
		"stco-count.mp4":  patch("stco", 8, 0xffffffff),
		"stts-count.mp4":  patch("stts", 8, 0x1fffffff),
		"stts-delta0.mp4": patch("stts", 16, 0),
		"stsc-count.mp4":  patch("stsc", 8, 0x7fffffff),
		"stsc-chunk0.mp4": patch("stsc", 12, 0),
		"stsz-count.mp4":  patch("stsz", 12, 0xffffffff),
		"stss-zero.mp4":   patch("stss", 12, 0),
		"mdhd-scale0.mp4": patch("mdhd", 16, 0),
		"mvhd-scale0.mp4": patch("mvhd", 16, 0),
		"trak-huge.mp4":   patch("trak", -4, 0xfffffff0),
		"moov-1.mp4":      patch("moov", -4, 1),
	}
	for name, data := range files {
		writeFile(t, filepath.Join(root, "v", name), string(data))
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`types { video/mp4 mp4; }
		server { listen 127.0.0.1:%d; root %s; location /v/ { mp4; } }`, port, root)
	})
	for name := range files {
		for _, a := range []string{"start=1", "start=0&end=2", "start=2.5&end=3"} {
			sameFull(t, mport, nport, "GET /v/"+name+"?"+a+" HTTP/1.1\r\nHost: a.test")
		}
	}
	writeFile(t, filepath.Join(root, "v/good.mp4"), string(good))
	for _, a := range []string{
		"start=9223372036854775.807", "start=9223372036854775.808", "start=18446744073709551.616",
		"end=9223372036854775.807", "start=1&end=9223372036854775.807", "start=0.0000000000000000001",
		"start=00000000000000000000000001", "start=1&end=18446744073709551615",
	} {
		sameFull(t, mport, nport, "GET /v/good.mp4?"+a+" HTTP/1.1\r\nHost: a.test")
	}
}
