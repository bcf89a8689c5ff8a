package imagefilter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"sync"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// Mode is what the filter does (the image_filter directive).
type Mode int

// The image_filter modes.
const (
	Off    Mode = iota
	Test        // answer 415 unless the body is an image
	Size        // answer with the image's size in JSON
	Resize      // shrink into Width x Height, keeping the aspect ratio
	Crop        // shrink to cover Width x Height, then cut its middle
	Rotate      // turn Angle degrees counter-clockwise
)

// Unbounded is the value of a "-" dimension: no bound on that side.
const Unbounded = math.MaxUint64

// DefaultMaxPixels is the largest image, in pixels, that Process decodes
// unless told otherwise: 4096 x 4096. Its header is read first and a
// larger image refused before any pixel is decoded, so a small body that
// claims a huge picture (a decompression bomb) costs nothing. Decoding
// one this size takes up to about 12 bytes a pixel (a progressive JPEG's
// coefficients) plus 4 for the working copy.
const DefaultMaxPixels = 4096 * 4096

// ErrUnsupported is the error of a body the filter cannot handle: NGINX
// answers 415 Unsupported Media Type.
var ErrUnsupported = errors.New("imagefilter: unsupported image")

// Params are one response's settings, the directives' values with their
// variables evaluated. The numbers are as NGINX reads them: 0 for a
// value that is no positive number, Unbounded for "-".
type Params struct {
	Mode                 Mode
	Width, Height, Angle uint64
	JPEGQuality          uint64 // image_filter_jpeg_quality (NGINX's default 75)
	WebPQuality          uint64 // image_filter_webp_quality (NGINX's default 80)
	Sharpen              uint64 // image_filter_sharpen, percent
	// DropTransparency is "image_filter_transparency off": a palette
	// image's transparent color becomes opaque.
	DropTransparency bool
	// MaxPixels bounds the images decoded; 0 is DefaultMaxPixels.
	MaxPixels int64
}

// Result is the filter's answer for a body.
type Result struct {
	Body []byte
	// Type is the format of Body; None for the size JSON.
	Type Type
	// AsIs reports that Body is the input, unchanged (NGINX keeps the
	// validators then); otherwise Body is a new image or the JSON.
	AsIs bool
}

// Process applies p to body, a whole response body, as NGINX's image
// filter does once it has read it: ErrUnsupported (wrapped) where NGINX
// answers 415.
func Process(body []byte, p Params) (Result, error) {
	return ProcessContext(context.Background(), body, p)
}

// ProcessContext is Process that stops waiting for the pixel budget
// (DecodeBudget) once ctx is done, with ctx's error.
func ProcessContext(ctx context.Context, body []byte, p Params) (Result, error) {
	t := Detect(body)
	if t == None {
		if p.Mode == Size {
			return Result{Body: emptyJSON}, nil
		}
		return Result{}, fmt.Errorf("%w: not an image", ErrUnsupported)
	}
	if p.Mode == Test {
		return Result{Body: body, Type: t, AsIs: true}, nil
	}
	w, h, force, ok := Dimensions(body, t)
	if p.Mode == Size {
		if !ok {
			return Result{Body: emptyJSON}, nil
		}
		return Result{Body: sizeJSON(w, h, t)}, nil
	}
	if p.Mode == Rotate {
		if p.Angle != 90 && p.Angle != 180 && p.Angle != 270 {
			return Result{}, fmt.Errorf("%w: rotation by %d", ErrUnsupported, p.Angle)
		}
	} else if p.Width == 0 || p.Height == 0 {
		return Result{}, fmt.Errorf("%w: no bound", ErrUnsupported)
	}
	if ok && uint64(w) <= p.Width && uint64(h) <= p.Height && p.Angle == 0 && !force {
		return Result{Body: body, Type: t, AsIs: true}, nil
	}
	return transform(ctx, body, t, force, &p)
}

