package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "golang.org/x/image/webp" // decodes NGINX's WebP answers

	"github.com/mosaic-edge/mosaic/server"
)

// imageFilterModule is Debian's build of NGINX's image filter
// (libnginx-mod-http-image-filter, which .ci/run installs).
const imageFilterModule = "/usr/lib/nginx/modules/ngx_http_image_filter_module.so"

func imageFilterNGINX(t *testing.T) string {
	t.Helper()
	nginxPath(t)
	if _, err := os.Stat(imageFilterModule); err != nil {
		t.Skip("NGINX's image filter module is not installed (.ci/run installs libnginx-mod-http-image-filter)")
	}
	return "load_module " + imageFilterModule + ";"
}

// imageFiles writes the images the tests ask for into dir.
func imageFiles(t *testing.T, dir string) {
	t.Helper()
	grad := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for y := 0; y < 300; y++ {
		for x := 0; x < 400; x++ {
			grad.Set(x, y, color.RGBA{uint8(x * 255 / 400), uint8(y * 255 / 300), 128, 255})
		}
	}
	var j bytes.Buffer
	if err := jpeg.Encode(&j, grad, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	alpha := image.NewNRGBA(image.Rect(0, 0, 201, 99))
	for i := range alpha.Pix {
		alpha.Pix[i] = uint8(i / 3)
	}
	var p bytes.Buffer
	if err := png.Encode(&p, alpha); err != nil {
		t.Fatal(err)
	}
	pal := image.NewPaletted(image.Rect(0, 0, 150, 90), append(color.Palette{color.RGBA{}}, palette.Plan9[1:]...))
	for i := range pal.Pix {
		if x, y := i%150, i/150; x >= 16 {
			pal.Pix[i] = uint8(1 + (x/10+y/10*15)%200)
		}
	}
	var g bytes.Buffer
	if err := gif.Encode(&g, pal, nil); err != nil {
		t.Fatal(err)
	}
	// A small JPEG with EXIF over 5% of it: NGINX re-encodes it although
	// it fits.
	var small bytes.Buffer
	_ = jpeg.Encode(&small, grad.SubImage(image.Rect(0, 0, 40, 30)), nil)
	app := make([]byte, 4+small.Len()/5)
	app[0], app[1] = 0xff, 0xe1
	binary.BigEndian.PutUint16(app[2:], uint16(len(app)-2))
	exif := append(append(append([]byte{}, small.Bytes()[:2]...), app...), small.Bytes()[2:]...)
	webp, err := os.ReadFile("../../imagefilter/testdata/lossy.webp")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"a.jpg": j.Bytes(), "a.png": p.Bytes(), "a.gif": g.Bytes(), "a.webp": webp, "exif.jpg": exif,
		"trunc.jpg": j.Bytes()[:j.Len()/2], "trunc.png": p.Bytes()[:p.Len()/2], "trunc.gif": g.Bytes()[:200],
		"not.jpg": []byte("this is no image, only some text"), "short.gif": []byte("GIF89a"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type imageAnswer struct {
	status                    int
	contentType, etag, length string
	body                      []byte
}

func getImage(t *testing.T, port int, method, target string, hdr ...string) imageAnswer {
	t.Helper()
	req, _ := http.NewRequest(method, fmt.Sprintf("http://127.0.0.1:%d%s", port, target), nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return imageAnswer{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Etag"),
		resp.Header.Get("Content-Length"), b}
}

// TestImageFilterMatchesNGINX runs NGINX, with its image filter, and
// mosaic on the same files and configuration. Their encoders differ
// (libgd's and Go's), so the bytes of a new image differ: the answers
// must agree on the status, the type, the dimensions of the image and
// whether the ETag is weakened; the size JSON and the answers that keep
// the image as it is must agree byte for byte. A WebP that mosaic
// re-encodes comes out as a JPEG (Go has no WebP encoder): its
// dimensions are compared.
func TestImageFilterMatchesNGINX(t *testing.T) {
	load := imageFilterNGINX(t)
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	if err := os.MkdirAll(www, 0o755); err != nil {
		t.Fatal(err)
	}
	imageFiles(t, www)
	writeFile(t, filepath.Join(www, "fallback.txt"), "fallback\n")
	// The origin sends the files chunked, without a length, so that the
	// buffer's bound is met while reading.
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(filepath.Join(www, filepath.Base(r.URL.Path)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		if r.URL.Query().Has("len") {
			w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		}
		if r.URL.Query().Has("multipart") {
			w.Header().Set("Content-Type", "multipart/x-mixed-replace; boundary=x")
		}
		w.WriteHeader(http.StatusOK)
		for len(b) > 0 {
			n := min(len(b), 1000)
			_, _ = w.Write(b[:n])
			w.(http.Flusher).Flush()
			b = b[n:]
		}
	}))
	t.Cleanup(origin.Close)
	mport, nport := startBothMain(t, dir, load, func(who string, port int) string {
		return fmt.Sprintf(`types { image/jpeg jpg; image/png png; image/gif gif; }
		server {
			listen 127.0.0.1:%d; root %s; send_timeout 1s;
			location /size/ { alias %[2]s/; image_filter size; }
			location /test/ { alias %[2]s/; image_filter test; }
			location /r/ { alias %[2]s/; image_filter resize 100 -; }
			location /fit/ { alias %[2]s/; image_filter resize 1000 1000; }
			location /c/ { alias %[2]s/; image_filter crop 100 100; }
			location /rot90/ { alias %[2]s/; image_filter rotate 90; }
			location /rot180/ { alias %[2]s/; image_filter rotate 180; }
			location /rot270/ { alias %[2]s/; image_filter rotate 270; }
			location /rr/ { alias %[2]s/; image_filter resize 100 100; image_filter rotate 90; }
			location /small/ { alias %[2]s/; image_filter resize 100 100; image_filter_buffer 5k; }
			location /v/ { alias %[2]s/; image_filter resize $arg_w $arg_h; }
			location /q/ { alias %[2]s/; image_filter resize 50 50; image_filter_jpeg_quality $arg_q; }
			location /opaque/ { alias %[2]s/; image_filter resize 75 75; image_filter_transparency off; image_filter_sharpen 50; }
			location /ret/ { image_filter size; return 200 "hello"; }
			location /hdr/ { alias %[2]s/; add_header X-Added 1; image_filter size; }
			location /ep/ { alias %[2]s/; image_filter resize 10 10; error_page 415 /fallback.txt; }
			location = /fallback.txt { }
			location /ep2/ { alias %[2]s/; image_filter resize 10 10; error_page 415 /ep2/a.jpg; }
			location /ep3/ { alias %[2]s/; image_filter size; error_page 404 /fallback.txt; }
			# An error page that is no redirect (a URL), or a redirect that
			# the cycle guard stops, is answered after the filter: it
			# must reach the client.
			location /epurl/ { alias %[2]s/; image_filter test; error_page 415 http://example.com/x; }
			location /eprec/ { alias %[2]s/; image_filter test; recursive_error_pages on; error_page 415 /eprec/not.jpg; }
			# NGINX sometimes holds its answer to a proxied body that it
			# refuses or measures until send_timeout (the server's 1s
			# above keeps the test short).
			location /up/ { proxy_pass http://%[3]s/; image_filter resize 100 100; image_filter_buffer 5k; }
			location /upsize/ { proxy_pass http://%[3]s/; image_filter size; image_filter_buffer 5k; }
			location /upr/ { proxy_pass http://%[3]s/; proxy_force_ranges on; image_filter resize 100 100; }
			location /uptest/ { proxy_pass http://%[3]s/; image_filter test; image_filter_buffer 5k; }
		}`, port, www, origin.Listener.Addr())
	})

	for _, c := range []struct {
		target string
		method string
		hdr    []string
		w, h   int // of the image answered; 0: compare the bodies
	}{
		{target: "/size/a.jpg"}, {target: "/size/a.png"}, {target: "/size/a.gif"}, {target: "/size/a.webp"},
		{target: "/size/not.jpg"}, {target: "/size/trunc.jpg"}, {target: "/size/trunc.png"}, {target: "/size/short.gif"},
		{target: "/size/missing.jpg"}, {target: "/ret/x"}, {target: "/hdr/a.png"}, {target: "/size/a.jpg", method: "HEAD"},
		{target: "/test/a.jpg"}, {target: "/test/a.webp"}, {target: "/test/not.jpg"}, {target: "/test/missing.jpg"},
		{target: "/test/short.gif"},
		{target: "/r/a.jpg", w: 100, h: 75}, {target: "/r/a.png", w: 100, h: 49}, {target: "/r/a.gif", w: 100, h: 60},
		{target: "/r/a.webp", w: 100, h: 66}, {target: "/r/trunc.jpg", w: 100, h: 75}, {target: "/r/trunc.png"},
		{target: "/r/trunc.gif"}, {target: "/r/not.jpg"}, {target: "/r/missing.jpg"},
		{target: "/r/a.jpg", method: "HEAD"},
		{target: "/r/a.jpg", hdr: []string{"Range", "bytes=0-10"}, w: 100, h: 75},
		{target: "/fit/a.jpg"}, {target: "/fit/a.png"}, {target: "/fit/exif.jpg", w: 40, h: 30},
		{target: "/c/a.jpg", w: 100, h: 100}, {target: "/c/a.png", w: 100, h: 99}, {target: "/c/a.gif", w: 100, h: 90},
		{target: "/rot90/a.jpg", w: 300, h: 400}, {target: "/rot180/a.png", w: 201, h: 99}, {target: "/rot270/a.gif", w: 90, h: 150},
		{target: "/rr/a.jpg", w: 75, h: 100},
		{target: "/small/a.jpg"}, {target: "/small/a.png", w: 100, h: 49},
		{target: "/v/a.jpg?w=50&h=0"}, {target: "/v/a.jpg?w=50&h=x"}, {target: "/v/a.jpg?w=%2b5&h=10"},
		{target: "/v/a.jpg?w=-&h=20", w: 26, h: 20}, {target: "/v/a.jpg?w=05&h=1000", w: 5, h: 3},
		{target: "/v/a.png?w=1000&h=1000"},
		{target: "/q/a.jpg?q=0"}, {target: "/q/a.jpg?q=-"}, {target: "/q/a.jpg?q=500", w: 50, h: 37},
		{target: "/q/a.png?q=0", w: 50, h: 24},
		{target: "/opaque/a.gif", w: 75, h: 45}, {target: "/opaque/a.jpg", w: 75, h: 56},
		{target: "/ep/not.jpg"}, {target: "/ep/a.jpg", w: 10, h: 7}, {target: "/ep2/not.jpg"}, {target: "/ep3/missing.jpg"},
		{target: "/epurl/not.jpg"}, {target: "/eprec/not.jpg"},
		{target: "/up/a.png", w: 100, h: 49}, {target: "/up/a.jpg"}, {target: "/up/not.jpg"},
		{target: "/upsize/a.jpg"}, {target: "/upsize/not.jpg"}, {target: "/upsize/a.png"},
		{target: "/uptest/a.jpg"}, {target: "/uptest/not.jpg"},
		{target: "/upr/a.png?len=1", hdr: []string{"Range", "bytes=0-10"}, w: 100, h: 49},
	} {
		method := c.method
		if method == "" {
			method = "GET"
		}
		m := getImage(t, mport, method, c.target, c.hdr...)
		n := getImage(t, nport, method, c.target, c.hdr...)
		what := method + " " + c.target
		if n.contentType == "image/webp" && m.contentType == "image/jpeg" && strings.HasPrefix(c.target, "/r/") {
			// Go has no WebP encoder: an opaque WebP is re-encoded as a
			// JPEG.
			m.contentType = n.contentType
		}
		if m.status != n.status || m.contentType != n.contentType {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", what, m.status, m.contentType, n.status, n.contentType)
			continue
		}
		if strings.HasPrefix(m.etag, "W/") != strings.HasPrefix(n.etag, "W/") || (m.etag == "") != (n.etag == "") {
			t.Errorf("%s: ETag mosaic %q, nginx %q", what, m.etag, n.etag)
		}
		if m.status != http.StatusOK {
			continue
		}
		if method == "HEAD" {
			if len(m.body) != 0 || m.length == "" {
				t.Errorf("%s: mosaic sent %d bytes, Content-Length %q", what, len(m.body), m.length)
			}
			continue
		}
		if c.w == 0 {
			// A proxied body that passes may be chunked by one and
			// counted by the other (proxy buffering): lengths are
			// compared where both give one.
			if !bytes.Equal(m.body, n.body) || m.length != n.length && m.length != "" && n.length != "" {
				t.Errorf("%s: mosaic %q (%s), nginx %q (%s)", what, short(m.body), m.length, short(n.body), n.length)
			}
			continue
		}
		for who, a := range map[string]imageAnswer{"mosaic": m, "nginx": n} {
			cfg, _, err := image.DecodeConfig(bytes.NewReader(a.body))
			if err != nil {
				t.Errorf("%s: %s's image: %v", what, who, err)
			} else if cfg.Width != c.w || cfg.Height != c.h {
				t.Errorf("%s: %s's image is %dx%d, want %dx%d", what, who, cfg.Width, cfg.Height, c.w, c.h)
			}
		}
	}

	// The rotations turn the same way: the corners keep their colors.
	for _, target := range []string{"/rot90/a.jpg", "/rot180/a.png", "/rot270/a.gif", "/rr/a.jpg", "/r/a.gif", "/c/a.gif", "/opaque/a.gif", "/r/a.png", "/c/a.png"} {
		m, _, err1 := image.Decode(bytes.NewReader(getImage(t, mport, "GET", target).body))
		n, _, err2 := image.Decode(bytes.NewReader(getImage(t, nport, "GET", target).body))
		if err1 != nil || err2 != nil {
			t.Errorf("%s: %v, %v", target, err1, err2)
			continue
		}
		b := m.Bounds()
		for _, pt := range []image.Point{{5, 5}, {b.Dx() - 6, 5}, {5, b.Dy() - 6}, {b.Dx() - 6, b.Dy() - 6}} {
			if _, _, _, a := m.At(pt.X, pt.Y).RGBA(); a == 0 && strings.HasSuffix(target, ".gif") {
				// Debian's libgd loses a GIF's transparent color when
				// NGINX resizes or rotates it; mosaic keeps it, as
				// image_filter_transparency says.
				continue
			}
			if !near(m.At(pt.X, pt.Y), n.At(pt.X, pt.Y)) {
				t.Errorf("%s at %v: mosaic %v, nginx %v", target, pt, m.At(pt.X, pt.Y), n.At(pt.X, pt.Y))
			}
		}
	}
}

func short(b []byte) []byte { return b[:min(len(b), 80)] }

// near reports colors within a little of each other, as two encoders'
// pixels are.
func near(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	d := func(x, y uint32) bool { return x-y < 0x2000 || y-x < 0x2000 }
	return d(r1, r2) && d(g1, g2) && d(b1, b2) && d(a1, a2)
}

// TestImageFilterDirectivesAsNGINX gives "nginx -t", with the image
// filter loaded, and mosaic's loader the same lines and compares the
// verdicts and the wording of the errors.
func TestImageFilterDirectivesAsNGINX(t *testing.T) {
	t.Parallel()
	load := imageFilterNGINX(t)
	dir := t.TempDir()
	for i, line := range []string{
		"location / { image_filter off; }",
		"location / { image_filter test; image_filter size; }",
		"location / { image_filter resize 100 -; image_filter rotate 90; }",
		"location / { image_filter crop - -; }",
		"location / { image_filter rotate $arg_a; }",
		"location / { image_filter resize $arg_w 10; }",
		"location / { image_filter foo; }",
		"location / { image_filter rotate 45; }",
		"location / { image_filter rotate -; }",
		"location / { image_filter resize 0 10; }",
		"location / { image_filter resize 10 abc; }",
		"location / { image_filter resize +10 10; }",
		"location / { image_filter resize 10; }",
		"location / { image_filter test extra; }",
		"location / { image_filter a b c d; }",
		"location / { image_filter rotate $nonesuch; }",
		"image_filter size;",
		"location / { if ($arg_x) { image_filter size; } }",
		"image_filter_jpeg_quality 0;",
		"image_filter_jpeg_quality -;",
		"image_filter_jpeg_quality 101; image_filter_jpeg_quality 5;",
		"image_filter_jpeg_quality $arg_q;",
		"image_filter_webp_quality x;",
		"image_filter_sharpen -;",
		"image_filter_sharpen abc;",
		"image_filter_sharpen 0;",
		"image_filter_buffer 1x;",
		"image_filter_buffer 10m;",
		"image_filter_buffer 1k; image_filter_buffer 2k;",
		"image_filter_interlace maybe;",
		"image_filter_interlace on; image_filter_transparency off;",
		"image_filter_transparency off; image_filter_transparency on;",
	} {
		path := filepath.Join(dir, fmt.Sprintf("c%d.conf", i))
		body := "server { listen 127.0.0.1:1;\n" + line + "\n}\n"
		writeFile(t, path, "http {\n"+body+"}\n")
		cfg, merr := server.Load(path)
		if merr == nil {
			cfg.Close()
		}
		npath := filepath.Join(dir, fmt.Sprintf("n%d.conf", i))
		writeFile(t, npath, load+"\nevents {}\nhttp {\n"+body+"}\n")
		out, _ := exec.Command(nginxPath(t), "-t", "-p", dir, "-c", npath, "-e", filepath.Join(dir, "error.log")).CombinedOutput()
		nerr := ""
		if k := strings.Index(string(out), "[emerg] "); k >= 0 {
			nerr = strings.TrimSpace(strings.SplitN(string(out)[k+len("[emerg] "):], "\n", 2)[0])
			nerr = strings.TrimSuffix(nerr, fmt.Sprintf(" in %s:5", npath))
		}
		mmsg := ""
		if merr != nil {
			mmsg = merr.Error()
		}
		if (merr == nil) != (nerr == "") || merr != nil && !strings.Contains(mmsg, nerr) {
			t.Errorf("%q: mosaic %q, nginx %q", line, mmsg, nerr)
		}
		if merr != nil && !strings.Contains(mmsg, path+":") {
			t.Errorf("%q: mosaic's error %q does not name the file and line", line, mmsg)
		}
	}
}
