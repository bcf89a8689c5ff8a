package compress

import (
	"log/slog"
	"net/http"
	"unsafe"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// decide picks the coding for a response whose status, Content-Encoding and
// Cache-Control allowed compression (start has checked them), and sets the
// headers that go with it.
func (w *responseWriter) decide(empty bool) {
	h := w.rw.Header()
	length := w.declared
	if empty && !w.head {
		length = 0
	}
	// As NGINX's gzip filter and ngx_brotli mark a response for Vary once
	// their type and min_length checks pass, before they look at the
	// request (Accept-Encoding, gzip_proxied): a body no coding takes, by
	// its type or its length, is never compressed, whoever asks, so does
	// not vary. (The file server's 304s judge by the same types:
	// static.Options.VaryEncoding, Options.VaryTest.)
	if w.cfg.varies(true) && w.cfg.anyTakes(w.mediaType, length) {
		w.cfg.addVary(h)
	}
	enc := w.choose(h, length)
	if w.dict != nil {
		// A dictionary-compressed response must vary on both, gzip_vary
		// or not (RFC 9842 section 6.2): a cache must not hand it to a
		// client without the dictionary.
		header.VaryAcceptEncoding(h)
		header.AddVary(h, "Available-Dictionary")
	}
	// The body cache keeps one body per coding; a dictionary's are not
	// kept in it.
	if enc != Identity && w.cfg.cache != nil && w.dict == nil {
		if body := w.lookupBody(h, enc, length); body != nil {
			w.setCodingHeaders(h, enc.String())
			w.serveBody(enc, body)
			return
		}
	}
	if enc != Identity && !w.head {
		if err := w.startEncoder(enc, length); err != nil {
			slog.Error("compress: cannot start encoder, sending identity", "coding", enc, "err", err)
			enc = Identity
			w.cacheKey, w.dict = "", nil
		}
	}
	if enc == Identity {
		w.state = stateIdentity
		w.sendHeader(-1)
		return
	}
	token := enc.String()
	if w.dict != nil {
		token = dictCoding(enc)
	}
	w.setCodingHeaders(h, token)
	if w.head {
		w.state = stateHeadOnly
		return
	}
	w.state = stateCompress
}

// setCodingHeaders makes the headers of a response compressed with the
// content coding token. The values it sets, and Content-Length's when
// the body's length is known (sendHeader), share one allocation: they
// must outlive the writer, which is recycled once the handler returns
// while the access log, outside the filter, may still read them.
//
// The handler's Content-Length stays until the header goes out, where
// sendHeader replaces it with the compressed length or deletes it: a
// one-shot response, which always has its length then, overwrites the
// field in place instead of deleting it here and adding it back (about
// 270 instructions a response; compress README, "Around the encoder, a
// fifth look"), and a Content-Length the handler sets after its first
// write cannot reach the client with a compressed body.
func (w *responseWriter) setCodingHeaders(h http.Header, token string) {
	v := new(codingValues)
	w.values = v
	v.v[0] = token
	h["Content-Encoding"] = v.v[0:1:1]
	// NGINX's filters clear Accept-Ranges on a body they encode. A nil
	// value is no field to every reader of the map (http1's writer and
	// net/http's write none, $sent_http_accept_ranges and the caches
	// read its length), and overwriting the file server's entry runs
	// the map's assignment, which the response runs anyway, where a
	// delete ran code of its own: 268 instructions and 23 I1 misses a
	// response (compress README, "A compressed answer's fields").
	if len(h["Accept-Ranges"]) > 0 {
		h["Accept-Ranges"] = nil
	}
	header.WeakenETagInto(h, v.v[1:2:2], v.etag[:])
}

// codingValues are a compressed response's Content-Encoding, weak ETag
// and Content-Length, the weak ETag's bytes when they fit (as a file
// server's validator, of a time and a size, does) and the length's
// digits.
type codingValues struct {
	v      [3]string
	etag   [48]byte
	digits [20]byte // an int64's 19 and a spare
}

// lengthText returns n (not negative) in decimal, written at the end of
// v.digits: a string over the values' own memory, which the header keeps
// alive as long as it is read, and which nothing writes again (sendHeader
// sends one header). strconv.FormatInt made a string of its own: an
// allocation, after the encoder had pushed the allocator's code out of
// the instruction cache. sendHeader's own share of a /l1/ response went
// 311 → 125 instructions and 32 → 6 I1 misses under callgrind (compress
// README, "The connection's record, one field away").
func (v *codingValues) lengthText(n int64) string {
	i := len(v.digits)
	for {
		i--
		v.digits[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return unsafe.String(&v.digits[i], len(v.digits)-i)
		}
	}
}

// choose returns the best coding the client accepts whose own directives
// take this response, or Identity. length is the body's length, -1 when
// unknown; a body of unknown length (streamed) can be compressed, an empty
// one never.
func (w *responseWriter) choose(h http.Header, length int64) Encoding {
	if length == 0 || (w.ranked.Len() == 0 && w.dreq.dict == nil) {
		return Identity
	}
	// A range request is served from the identity body: NGINX would ignore
	// the Range and compress, but clients asking for a range (resuming a
	// download, seeking in media) want the bytes they asked for.
	if len(w.req.Header["Range"]) > 0 {
		return Identity
	}
	mt := w.mediaType
	takes := func(e Encoding) bool { return w.cfg.takes(e, mt, length) }
	// Compressed against the dictionary the client holds, a body comes out
	// far smaller than in any other coding: dcb and dcz come first, in
	// the order of the server's preference for br and zstd, each where
	// its coding is on and takes the response.
	if q := w.dreq; q.dict != nil && readable(w.req, h) {
		offer := w.cfg.table.Offer()
		for i := 0; i < offer.Len(); i++ {
			if e := offer.At(i); ((e == Brotli && q.dcb) || (e == Zstd && q.dcz)) && takes(e) {
				w.dict = q.dict
				return e
			}
		}
	}
	for i := 0; i < w.ranked.Len(); i++ {
		e := w.ranked.At(i)
		if !takes(e) {
			continue
		}
		if e == Gzip && !w.cfg.gzipAllowed(w.rw, w.req, h, w.fileDated) {
			continue
		}
		return e
	}
	return Identity
}

// takes reports whether coding e's own directives (its types, its
// min_length) take a response of media type mt whose body is length bytes
// long, -1 when unknown.
func (c *config) takes(e Encoding, mt string, length int64) bool {
	cc := &c.coding[e]
	return cc.types.takes(mt, c.skip) && !(length >= 0 && length < cc.minLength)
}

// anyTakes reports whether an enabled coding takes a response of media
// type mt whose body is length bytes long (-1: unknown).
func (c *config) anyTakes(mt string, length int64) bool {
	offer := c.table.Offer()
	for i := 0; i < offer.Len(); i++ {
		if c.takes(offer.At(i), mt, length) {
			return true
		}
	}
	return false
}
