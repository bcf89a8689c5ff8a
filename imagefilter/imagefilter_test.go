package imagefilter

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/image/webp"
)

// gradient is w x h with red growing to the right and green downwards,
// so that a rotation shows in its corners.
func gradient(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	return m
}

func jpegOf(t testing.TB, w, h int) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, gradient(w, h), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngOf(t testing.TB, w, h int) []byte {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = uint8(i)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gifOf is a palette image whose 16 left columns are transparent.
func gifOf(t testing.TB, w, h int) []byte {
	pal := append(color.Palette{color.RGBA{}}, palette.Plan9[1:]...)
	m := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	for y := 0; y < h; y++ {
		for x := 16; x < w; x++ {
			m.SetColorIndex(x, y, uint8(1+(x/8+y/8)%200))
		}
	}
	var b bytes.Buffer
	if err := gif.Encode(&b, m, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readFile(t testing.TB, name string) []byte {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dims(t *testing.T, b []byte) (int, int, string) {
	t.Helper()
	c, f, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("output does not decode: %v", err)
	}
	return c.Width, c.Height, f
}

func init() { image.RegisterFormat("webp", "RIFF????WEBPVP8", webp.Decode, webp.DecodeConfig) }

func TestDetectAndSizeJSON(t *testing.T) {
	for _, c := range []struct {
		body []byte
		want string
	}{
		{jpegOf(t, 400, 300), `{ "img" : { "width": 400, "height": 300, "type": "jpeg" } }` + "\r\n"},
		{pngOf(t, 201, 99), `{ "img" : { "width": 201, "height": 99, "type": "png" } }` + "\r\n"},
		{gifOf(t, 150, 90), `{ "img" : { "width": 150, "height": 90, "type": "gif" } }` + "\r\n"},
		{readFile(t, "lossy.webp"), `{ "img" : { "width": 150, "height": 100, "type": "webp" } }` + "\r\n"},
		{readFile(t, "alpha.webp"), `{ "img" : { "width": 75, "height": 100, "type": "webp" } }` + "\r\n"},
		{[]byte("GIF89a"), "{}\r\n"}, // shorter than 16 bytes
		{[]byte("this is not an image, only text"), "{}\r\n"},
		{append([]byte{0xff, 0xd8}, make([]byte, 30)...), "{}\r\n"}, // a JPEG without a frame header
	} {
		if got := string(SizeJSON(c.body)); got != c.want {
			t.Errorf("%q: %q, want %q", c.body[:6], got, c.want)
		}
	}
}

// TestDimensionsForcesJPEGWithLargeAppData: EXIF beyond 5% of the file
// makes NGINX re-encode an image that fits, to strip it.
func TestDimensionsForcesJPEGWithLargeAppData(t *testing.T) {
	small := jpegOf(t, 40, 30)
	app := make([]byte, 4+len(small)/10)
	app[0], app[1] = 0xff, 0xe1
	binary.BigEndian.PutUint16(app[2:], uint16(len(app)-2))
	withExif := append(append(append([]byte{}, small[:2]...), app...), small[2:]...)
	if _, _, force, ok := Dimensions(small, JPEG); !ok || force {
		t.Fatalf("plain JPEG: force %v ok %v", force, ok)
	}
	w, h, force, ok := Dimensions(withExif, JPEG)
	if !ok || !force || w != 40 || h != 30 {
		t.Fatalf("JPEG with EXIF: %dx%d force %v ok %v", w, h, force, ok)
	}
	res, err := Process(withExif, Params{Mode: Resize, Width: 100, Height: 100, JPEGQuality: 75})
	if err != nil || res.AsIs || len(res.Body) >= len(withExif) {
		t.Fatalf("re-encoded: asis %v, %d bytes from %d, %v", res.AsIs, len(res.Body), len(withExif), err)
	}
}

func TestNewSizeAsNGINX(t *testing.T) {
	for _, c := range []struct {
		mode   Mode
		sx, sy int
		w, h   uint64
		dx, dy int
		resize bool
	}{
		{mode: Resize, sx: 400, sy: 300, w: 100, h: Unbounded, dx: 100, dy: 75, resize: true},
		{mode: Resize, sx: 400, sy: 300, w: Unbounded, h: 20, dx: 26, dy: 20, resize: true},
		{mode: Resize, sx: 201, sy: 99, w: 100, h: 100, dx: 100, dy: 49, resize: true},
		{mode: Resize, sx: 1000, sy: 1, w: 10, h: 10, dx: 10, dy: 1, resize: true}, // never below 1
		{mode: Crop, sx: 400, sy: 300, w: 100, h: 100, dx: 133, dy: 100, resize: true},
		{mode: Crop, sx: 300, sy: 400, w: 100, h: 100, dx: 100, dy: 133, resize: true},
		{mode: Crop, sx: 201, sy: 99, w: 100, h: 100, dx: 201, dy: 99},
		{mode: Crop, sx: 50, sy: 40, w: 100, h: 100, dx: 50, dy: 40},
	} {
		dx, dy, resize := newSize(c.sx, c.sy, &Params{Mode: c.mode, Width: c.w, Height: c.h})
		if dx != c.dx || dy != c.dy || resize != c.resize {
			t.Errorf("%v %dx%d into %dx%d: %dx%d %v, want %dx%d %v", c.mode, c.sx, c.sy, c.w, c.h, dx, dy, resize, c.dx, c.dy, c.resize)
		}
	}
}

func TestProcess(t *testing.T) {
	j, p, g := jpegOf(t, 400, 300), pngOf(t, 201, 99), gifOf(t, 150, 90)
	for _, c := range []struct {
		name   string
		body   []byte
		p      Params
		w, h   int
		format string
		asIs   bool
	}{
		{"resize jpeg", j, Params{Mode: Resize, Width: 100, Height: Unbounded, JPEGQuality: 75}, 100, 75, "jpeg", false},
		{"resize fits", j, Params{Mode: Resize, Width: 400, Height: 300}, 400, 300, "jpeg", true},
		{"crop jpeg", j, Params{Mode: Crop, Width: 100, Height: 100, JPEGQuality: 75}, 100, 100, "jpeg", false},
		{"crop png without resize", p, Params{Mode: Crop, Width: 100, Height: 100}, 100, 99, "png", false},
		{"crop gif", g, Params{Mode: Crop, Width: 100, Height: 100}, 100, 90, "gif", false},
		{"rotate 90", j, Params{Mode: Rotate, Angle: 90, JPEGQuality: 75}, 300, 400, "jpeg", false},
		{"rotate 180", p, Params{Mode: Rotate, Angle: 180}, 201, 99, "png", false},
		{"rotate 270 gif", g, Params{Mode: Rotate, Angle: 270}, 90, 150, "gif", false},
		{"resize and rotate", j, Params{Mode: Resize, Width: 100, Height: 100, Angle: 90, JPEGQuality: 75}, 75, 100, "jpeg", false},
		{"resize with a dynamic odd angle", j, Params{Mode: Resize, Width: 1000, Height: 1000, Angle: 45, JPEGQuality: 75}, 400, 300, "jpeg", false},
		{"sharpen", j, Params{Mode: Resize, Width: 100, Height: 100, Sharpen: 100, JPEGQuality: 75}, 100, 75, "jpeg", false},
		{"webp opaque to jpeg", readFile(t, "lossy.webp"), Params{Mode: Resize, Width: 100, Height: 100, WebPQuality: 80}, 100, 66, "jpeg", false},
		{"webp with alpha to png", readFile(t, "alpha.webp"), Params{Mode: Resize, Width: 50, Height: 50}, 37, 50, "png", false},
		{"test", g, Params{Mode: Test}, 150, 90, "gif", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Process(c.body, c.p)
			if err != nil {
				t.Fatal(err)
			}
			w, h, f := dims(t, res.Body)
			if w != c.w || h != c.h || f != c.format || res.AsIs != c.asIs || res.Type.String() != f {
				t.Fatalf("%dx%d %s (type %v) asis %v, want %dx%d %s asis %v", w, h, f, res.Type, res.AsIs, c.w, c.h, c.format, c.asIs)
			}
			if c.asIs && !bytes.Equal(res.Body, c.body) {
				t.Fatal("as-is body changed")
			}
		})
	}
}

// TestRotationIsCounterClockwise: the top-right corner comes to the top
// left at 90 degrees, the bottom left at 270.
func TestRotationIsCounterClockwise(t *testing.T) {
	var b bytes.Buffer
	_ = png.Encode(&b, gradient(64, 32))
	src, _ := png.Decode(bytes.NewReader(b.Bytes()))
	for _, c := range []struct {
		angle uint64
		x, y  int // the source pixel that lands at (0, 0)
	}{{90, 63, 0}, {180, 63, 31}, {270, 0, 31}} {
		res, err := Process(b.Bytes(), Params{Mode: Rotate, Angle: c.angle})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := png.Decode(bytes.NewReader(res.Body))
		if got, want := color.RGBAModel.Convert(out.At(0, 0)), color.RGBAModel.Convert(src.At(c.x, c.y)); got != want {
			t.Errorf("%d: (0,0) is %v, want %v", c.angle, got, want)
		}
	}
}

func TestPaletteAndTransparencyKept(t *testing.T) {
	g := gifOf(t, 150, 90)
	for _, drop := range []bool{false, true} {
		res, err := Process(g, Params{Mode: Resize, Width: 75, Height: 75, DropTransparency: drop})
		if err != nil {
			t.Fatal(err)
		}
		m, err := gif.Decode(bytes.NewReader(res.Body))
		if err != nil {
			t.Fatal(err)
		}
		pm := m.(*image.Paletted)
		_, _, _, a := pm.At(0, 10).RGBA()
		if transparent := a == 0; transparent == drop {
			t.Errorf("drop %v: left column transparent %v", drop, transparent)
		}
	}
}

func TestRefusals(t *testing.T) {
	j := jpegOf(t, 400, 300)
	p := pngOf(t, 201, 99)
	for _, c := range []struct {
		name string
		body []byte
		p    Params
	}{
		{"not an image", []byte("<html><body>404 Not Found</body></html>"), Params{Mode: Resize, Width: 10, Height: 10}},
		{"no width", j, Params{Mode: Resize, Width: 0, Height: 10}},
		{"rotate 45", j, Params{Mode: Rotate, Angle: 45}},
		{"jpeg quality 0", j, Params{Mode: Resize, Width: 10, Height: 10}},
		{"jpeg quality -", j, Params{Mode: Resize, Width: 10, Height: 10, JPEGQuality: Unbounded}},
		{"truncated png", p[:len(p)/2], Params{Mode: Resize, Width: 10, Height: 10}},
		{"truncated gif", gifOf(t, 150, 90)[:100], Params{Mode: Resize, Width: 10, Height: 10}},
		{"over the pixel bound", j, Params{Mode: Resize, Width: 10, Height: 10, JPEGQuality: 75, MaxPixels: 400*300 - 1}},
	} {
		if _, err := Process(c.body, c.p); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	// A truncated JPEG is decoded as libjpeg does, the rest filled in.
	if res, err := Process(j[:len(j)/2], Params{Mode: Resize, Width: 100, Height: 100, JPEGQuality: 75}); err != nil {
		t.Errorf("truncated JPEG: %v", err)
	} else if w, h, _ := dims(t, res.Body); w != 100 || h != 75 {
		t.Errorf("truncated JPEG: %dx%d", w, h)
	}
}

// bomb is a PNG of a few hundred bytes whose header claims w x h.
func bomb(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		crc.Write([]byte(typ))
		crc.Write(data)
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

func TestDecompressionBombRefusedBeforeDecoding(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Process(bomb(60000, 60000), Params{Mode: Resize, Width: 10, Height: 10})
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a 60000x60000 PNG accepted")
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
		t.Fatalf("refusing the bomb allocated %d bytes", grown)
	}
}

// scanBomb is a progressive grayscale JPEG of side x side pixels made
// of scans AC scans, each a few bytes long (one end-of-band run over
// every block): each scan costs a pass over all the blocks.
func scanBomb(side, scans int) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xff, 0xd8})
	b.Write([]byte{0xff, 0xc2, 0, 11, 8, byte(side >> 8), byte(side), byte(side >> 8), byte(side), 1, 1, 0x11, 0})
	b.Write(append([]byte{0xff, 0xdb, 0, 67, 0}, bytes.Repeat([]byte{1}, 64)...))
	// One AC code, "0": an end-of-band run of 2^14 blocks.
	b.Write(append([]byte{0xff, 0xc4, 0, 20, 0x10, 1}, append(make([]byte, 15), 0xe0)...))
	runs := ((side/8)*(side/8) + 1<<14 - 1) >> 14
	for range scans {
		b.Write([]byte{0xff, 0xda, 0, 8, 1, 1, 0, 1, 63, 0})
		b.Write(make([]byte, (runs*15+7)/8))
	}
	b.Write([]byte{0xff, 0xd9})
	return b.Bytes()
}

