package main

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
)

// bombFiles writes small images whose headers claim huge pictures: a PNG
// of 60000 x 60000 whose pixel data is a few bytes, a GIF whose screen is
// 65535 x 65535 around a 1 x 1 frame, and a JPEG whose frame header says
// 65500 x 65500.
func bombFiles(t *testing.T, dir string) {
	t.Helper()
	chunk := func(b []byte, typ string, data []byte) []byte {
		b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
		c := append([]byte(typ), data...)
		b = append(b, c...)
		return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(c))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, 60000)
	ihdr = binary.BigEndian.AppendUint32(ihdr, 60000)
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8-bit RGBA
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, 1<<16)) // the first rows, compressed to little
	zw.Close()
	p := chunk([]byte("\x89PNG\r\n\x1a\n"), "IHDR", ihdr)
	p = chunk(p, "IDAT", z.Bytes())
	p = chunk(p, "IEND", nil)

	var g bytes.Buffer
	if err := gif.Encode(&g, image.NewPaletted(image.Rect(0, 0, 1, 1), color.Palette{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	gb := g.Bytes()
	binary.LittleEndian.PutUint16(gb[6:], 0xffff)
	binary.LittleEndian.PutUint16(gb[8:], 0xffff)

	var j bytes.Buffer
	if err := jpeg.Encode(&j, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	jb := j.Bytes()
	sof := bytes.Index(jb, []byte{0xff, 0xc0})
	if sof < 0 {
		t.Fatal("no SOF0 in Go's JPEG")
	}
	binary.BigEndian.PutUint16(jb[sof+5:], 65500)
	binary.BigEndian.PutUint16(jb[sof+7:], 65500)
	for name, b := range map[string][]byte{"bomb.png": p, "bomb.gif": gb, "bomb.jpg": jb} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestImageFilterAttackBombsAsNGINX (audit10): the bombs above are
// answered as NGINX with libgd answers them: their size from the header
// alone, their test passed as they are, and a resize, crop or rotation
// refused with 415, which mosaic decides from the header before any
// pixel is decoded (DefaultMaxPixels). The GIF differs: see below.
func TestImageFilterAttackBombsAsNGINX(t *testing.T) {
	load := imageFilterNGINX(t)
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	if err := os.MkdirAll(www, 0o755); err != nil {
		t.Fatal(err)
	}
	bombFiles(t, www)
	mport, nport := startBothMain(t, dir, load, func(who string, port int) string {
		return fmt.Sprintf(`types { image/jpeg jpg; image/png png; image/gif gif; }
		server {
			listen 127.0.0.1:%d; root %s;
			location /size/ { alias %[2]s/; image_filter size; }
			location /test/ { alias %[2]s/; image_filter test; }
			location /r/ { alias %[2]s/; image_filter resize 100 100; }
			location /c/ { alias %[2]s/; image_filter crop 100 100; }
			location /rot/ { alias %[2]s/; image_filter rotate 90; }
		}`, port, www)
	})
	for _, loc := range []string{"size", "test", "r", "c", "rot"} {
		for _, f := range []string{"bomb.png", "bomb.gif", "bomb.jpg"} {
			target := "/" + loc + "/" + f
			m, n := getImage(t, mport, "GET", target), getImage(t, nport, "GET", target)
			if f == "bomb.gif" && loc != "size" && loc != "test" {
				// libgd decodes the 1 x 1 frame alone and NGINX answers
				// 200; mosaic's image is the screen, 4 G pixels, which
				// it refuses before decoding (the README says so).
				if m.status != 415 {
					t.Errorf("%s: mosaic %d, want 415", target, m.status)
				}
				continue
			}
			if m.status != n.status || m.contentType != n.contentType || m.status == 200 && !bytes.Equal(m.body, n.body) {
				t.Errorf("%s: mosaic %d %s %q, nginx %d %s %q", target, m.status, m.contentType, trim(m.body), n.status, n.contentType, trim(n.body))
			}
		}
	}
}

func trim(b []byte) []byte { return b[:min(len(b), 80)] }
