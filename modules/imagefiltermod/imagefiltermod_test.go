package imagefiltermod_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/mosaic-edge/mosaic/modules/staticmod"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// TestDirectivesMerge: the mode travels with its arguments, "rotate"
// adds its angle to a resize of the same location in either order, the
// qualities are inherited from the levels above, and error_page catches
// the filter's 415.
func TestDirectivesMerge(t *testing.T) {
	dir := t.TempDir()
	m := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for i := range m.Pix {
		m.Pix[i] = uint8(i * 7)
	}
	m.Set(0, 0, color.White)
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{"a.jpg": b.Bytes(), "not.jpg": []byte("no image here, only text"), "fallback.txt": []byte("fallback\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := servertest.Start(t, fmt.Sprintf(`http { server { listen 127.0.0.1:0; root %s;
		image_filter_jpeg_quality 5;
		location /size/ { alias %[1]s/; image_filter size; location /size/in/ { alias %[1]s/; } }
		location /rr/ { alias %[1]s/; image_filter resize 100 100; image_filter rotate 90; }
		location /rr2/ { alias %[1]s/; image_filter rotate 90; image_filter resize 50 50; }
		location /low/ { alias %[1]s/; image_filter resize 200 200; }
		location /high/ { alias %[1]s/; image_filter resize 200 200; image_filter_jpeg_quality 95; }
		location /off/ { alias %[1]s/; image_filter resize 10 10; image_filter off; }
		location /ep/ { alias %[1]s/; image_filter resize 10 10; error_page 415 /fallback.txt; }
	} }`, dir))
	get := func(path string) (int, string, []byte) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), body
	}
	for _, path := range []string{"/size/a.jpg", "/size/in/a.jpg"} {
		if code, ct, body := get(path); code != 200 || ct != "application/json" ||
			string(body) != `{ "img" : { "width": 400, "height": 300, "type": "jpeg" } }`+"\r\n" {
			t.Errorf("%s: %d %s %q", path, code, ct, body)
		}
	}
	for path, want := range map[string]image.Point{"/rr/a.jpg": {75, 100}, "/rr2/a.jpg": {37, 50}, "/low/a.jpg": {200, 150}} {
		_, _, body := get(path)
		c, err := jpeg.DecodeConfig(bytes.NewReader(body))
		if err != nil || c.Width != want.X || c.Height != want.Y {
			t.Errorf("%s: %dx%d (%v), want %v", path, c.Width, c.Height, err, want)
		}
	}
	_, _, low := get("/low/a.jpg")
	_, _, high := get("/high/a.jpg")
	if len(low)*2 > len(high) {
		t.Errorf("the server's quality 5 gives %d bytes, quality 95 %d", len(low), len(high))
	}
	if _, _, body := get("/off/a.jpg"); !bytes.Equal(body, b.Bytes()) {
		t.Error("image_filter off filtered")
	}
	// The filter's 415 goes to the location's error_page, as in NGINX.
	if code, _, body := get("/ep/not.jpg"); code != http.StatusUnsupportedMediaType || string(body) != "fallback\n" {
		t.Errorf("error_page 415: %d %q", code, body)
	}
}

func TestDirectiveErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{"location / { image_filter rotate 45; }", `invalid parameter "45" in test.conf:1`},
		{"location / { image_filter resize 0 1; }", `invalid parameter "0"`},
		{"location / { image_filter crop 1 $nonesuch; }", `unknown "nonesuch" variable`},
		{"image_filter size;", `"image_filter" directive is not allowed here`},
		{"image_filter_jpeg_quality -;", `invalid value "-"`},
		{"image_filter_sharpen -;", `invalid value "-"`},
		{"image_filter_buffer 1q;", `"image_filter_buffer" directive invalid value`},
		{"image_filter_interlace on; image_filter_interlace off;", `"image_filter_interlace" directive is duplicate`},
	} {
		servertest.WantError(t, "http { server { listen 127.0.0.1:0; "+c.conf+" } }", c.want)
	}
}