// TestJPEGScanBombRefused: a JPEG of a few kilobytes with thousands of
// scans would take minutes of CPU to decode (about 20 ms a scan at
// 4096 x 4096), holding its pixels of the budget all along; it is
// refused before decoding. A JPEG with a usual number of scans decodes.
func TestJPEGScanBombRefused(t *testing.T) {
	var j bytes.Buffer
	if err := jpeg.Encode(&j, image.NewRGBA(image.Rect(0, 0, 40, 30)), nil); err != nil {
		t.Fatal(err)
	}
	if n := jpegScans(j.Bytes()); n != 1 {
		t.Errorf("a baseline JPEG has %d scans", n)
	}
	if n := jpegScans(scanBomb(1024, 10)); n != 10 {
		t.Errorf("a JPEG of 10 scans has %d", n)
	}
	p := Params{Mode: Resize, Width: 100, Height: 100, JPEGQuality: 75}
	if _, err := Process(scanBomb(1024, 10), p); err != nil {
		t.Fatalf("a JPEG of 10 scans: %v", err)
	}
	start := time.Now()
	_, err := Process(scanBomb(1024, 2000), p)
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("a JPEG of 2000 scans decoded in %v (err %v)", time.Since(start), err)
	}
}

// TestPixelBudgetWaits: a decoding that would go over the budget waits
// for the pixels that others give back.
func TestPixelBudgetWaits(t *testing.T) {
	b := newPixelBudget(100)
	first, _ := b.take(context.Background(), 60)
	got := make(chan struct{})
	go func() {
		release, _ := b.take(context.Background(), 1000) // more than the budget: waits to be alone
		close(got)
		release()
	}()
	select {
	case <-got:
		t.Fatal("took pixels that were not free")
	case <-time.After(50 * time.Millisecond):
	}
	first()
	<-got
	r, _ := b.take(context.Background(), 100)
	r()
}

