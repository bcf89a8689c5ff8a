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
	"strings"
	"testing"
)

// bombFiles writes small images whose headers claim huge pictures: a PNG
// of 60000 x 60000 whose pixel data is a few bytes, GIFs whose screen is
// 65535 x 65535 around a 1 x 1 frame and around a 300 x 200 one, and a
// JPEG whose frame header says 65500 x 65500; and a GIF whose 150 x 100
// frame stands at (10, 20) in a 200 x 150 screen.
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

	screenGIF := func(sw, sh int, r image.Rectangle) []byte {
		pm := image.NewPaletted(r, color.Palette{color.Black, color.White, color.RGBA{255, 0, 0, 255}})
		for i := range pm.Pix {
			pm.Pix[i] = uint8(i % 3)
		}
		var g bytes.Buffer
		if err := gif.EncodeAll(&g, &gif.GIF{Image: []*image.Paletted{pm}, Delay: []int{0},
			Config: image.Config{Width: r.Max.X, Height: r.Max.Y, ColorModel: pm.Palette}}); err != nil {
			t.Fatal(err)
		}
		binary.LittleEndian.PutUint16(g.Bytes()[6:], uint16(sw))
		binary.LittleEndian.PutUint16(g.Bytes()[8:], uint16(sh))
		return g.Bytes()
	}

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
	for name, b := range map[string][]byte{"bomb.png": p, "bomb.jpg": jb,
		"bomb.gif":  screenGIF(0xffff, 0xffff, image.Rect(0, 0, 1, 1)),
		"frame.gif": screenGIF(0xffff, 0xffff, image.Rect(0, 0, 300, 200)),
		"part.gif":  screenGIF(200, 150, image.Rect(10, 20, 160, 120)),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestImageFilterAttackBombsAsNGINX (audit10): the bombs above are
// answered as NGINX with libgd answers them: their size from the header
// alone, their test passed as they are, and a resize, crop or rotation
// of the PNG and JPEG refused with 415, which mosaic decides from the
// header before any pixel is decoded (DefaultMaxPixels). libgd's image
// of a GIF is its first frame, not its screen (fidelity16): the 1 x 1
// frame fits 100 x 100 and is sent as it is, or rotated as 1 x 1; the
// others are shrunk, cut or turned by their frame's size. A new image's
// bytes are libgd's or Go's: its type and dimensions are compared.
// image_filter_buffer weighs the body, not the picture it claims: the
// 41-byte GIF passes 100 bytes, the others are 415.
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
			location /buf/ { alias %[2]s/; image_filter resize 100 100; image_filter_buffer 100; }
		}`, port, www)
	})
	for _, loc := range []string{"size", "test", "r", "c", "rot", "buf"} {
		for _, f := range []string{"bomb.png", "bomb.gif", "bomb.jpg", "frame.gif", "part.gif"} {
			target := "/" + loc + "/" + f
			m, n := getImage(t, mport, "GET", target), getImage(t, nport, "GET", target)
			if m.status != n.status || m.contentType != n.contentType || m.etag != n.etag {
				t.Errorf("%s: mosaic %d %s %s %q, nginx %d %s %s %q", target, m.status, m.contentType, m.etag, trim(m.body),
					n.status, n.contentType, n.etag, trim(n.body))
				continue
			}
			if m.status != 200 {
				continue
			}
			if strings.HasPrefix(n.etag, "W/") { // a new image
				mc, _, merr := image.DecodeConfig(bytes.NewReader(m.body))
				nc, _, nerr := image.DecodeConfig(bytes.NewReader(n.body))
				if merr != nil || nerr != nil || mc.Width != nc.Width || mc.Height != nc.Height {
					t.Errorf("%s: mosaic %dx%d (%v), nginx %dx%d (%v)", target, mc.Width, mc.Height, merr, nc.Width, nc.Height, nerr)
				}
			} else if !bytes.Equal(m.body, n.body) {
				t.Errorf("%s: mosaic %q, nginx %q", target, trim(m.body), trim(n.body))
			}
		}
	}
}

func trim(b []byte) []byte { return b[:min(len(b), 80)] }
