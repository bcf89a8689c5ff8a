package compress

import (
	"fmt"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// Encoding is a content coding that mosaic can produce.
type Encoding uint8

// The codings, in the server's default order of preference after Identity.
const (
	Identity Encoding = iota
	Brotli
	Zstd
	Gzip
)

// numCodings counts Brotli, Zstd and Gzip; arrays indexed by Encoding have
// numCodings+1 slots so that Identity needs no special case.
const numCodings = 3

// String returns the coding's token as it appears in Accept-Encoding and
// Content-Encoding: "br", "zstd", "gzip" or "identity".
func (e Encoding) String() string {
	switch e {
	case Brotli:
		return "br"
	case Zstd:
		return "zstd"
	case Gzip:
		return "gzip"
	case Identity:
		return "identity"
	}
	return fmt.Sprintf("Encoding(%d)", uint8(e))
}

// Extension returns the file name suffix of a file precompressed with the
// coding (".br", ".zst", ".gz"), or "" for Identity.
func (e Encoding) Extension() string {
	switch e {
	case Brotli:
		return ".br"
	case Zstd:
		return ".zst"
	case Gzip:
		return ".gz"
	}
	return ""
}

// RatioVariable names the variable that carries the coding's compression
// ratio, as NGINX and its modules name it ($gzip_ratio, $brotli_ratio,
// $zstd_ratio): the handler sets it in the request's vars.State, and a
// server registers the name (vars.RegisterState) to make it readable in
// templates. It is "" for Identity.
func (e Encoding) RatioVariable() string {
	switch e {
	case Brotli:
		return "brotli_ratio"
	case Zstd:
		return "zstd_ratio"
	case Gzip:
		return "gzip_ratio"
	}
	return ""
}

// ParseEncoding maps a coding token (case-insensitive, "x-gzip" included) to
// its Encoding. It reports false for codings mosaic does not produce.
func ParseEncoding(token string) (Encoding, bool) {
	switch {
	case header.EqualFoldASCII(token, "br"):
		return Brotli, true
	case header.EqualFoldASCII(token, "zstd"):
		return Zstd, true
	case header.EqualFoldASCII(token, "gzip"), header.EqualFoldASCII(token, "x-gzip"):
		return Gzip, true
	case header.EqualFoldASCII(token, "identity"):
		return Identity, true
	}
	return Identity, false
}