// TestPixelBudgetWaitEndsWithClient: a request that waits for pixels
// stops waiting when its client leaves, rather than holding its
// goroutine and body until other decodings end.
func TestPixelBudgetWaitEndsWithClient(t *testing.T) {
	release, _ := budget.take(context.Background(), DecodeBudget)
	defer release()
	var j bytes.Buffer
	if err := jpeg.Encode(&j, image.NewGray(image.Rect(0, 0, 400, 300)), nil); err != nil {
		t.Fatal(err)
	}
	h := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(j.Bytes()) }),
		Options{Mode: Resize, Width: Num(100), Height: Num(100), JPEGQuality: Num(75)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/a.jpg", nil).WithContext(ctx))
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the request still waits for pixels after its client left")
	}
}

func TestParseValue(t *testing.T) {
	for s, want := range map[string]uint64{
		"-": Unbounded, "100": 100, "05": 5, "0": 0, "+5": 0, "-5": 0, "": 0, "x": 0, "1 ": 0,
		"9223372036854775807": 9223372036854775807, "9223372036854775808": 0,
	} {
		if got := ParseValue(s); got != want {
			t.Errorf("%q: %d, want %d", s, got, want)
		}
	}
}

func serve(t *testing.T, opts Options, body []byte, setup func(http.Header) int, method string) *httptest.ResponseRecorder {
	t.Helper()
	h := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			t.Errorf("content asked with %s", r.Method)
		}
		code := setup(w.Header())
		w.WriteHeader(code)
		_, _ = w.Write(body[:len(body)/2])
		_, _ = w.Write(body[len(body)/2:])
	}), opts)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, "/x", nil))
	return rec
}