// decode decodes body of type t, its header first: an image over the
// pixel bound is refused before its pixels are.
//
// It also takes the image's pixels from the budget shared by every
// decoding in the process; the caller gives them back with release once
// done with the image, so that concurrent requests, each within the
// bound, cannot together hold more than the budget.
func decode(ctx context.Context, body []byte, t Type, maxPixels int64) (img image.Image, release func(), err error) {
	var cfg func(io.Reader) (image.Config, error)
	var dec func(io.Reader) (image.Image, error)
	switch t {
	case JPEG:
		cfg, dec = jpeg.DecodeConfig, jpeg.Decode
	case GIF:
		cfg, dec = gif.DecodeConfig, gif.Decode
	case PNG:
		cfg, dec = png.DecodeConfig, png.Decode
	case WebP:
		cfg, dec = webp.DecodeConfig, webp.Decode
	}
	c, err := cfg(bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	if t == GIF {
		// libgd's image of a GIF is its first frame, not the logical
		// screen the header declares (and DecodeConfig returns): a
		// 65535 x 65535 screen around a small frame is a small image,
		// and a large frame a large one, whatever the screen says.
		var ok bool
		if c.Width, c.Height, ok = gifFrame(body); !ok {
			return nil, nil, fmt.Errorf("%w: gif: no image descriptor", ErrUnsupported)
		}
	}
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	if c.Width <= 0 || c.Height <= 0 || int64(c.Width)*int64(c.Height) > maxPixels {
		return nil, nil, fmt.Errorf("%w: %dx%d pixels, more than %d", ErrUnsupported, c.Width, c.Height, maxPixels)
	}
	if t == JPEG && jpegScans(body) > MaxScans {
		return nil, nil, fmt.Errorf("%w: more than %d scans", ErrUnsupported, MaxScans)
	}
	if release, err = budget.take(ctx, int64(c.Width)*int64(c.Height)); err != nil {
		return nil, nil, fmt.Errorf("imagefilter: waiting to decode: %w", err)
	}
	// A decoder that panics gives its pixels back before the panic goes
	// on: the server survives a handler's panic, and the budget would
	// otherwise be smaller for good.
	defer func() {
		if p := recover(); p != nil {
			release()
			panic(p)
		}
	}()
	img, err = dec(bytes.NewReader(body))
	if t == JPEG && (errors.Is(err, io.ErrUnexpectedEOF) || err == jpeg.FormatError("short Huffman data")) {
		// libjpeg, under libgd, takes a truncated JPEG with a warning
		// and fills the part that is missing; so does this, with zero
		// bits (at most a few bytes a pixel) and the end marker.
		pad := io.LimitReader(zeros{}, int64(c.Width)*int64(c.Height)*2+1024)
		img, err = dec(io.MultiReader(bytes.NewReader(body), pad, bytes.NewReader([]byte{0xff, 0xd9})))
	}
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	if pm, ok := img.(*image.Paletted); ok && t == GIF {
		// The frame may stand at an offset in its screen; libgd's image
		// starts at the frame's corner.
		pm.Rect = pm.Rect.Sub(pm.Rect.Min)
	}
	return img, release, nil
}

// gifFrame returns the size of a GIF's first frame from its image
// descriptor, walking past the global color table and the extension
// blocks before it; ok is false when the body has none.
func gifFrame(p []byte) (w, h int, ok bool) {
	if len(p) < 13 {
		return 0, 0, false
	}
	i := 13
	if p[10]&0x80 != 0 {
		i += 3 << (p[10]&7 + 1)
	}
	for i < len(p) {
		switch p[i] {
		case 0x2c: // image descriptor: left, top, width, height, flags
			if i+9 >= len(p) {
				return 0, 0, false
			}
			return int(p[i+5]) | int(p[i+6])<<8, int(p[i+7]) | int(p[i+8])<<8, true
		case 0x21: // extension: a label, then sub-blocks up to an empty one
			for i += 2; i < len(p) && p[i] != 0; i += int(p[i]) + 1 {
			}
			i++
		default: // the trailer, or no GIF
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// MaxScans bounds the scans of a JPEG decoded. Each scan of a
// progressive JPEG is a pass over all the image's blocks, and one can
// take a few bytes: a small body with thousands of them takes minutes
// of CPU to decode (libjpeg-turbo's djpeg offers the same kind of
// bound, -maxscans). Encoders write about ten.
const MaxScans = 100

// jpegScans counts the scans (SOS segments) of a JPEG: its segments are
// walked by their lengths, a scan's entropy-coded data up to the next
// marker (an 0xff followed by neither a stuffed 0 nor a restart marker).
func jpegScans(p []byte) int {
	n := 0
	for i := 2; i+3 < len(p); {
		m := p[i+1]
		switch {
		case p[i] != 0xff || m == 0xff:
			i++ // bytes between segments, or fill: the decoder skips them
			continue
		case m == 0xd9:
			return n
		case m == 0x01 || m >= 0xd0 && m <= 0xd7:
			i += 2 // a marker without a segment
			continue
		}
		i += 2 + (int(p[i+2])<<8 | int(p[i+3]))
		if m != 0xda {
			continue
		}
		n++
		for i+1 < len(p) && (p[i] != 0xff || p[i+1] == 0 || p[i+1] >= 0xd0 && p[i+1] <= 0xd7) {
			i++
		}
	}
	return n
}

// DecodeBudget is the number of pixels that may be decoded at once in
// the process, all requests together: four images of the default bound.
// A decoding that would go over waits for others to end; one image over
// the budget (a larger MaxPixels) waits until it is alone.
const DecodeBudget = 4 * DefaultMaxPixels

var budget = newPixelBudget(DecodeBudget)

// pixelBudget is a counting semaphore of pixels.
type pixelBudget struct {
	mu          sync.Mutex
	cond        sync.Cond
	free, total int64
}

func newPixelBudget(n int64) *pixelBudget {
	b := &pixelBudget{free: n, total: n}
	b.cond.L = &b.mu
	return b
}

// take waits until n pixels are free (all of them, for an n larger than
// the budget) and returns the function that gives them back; it gives up
// with ctx's error when ctx is done first (the client left).
func (b *pixelBudget) take(ctx context.Context, n int64) (func(), error) {
	n = min(n, b.total)
	// The waiters are woken when ctx ends, to see it.
	stop := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	})
	defer stop()
	b.mu.Lock()
	for b.free < n {
		if err := ctx.Err(); err != nil {
			b.mu.Unlock()
			return nil, err
		}
		b.cond.Wait()
	}
	b.free -= n
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		b.free += n
		b.mu.Unlock()
		b.cond.Broadcast()
	}, nil
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}

// transform is NGINX's ngx_http_image_resize: decode, shrink, rotate,
// cut, sharpen, encode again in the same format.
func transform(ctx context.Context, body []byte, t Type, force bool, p *Params) (Result, error) {
	src, release, err := decode(ctx, body, t, p.MaxPixels)
	if err != nil {
		return Result{}, err
	}
	defer release()
	b := src.Bounds()
	sx, sy := b.Dx(), b.Dy()
	if !force && p.Angle == 0 && uint64(sx) <= p.Width && uint64(sy) <= p.Height {
		return Result{Body: body, Type: t, AsIs: true}, nil
	}

	// A palette image stays one, as libgd keeps it, with its palette;
	// its transparent color is dropped unless transparency is kept.
	pal, _ := src.(*image.Paletted)
	if pal != nil && p.DropTransparency {
		opaque := make(color.Palette, len(pal.Palette))
		for i, c := range pal.Palette {
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			if n.A == 0 {
				n.A = 0xff
			}
			opaque[i] = n
		}
		pal = &image.Paletted{Pix: pal.Pix, Stride: pal.Stride, Rect: pal.Rect, Palette: opaque}
	}

	dx, dy, resize := newSize(sx, sy, p)
	var img image.Image = src
	if pal != nil {
		img = pal
	}
	if resize {
		dst := image.NewRGBA(image.Rect(0, 0, dx, dy))
		draw.BiLinear.Scale(dst, dst.Rect, img, b, draw.Src, nil)
		img = dst
		if pal != nil {
			q := image.NewPaletted(dst.Rect, pal.Palette)
			draw.FloydSteinberg.Draw(q, q.Rect, dst, image.Point{})
			img = q
		}
	} else if pal == nil {
		img = toRGBA(src)
	}

	img = rotate(img, p.Angle)

	if p.Mode == Crop {
		r := img.Bounds()
		ox, oy := 0, 0
		if uint64(r.Dx()) > p.Width {
			ox = r.Dx() - int(p.Width)
		}
		if uint64(r.Dy()) > p.Height {
			oy = r.Dy() - int(p.Height)
		}
		if ox != 0 || oy != 0 {
			cut := image.Rect(ox/2, oy/2, ox/2+r.Dx()-ox, oy/2+r.Dy()-oy)
			img = img.(interface {
				SubImage(image.Rectangle) image.Image
			}).SubImage(cut)
		}
	}

	if rgba, ok := img.(*image.RGBA); ok && p.Sharpen > 0 && p.Sharpen <= math.MaxInt64 {
		// libgd sharpens true-color images only.
		sharpen(rgba, p.Sharpen)
	}
	out, ot, err := encode(img, t, p)
	if err != nil {
		return Result{}, err
	}
	return Result{Body: out, Type: ot}, nil
}

// newSize is NGINX's arithmetic: resize fits the image into the bound
// keeping its aspect ratio and never enlarges it; crop shrinks it until
// it covers the bound on the side that is shorter for the ratio.
// Integer division, never below 1.
func newSize(sx, sy int, p *Params) (dx, dy int, resize bool) {
	dx, dy = sx, sy
	shrinkW := func() {
		dy = max(int(uint64(dy)*p.Width/uint64(dx)), 1)
		dx = int(p.Width)
	}
	shrinkH := func() {
		dx = max(int(uint64(dx)*p.Height/uint64(dy)), 1)
		dy = int(p.Height)
	}
	switch p.Mode {
	case Resize:
		if uint64(dx) > p.Width {
			shrinkW()
		}
		if uint64(dy) > p.Height {
			shrinkH()
		}
		return dx, dy, true
	case Crop:
		if float64(dx)/float64(dy) < float64(p.Width)/float64(p.Height) {
			if uint64(dx) > p.Width {
				shrinkW()
				return dx, dy, true
			}
		} else if uint64(dy) > p.Height {
			shrinkH()
			return dx, dy, true
		}
	}
	return dx, dy, false
}

func toRGBA(src image.Image) *image.RGBA {
	if m, ok := src.(*image.RGBA); ok {
		return m
	}
	b := src.Bounds()
	m := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(m, m.Rect, src, b.Min, draw.Src)
	return m
}

// rotate turns img counter-clockwise by angle degrees, as NGINX's
// rotation does; other angles leave it as it is (a variable angle that
// is none of the three, under resize or crop).
func rotate(img image.Image, angle uint64) image.Image {
	if angle != 90 && angle != 180 && angle != 270 {
		return img
	}
	var pix []uint8
	var stride, bpp int
	r := img.Bounds()
	switch m := img.(type) {
	case *image.RGBA:
		pix, stride, bpp = m.Pix, m.Stride, 4
	case *image.Paletted:
		pix, stride, bpp = m.Pix, m.Stride, 1
	}
	w, h := r.Dx(), r.Dy()
	nw, nh := h, w
	if angle == 180 {
		nw, nh = w, h
	}
	out := make([]uint8, nw*nh*bpp)
	for y := 0; y < nh; y++ {
		for x := 0; x < nw; x++ {
			var sx, sy int
			switch angle {
			case 90:
				sx, sy = w-1-y, x
			case 180:
				sx, sy = w-1-x, h-1-y
			case 270:
				sx, sy = y, h-1-x
			}
			copy(out[(y*nw+x)*bpp:(y*nw+x+1)*bpp], pix[sy*stride+sx*bpp:sy*stride+(sx+1)*bpp])
		}
	}
	nr := image.Rect(0, 0, nw, nh)
	if bpp == 1 {
		return &image.Paletted{Pix: out, Stride: nw, Rect: nr, Palette: img.(*image.Paletted).Palette}
	}
	// libgd's rotated true-color image keeps no alpha: NGINX makes it
	// without gdImageSaveAlpha, so the image is laid on black. Making
	// the premultiplied pixels opaque is that.
	for i := 3; i < len(out); i += 4 {
		out[i] = 0xff
	}
	return &image.RGBA{Pix: out, Stride: nw * 4, Rect: nr}
}

// sharpen is libgd's gdImageSharpen: the filter [-s, 1+2s, -s], s =
// pct/400, along the rows, then along the columns; the edges keep their
// own value for the neighbour they lack.
func sharpen(m *image.RGBA, pct uint64) {
	s := float64(pct) / 400
	w, h := m.Rect.Dx(), m.Rect.Dy()
	pass := func(n, lines int, at func(line, i int) int) {
		prev := make([]uint8, 4)
		for l := 0; l < lines; l++ {
			for i := 0; i < n; i++ {
				o := at(l, i)
				cur := m.Pix[o : o+4]
				next := cur
				if i+1 < n {
					o := at(l, i+1)
					next = m.Pix[o : o+4]
				}
				if i == 0 {
					copy(prev, cur)
				}
				var keep [4]uint8
				copy(keep[:], cur)
				a := float64(cur[3])
				for c := 0; c < 3; c++ {
					v := (1+2*s)*float64(cur[c]) - s*float64(prev[c]) - s*float64(next[c])
					cur[c] = uint8(math.Round(min(max(v, 0), a)))
				}
				copy(prev, keep[:])
			}
		}
	}
	pass(w, h, func(y, x int) int { return m.PixOffset(m.Rect.Min.X+x, m.Rect.Min.Y+y) })
	pass(h, w, func(x, y int) int { return m.PixOffset(m.Rect.Min.X+x, m.Rect.Min.Y+y) })
}

// encode writes img in format t, as libgd does for NGINX: JPEG at the
// quality asked, GIF and PNG with their palette when they have one.
// WebP, which Go cannot encode, comes out as a JPEG at the WebP quality
// when the image is opaque, and as a PNG when it is not, so that its
// transparency survives.
func encode(img image.Image, t Type, p *Params) ([]byte, Type, error) {
	var buf bytes.Buffer
	if t == WebP {
		if o, ok := img.(interface{ Opaque() bool }); ok && !o.Opaque() {
			t = PNG
		} else {
			return encodeJPEG(&buf, img, p.WebPQuality, WebP)
		}
	}
	var err error
	switch t {
	case JPEG:
		return encodeJPEG(&buf, img, p.JPEGQuality, JPEG)
	case GIF:
		err = gif.Encode(&buf, img, nil)
	case PNG:
		err = png.Encode(&buf, img)
	}
	if err != nil {
		return nil, None, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return buf.Bytes(), t, nil
}

// encodeJPEG encodes at quality q, which NGINX takes as a signed number:
// "-" (Unbounded) and 0 are refused; above 100 counts as 100, as in
// libjpeg.
func encodeJPEG(buf *bytes.Buffer, img image.Image, q uint64, from Type) ([]byte, Type, error) {
	if q == 0 || q > math.MaxInt64 {
		return nil, None, fmt.Errorf("%w: %v quality %d", ErrUnsupported, from, int64(q))
	}
	if err := jpeg.Encode(buf, img, &jpeg.Options{Quality: int(min(q, 100))}); err != nil {
		return nil, None, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return buf.Bytes(), JPEG, nil
}
