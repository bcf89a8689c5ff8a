package imagefilter

import "strconv"

// Type is an image format, told from the body's first bytes.
type Type int

// The formats NGINX's image filter knows.
const (
	None Type = iota
	JPEG
	GIF
	PNG
	WebP
)

var names = [...]string{None: "", JPEG: "jpeg", GIF: "gif", PNG: "png", WebP: "webp"}

// String returns the format's name as the size JSON gives it ("jpeg").
func (t Type) String() string { return names[t] }

// ContentType returns the media type the filter labels the format with.
func (t Type) ContentType() string {
	if t == None {
		return ""
	}
	return "image/" + names[t]
}

// Detect returns the format of body by its magic bytes, as NGINX's
// ngx_http_image_test: a body shorter than 16 bytes is no image, whatever
// it begins with, and the Content-Type it was sent with plays no part.
func Detect(body []byte) Type {
	p := body
	if len(p) < 16 {
		return None
	}
	switch {
	case p[0] == 0xff && p[1] == 0xd8:
		return JPEG
	case p[0] == 'G' && p[1] == 'I' && p[2] == 'F' && p[3] == '8' && p[5] == 'a' && (p[4] == '9' || p[4] == '7'):
		return GIF
	case string(p[:8]) == "\x89PNG\r\n\x1a\n":
		return PNG
	case string(p[:4]) == "RIFF" && string(p[8:12]) == "WEBP":
		return WebP
	}
	return None
}

// Dimensions reads the width and height from the header of body, of type
// t, as NGINX's ngx_http_image_size does without decoding the image: the
// numbers the size JSON gives and the filter compares with its bounds.
// force reports a JPEG whose application segments (EXIF, XMP) take more
// than 5% of it, which NGINX re-encodes even when it fits, to strip them.
func Dimensions(body []byte, t Type) (width, height int, force, ok bool) {
	p := body
	n := len(p)
	switch t {
	case JPEG:
		// The segments are walked by their lengths; a marker byte that
		// follows 0xff names one, the SOF markers carry the size.
		app := 0
		for i := 2; i < n-10; {
			if p[i] != 0xff || p[i+1] == 0xff {
				i++
				continue
			}
			i++
			if m := p[i]; (m == 0xc0 || m == 0xc1 || m == 0xc2 || m == 0xc3 || m == 0xc9 || m == 0xca || m == 0xcb) &&
				(width == 0 || height == 0) {
				width = int(p[i+6])*256 + int(p[i+7])
				height = int(p[i+4])*256 + int(p[i+5])
			}
			l := int(p[i+1])*256 + int(p[i+2])
			if p[i] >= 0xe1 && p[i] <= 0xef {
				app += l
			}
			i += l
		}
		if width == 0 || height == 0 {
			return 0, 0, false, false
		}
		return width, height, n/20 < app, true
	case GIF:
		if n < 10 {
			return 0, 0, false, false
		}
		return int(p[7])*256 + int(p[6]), int(p[9])*256 + int(p[8]), false, true
	case PNG:
		if n < 24 {
			return 0, 0, false, false
		}
		return int(p[18])*256 + int(p[19]), int(p[22])*256 + int(p[23]), false, true
	case WebP:
		if n < 30 || string(p[12:15]) != "VP8" {
			return 0, 0, false, false
		}
		switch p[15] {
		case ' ':
			if p[20]&1 != 0 || p[23] != 0x9d || p[24] != 0x01 || p[25] != 0x2a {
				return 0, 0, false, false // not a key frame, or no start code
			}
			return (int(p[26]) | int(p[27])<<8) & 0x3fff, (int(p[28]) | int(p[29])<<8) & 0x3fff, false, true
		case 'L':
			if p[20] != 0x2f {
				return 0, 0, false, false
			}
			return (int(p[21])|int(p[22])<<8)&0x3fff + 1,
				(int(p[22])>>6|int(p[23])<<2|int(p[24])<<10)&0x3fff + 1, false, true
		case 'X':
			return (int(p[24]) | int(p[25])<<8 | int(p[26])<<16) + 1,
				(int(p[27]) | int(p[28])<<8 | int(p[29])<<16) + 1, false, true
		}
	}
	return 0, 0, false, false
}

// emptyJSON is the size answer for a body that is no image NGINX knows.
var emptyJSON = []byte("{}\r\n")

// SizeJSON returns the answer of "image_filter size" for body, byte for
// byte NGINX's: the dimensions its header gives, or "{}" when it is no
// image or its header has none.
func SizeJSON(body []byte) []byte {
	t := Detect(body)
	if t == None {
		return emptyJSON
	}
	w, h, _, ok := Dimensions(body, t)
	if !ok {
		return emptyJSON
	}
	return sizeJSON(w, h, t)
}

func sizeJSON(w, h int, t Type) []byte {
	return []byte(`{ "img" : { "width": ` + strconv.Itoa(w) + `, "height": ` + strconv.Itoa(h) +
		`, "type": "` + t.String() + "\" } }\r\n")
}