func TestMiddleware(t *testing.T) {
	j := jpegOf(t, 400, 300)
	file := func(h http.Header) int {
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Length", strconv.Itoa(len(j)))
		h.Set("Etag", `"abc"`)
		h.Set("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
		h.Set("X-Extra", "1")
		return http.StatusOK
	}
	resize := Options{Mode: Resize, Width: Num(100), Height: Num(Unbounded), JPEGQuality: Num(75)}

	rec := serve(t, resize, j, file, http.MethodGet)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/jpeg" || rec.Header().Get("Etag") != `W/"abc"` ||
		rec.Header().Get("Content-Length") != strconv.Itoa(rec.Body.Len()) || rec.Header().Get("Last-Modified") == "" {
		t.Fatalf("resize: %d %v", rec.Code, rec.Header())
	}

	head := serve(t, resize, j, file, http.MethodHead)
	if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != rec.Header().Get("Content-Length") {
		t.Fatalf("HEAD: %d %v, %d bytes", head.Code, head.Header(), head.Body.Len())
	}

	size := serve(t, Options{Mode: Size}, j, file, http.MethodGet)
	want := `{ "img" : { "width": 400, "height": 300, "type": "jpeg" } }` + "\r\n"
	if size.Body.String() != want || size.Header().Get("Etag") != "" || size.Header().Get("X-Extra") != "" ||
		size.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("size: %q %v", size.Body.String(), size.Header())
	}

	small := serve(t, Options{Mode: Resize, Width: Num(10), Height: Num(10), Buffer: 1000}, j, file, http.MethodGet)
	if small.Code != http.StatusUnsupportedMediaType {
		t.Fatalf("over the buffer by Content-Length: %d", small.Code)
	}
	chunked := func(h http.Header) int { h.Set("Content-Type", "image/jpeg"); return 200 }
	if rec := serve(t, Options{Mode: Resize, Width: Num(10), Height: Num(10), Buffer: 1000}, j, chunked, http.MethodGet); rec.Code != http.StatusUnsupportedMediaType {
		t.Fatalf("over the buffer, no length: %d", rec.Code)
	}
	text := bytes.Repeat([]byte("text "), 1000)
	if rec := serve(t, Options{Mode: Size, Buffer: 1000}, text, chunked, http.MethodGet); rec.Code != 200 || rec.Body.String() != "{}\r\n" {
		t.Fatalf("size of long text: %d %q", rec.Code, rec.Body.String())
	}

	test := serve(t, Options{Mode: Test}, j, file, http.MethodGet)
	if test.Code != 200 || !bytes.Equal(test.Body.Bytes(), j) || test.Header().Get("Etag") != `"abc"` || test.Header().Get("Content-Type") != "image/jpeg" {
		t.Fatalf("test: %d %v", test.Code, test.Header())
	}
	// The buffer's bound holds for "test" too, by Content-Length.
	if rec := serve(t, Options{Mode: Test, Buffer: 10}, j, file, http.MethodGet); rec.Code != http.StatusUnsupportedMediaType {
		t.Fatalf("test over the buffer: %d", rec.Code)
	}
	if rec := serve(t, Options{Mode: Test}, j, file, http.MethodHead); rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != "image/jpeg" {
		t.Fatalf("test of HEAD: %d, %d bytes", rec.Code, rec.Body.Len())
	}
	if rec := serve(t, Options{Mode: Test}, text, chunked, http.MethodGet); rec.Code != http.StatusUnsupportedMediaType {
		t.Fatalf("test of text: %d", rec.Code)
	}

	notModified := func(h http.Header) int { return http.StatusNotModified }
	if rec := serve(t, resize, nil, notModified, http.MethodGet); rec.Code != http.StatusNotModified {
		t.Fatalf("304: %d", rec.Code)
	}
	notFound := func(h http.Header) int { h.Set("Content-Type", "text/html"); return http.StatusNotFound }
	if rec := serve(t, Options{Mode: Size}, []byte("<html>not found</html>"), notFound, http.MethodGet); rec.Code != 200 || rec.Body.String() != "{}\r\n" {
		t.Fatalf("size of a 404: %d %q", rec.Code, rec.Body.String())
	}
}

