package compress

import (
	"strings"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// DefaultSkipTypes returns compress_skip_types' default: media types whose
// bodies are already compressed, where another coding costs CPU and saves
// nothing. application/octet-stream is on it because an unknown binary is far
// more often one of those files than text; image/svg+xml is not, because SVG
// is XML and compresses well.
func DefaultSkipTypes() []string {
	return []string{
		"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif",
		"image/heic", "image/heif", "image/jxl",
		"video/mp4", "video/webm", "video/ogg", "video/mpeg", "video/quicktime",
		"video/x-msvideo", "video/x-matroska", "video/x-flv", "video/mp2t", "video/3gpp",
		"audio/mpeg", "audio/mp4", "audio/aac", "audio/ogg", "audio/webm",
		"audio/opus", "audio/flac", "audio/x-m4a",
		"font/woff", "font/woff2",
		"application/zip", "application/gzip", "application/x-gzip",
		"application/zstd", "application/x-bzip2", "application/x-xz",
		"application/x-7z-compressed", "application/vnd.rar", "application/x-rar-compressed",
		"application/octet-stream",
	}
}

// typeSet is a compiled types list.
type typeSet struct {
	any bool // "*"
	// types maps each type to whether the list names it (true) or holds it
	// by default (text/html, false).
	types map[string]bool
}

func newTypeSet(list []string, withHTML bool) typeSet {
	s := typeSet{types: make(map[string]bool, len(list)+1)}
	if withHTML {
		s.types["text/html"] = false
	}
	for _, t := range list {
		if t == "*" {
			s.any = true
			continue
		}
		s.types[strings.ToLower(mediaType(t))] = true
	}
	return s
}

// takes reports whether a coding with this types list compresses mt, a
// lower-case media type without parameters, where skip is
// compress_skip_types. A type the list names is taken even when skipped,
// so "brotli_types image/png" means what it says: the skip list guards
// only what "*" and the default (text/html) match, and is looked up only
// for those (a named type spared the lookup in the list of some forty
// types: about 120 instructions a compressed response; compress README,
// "Around the encoder, a fifth look").
func (s typeSet) takes(mt string, skip typeSet) bool {
	named, ok := s.types[mt]
	if ok && named {
		return true
	}
	return (ok || s.any) && !skip.contains(mt)
}

// contains is has for a set without "*" semantics: the skip list names
// types, and "*" in it would mean nothing.
func (s typeSet) contains(mt string) bool {
	_, ok := s.types[mt]
	return ok
}

// mediaType strips the parameters and surrounding whitespace from a
// Content-Type value. Case is left alone; see lowerMediaType.
func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return header.TrimOWS(ct)
}

// lowerMediaType returns the media type of ct in lower case, allocating only
// when ct has upper-case letters. It is mediaType and the test for upper
// case in one pass over the type, which every compressible response
// takes: apart, a search for ';' and then a loop over the type cost 223
// instructions and 6 I1 misses for "application/json", in one 195 and 3
// (compress README, "The connection's record, one field away").
func lowerMediaType(ct string) string {
	upper := false
	i := 0
	for ; i < len(ct) && ct[i] != ';'; i++ {
		if ct[i]-'A' < 26 { // 'A' to 'Z', one unsigned test
			upper = true
		}
	}
	mt := header.TrimOWS(ct[:i])
	if upper {
		return strings.ToLower(mt)
	}
	return mt
}