// TestMultipartAborts: NGINX fails a multipart/x-mixed-replace response
// under the filter; the handler aborts, which closes the connection.
func TestMultipartAborts(t *testing.T) {
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Fatalf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	serve(t, Options{Mode: Size}, []byte("--x"), func(h http.Header) int {
		h.Set("Content-Type", "multipart/x-mixed-replace; boundary=x")
		return 200
	}, http.MethodGet)
}

func FuzzProcess(f *testing.F) {
	f.Add(jpegOf(f, 40, 30), uint8(0))
	f.Add(pngOf(f, 20, 10), uint8(1))
	f.Add(gifOf(f, 30, 20), uint8(2))
	f.Add(readFile(f, "lossy.webp"), uint8(3))
	f.Add(bomb(5000, 5000), uint8(0))
	modes := []Params{
		{Mode: Resize, Width: 16, Height: Unbounded, JPEGQuality: 75, Sharpen: 50},
		{Mode: Crop, Width: 10, Height: 10, JPEGQuality: 75, WebPQuality: 80},
		{Mode: Rotate, Angle: 90, JPEGQuality: 75, DropTransparency: true},
		{Mode: Size},
	}
	f.Fuzz(func(t *testing.T, body []byte, mode uint8) {
		p := modes[int(mode)%len(modes)]
		// The bound keeps every input's decoding small: 256 KiB of
		// pixels at most.
		p.MaxPixels = 1 << 16
		res, err := Process(body, p)
		if err != nil {
			return
		}
		if p.Mode != Size && !res.AsIs {
			c, _, err := image.DecodeConfig(bytes.NewReader(res.Body))
			if err != nil || int64(c.Width)*int64(c.Height) > p.MaxPixels {
				t.Fatalf("output %v %dx%d", err, c.Width, c.Height)
			}
		}
	})
}

// screenGIF is a GIF whose logical screen is sw x sh around one frame,
// r, with a transparent entry so that a graphic control extension
// stands before the frame's descriptor.
func screenGIF(t *testing.T, sw, sh int, r image.Rectangle) []byte {
	t.Helper()
	pm := image.NewPaletted(r, color.Palette{color.Transparent, color.White, color.RGBA{255, 0, 0, 255}})
	for i := range pm.Pix {
		pm.Pix[i] = uint8(i % 3)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, &gif.GIF{Image: []*image.Paletted{pm}, Delay: []int{0},
		Config: image.Config{Width: r.Max.X, Height: r.Max.Y, ColorModel: pm.Palette}}); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint16(b.Bytes()[6:], uint16(sw))
	binary.LittleEndian.PutUint16(b.Bytes()[8:], uint16(sh))
	return b.Bytes()
}

// TestGIFImageIsItsFirstFrame: libgd's image of a GIF is its first
// frame, not the screen its header declares (NGINX answers so beside
// mosaic in TestImageFilterAttackBombsAsNGINX): a 65535 x 65535 screen
// around a 1 x 1 frame is sent as it is under resize and rotated as
// 1 x 1; a frame at an offset is shrunk by its own size; the pixel
// bound applies to the frame, before it is decoded.
func TestGIFImageIsItsFirstFrame(t *testing.T) {
	huge := screenGIF(t, 65535, 65535, image.Rect(0, 0, 1, 1))
	if w, h, _, _ := Dimensions(huge, GIF); w != 65535 || h != 65535 {
		t.Errorf("header dimensions %dx%d, want the screen's", w, h)
	}
	if r, err := Process(huge, Params{Mode: Resize, Width: 100, Height: 100}); err != nil || !r.AsIs {
		t.Errorf("resize of a 1x1 frame: as is %v, %v", r.AsIs, err)
	}
	r, err := Process(huge, Params{Mode: Rotate, Angle: 90})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := gif.DecodeConfig(bytes.NewReader(r.Body)); err != nil || c.Width != 1 || c.Height != 1 {
		t.Errorf("rotated: %dx%d, %v; want 1x1", c.Width, c.Height, err)
	}

	part := screenGIF(t, 200, 150, image.Rect(10, 20, 160, 120))
	r, err = Process(part, Params{Mode: Resize, Width: 100, Height: 100})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := gif.DecodeConfig(bytes.NewReader(r.Body)); c.Width != 100 || c.Height != 66 {
		t.Errorf("a 150x100 frame in a 200x150 screen into 100x100: %dx%d, want 100x66", c.Width, c.Height)
	}

	// A frame that claims 60000 x 60000 is refused from its descriptor.
	bombed := bytes.Clone(huge)
	i := bytes.IndexByte(bombed[13+3*4:], 0x2c) + 13 + 3*4
	binary.LittleEndian.PutUint16(bombed[i+5:], 60000)
	binary.LittleEndian.PutUint16(bombed[i+7:], 60000)
	if w, h, ok := gifFrame(bombed); !ok || w != 60000 || h != 60000 {
		t.Fatalf("gifFrame: %dx%d %v", w, h, ok)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Process(bombed, Params{Mode: Resize, Width: 10, Height: 10})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrUnsupported) {
		t.Errorf("a 60000x60000 frame: %v", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
		t.Errorf("refusing the frame allocated %d bytes", grown)
	}
	if _, _, ok := gifFrame(huge[:i]); ok {
		t.Error("a GIF cut before its descriptor has a frame")
	}
}
