package static

import (
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/mosaic-edge/mosaic/internal/byterange"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/vars"
)

// serveFile answers GET or HEAD with the regular file f, found at rel.
// v is the precompressed variant f is, the zero Variant for the file
// itself.
func (h *FileServer) serveFile(w http.ResponseWriter, r *http.Request, f *file, rel string, v Variant) {
	encoding := v.Encoding
	size, mtime := f.info.size, f.info.mtime
	body := Cut{To: size}
	if h.cut != nil && encoding == "" {
		// Cut before the preconditions, as NGINX's content handler runs
		// before its not-modified filter: a bad request is refused even
		// when the client holds the file.
		c, status := h.cut(r, f.d, size)
		if status != 0 {
			h.fail(w, r, status)
			return
		}
		body, size = c, c.size()
	}
	ctype := h.contentType(rel)
	if ctype == "" {
		ctype = h.defaultType
	}
	// A body that a filter rebuilds has none of the file's validators and
	// none of its byte offsets: only the whole file can become it.
	whole := h.transformed != nil && h.transformed(ctype)
	// The validators are formatted once into a stack buffer, compared as
	// bytes, and turned into header strings with a single allocation. A
	// file whose descriptor the open file cache keeps has them formatted
	// already (sharedFD.validators): they are copied into b, and kept, the
	// string a 200 for the whole file would build from b, is used as it is.
	var buf [128]byte
	b := buf[:0]
	etagLen := 0
	kept := ""
	if f.shared != nil && size == f.info.size {
		v := f.shared.validators(f.info)
		kept = v.s
		if h.etag {
			etagLen = v.etagEnd
		} else {
			kept = v.s[v.etagEnd:]
		}
		b = append(b, kept[:len(kept)-(len(v.s)-v.dateEnd)]...)
	} else {
		if h.etag {
			b = appendETag(b, mtime, size)
		}
		etagLen = len(b)
		b = header.AppendDate(b, time.Unix(mtime, 0))
	}
	validatorsLen := len(b)

	// A file that an error page serves with its error's status
	// ("error_page 404 /404.html") is neither validated nor ranged: NGINX's
	// not-modified and range filters act on a 200 only, and the page's
	// status is the response's by then. With "=" or "=200" it is a 200.
	errorPage := errorStatus(r)
	status := 0
	asked := askedFor(r.Header)
	if !errorPage && asked.conditions {
		status = preconditions(r.Header, b[:etagLen], mtime, h.ims, whole)
	}
	switch status {
	case http.StatusNotModified:
		// Like NGINX, a 304 carries the validators (a rebuilt body has
		// none) and no representation headers. It also carries the Vary
		// its 200 would, which a compressing filter cannot add: it has no
		// Content-Type to judge by.
		hdr := w.Header()
		if !whole {
			s := kept
			if s == "" {
				s = string(b)
			}
			vals := make([]string, 2)
			vals[0] = s[etagLen:validatorsLen]
			hdr["Last-Modified"] = vals[0:1:1]
			if etagLen > 0 {
				vals[1] = s[:etagLen]
				hdr["Etag"] = vals[1:2:2]
			}
		}
		// The filter judges the 200 by its type and length; a body a
		// filter rebuilds reaches it with no length.
		length := size
		if whole {
			length = -1
		}
		h.varyAs200(hdr, encoding, ctype, length)
		w.WriteHeader(status)
		return
	case http.StatusPreconditionFailed:
		h.fail(w, r, status)
		return
	}

	var one [1]byterange.Range
	// An empty file is not rewritten (NGINX's sub filter passes over a
	// Content-Length of 0), so it keeps its ranges.
	// A precompressed copy is sent whole, without Accept-Ranges: neither
	// NGINX 1.22's gzip_static nor ngx_brotli's static module allows
	// ranges (r->allow_ranges), and a range of the gzip bytes that gunzip
	// decodes for a client could not be decoded anyway.
	unranged := size > 0 && h.unranged != nil && h.unranged(ctype) || encoding != ""
	maxRanges := h.maxRanges
	if body.SingleRange && maxRanges != 1 && maxRanges >= 0 {
		maxRanges = 1
	}
	ranges, verdict := h.ranges(r, b[:etagLen], mtime, size, maxRanges, !asked.ranges || whole || unranged || errorPage, one[:0])
	if verdict == byterange.NotSatisfiable {
		// The 416 goes without the 200's Last-Modified, which "expires
		// modified" counted from in NGINX before the 200 was refused.
		header.RangeOf200(w, string(b[etagLen:validatorsLen]), ctype)
		b = append(b[:0], "bytes */"...)
		w.Header()["Content-Range"] = []string{string(strconv.AppendInt(b, size, 10))}
		// NGINX's range filter turns the 200 into a 416 after the gzip
		// filter marked it for Vary, so the 416 keeps that Vary.
		h.varyAs200(w.Header(), encoding, ctype, size)
		h.fail(w, r, http.StatusRequestedRangeNotSatisfiable)
		return
	}
	if len(ranges) > 0 {
		// A 206 carries its Last-Modified.
		header.RangeOf200(w, "", ctype)
	}
	if encoding != "" {
		// Set only now: a 304 or an error page is not the variant's body.
		w.Header()["Content-Encoding"] = []string{encoding}
	}
	if len(ranges) > 1 {
		h.serveMultipart(w, r, f, body, rel, b[:validatorsLen], etagLen, ctype, size, ranges)
		return
	}

	status, start, length := http.StatusOK, int64(0), size
	if len(ranges) == 1 {
		status, start, length = http.StatusPartialContent, ranges[0].Start, ranges[0].End-ranges[0].Start
		b = append(b, "bytes "...)
		b = byterange.AppendContentRange(b, ranges[0], size)
	}
	rangeEnd := len(b)
	// A kept file's whole answer has its length formatted already, after
	// its validators.
	s := kept
	if s == "" || status != http.StatusOK {
		s = string(strconv.AppendInt(b, length, 10))
	}
	hdr := w.Header()
	// One backing array holds every header value slice; the keys are in
	// canonical form, so the map is written directly.
	vals := make([]string, 5)
	vals[0] = ctype
	hdr["Content-Type"] = vals[0:1:1]
	vals[1] = s[rangeEnd:]
	hdr["Content-Length"] = vals[1:2:2]
	vals[2] = s[etagLen:validatorsLen]
	hdr["Last-Modified"] = vals[2:3:3]
	if len(r.Header["Via"]) > 0 {
		// Only gzip_proxied reads it, for requests through a proxy: the
		// walk down the writers is spared the others.
		header.FileDated(w)
	}
	if etagLen > 0 {
		vals[3] = s[:etagLen]
		hdr["Etag"] = vals[3:4:4]
	}
	if status == http.StatusPartialContent {
		// NGINX sends Accept-Ranges only with the whole file.
		vals[4] = s[validatorsLen:rangeEnd]
		hdr["Content-Range"] = vals[4:5:5]
	} else if h.maxRanges >= 0 && !unranged {
		vals[4] = "bytes"
		hdr["Accept-Ranges"] = vals[4:5:5]
	}
	inline := length <= inlineMax
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	if err := body.send(w, f, start, length, inline); err != nil {
		h.log.LogAttrs(r.Context(), slog.LevelInfo, "static: sending file failed",
			slog.String("path", h.fsPath(rel)), slog.Any("error", err))
	}
}

// errorStatus reports whether r is answered with a status other than 200
// set before its content handler ran: an error_page's (the server sets
// it in the request's vars.State, as NGINX's err_status). Outside the
// server there is none.
func errorStatus(r *http.Request) bool {
	st := vars.FromContext(r.Context())
	return st != nil && st.Status != 0 && st.Status != http.StatusOK
}

// ranges decides what the request's Range header asks for, honouring
// If-Range and maxRanges (MaxRanges, or less for this body); with whole
// set it asks for nothing.
func (h *FileServer) ranges(r *http.Request, etag []byte, mtime, size int64, maxRanges int, whole bool, out []byterange.Range) ([]byterange.Range, byterange.Verdict) {
	if maxRanges < 0 || whole {
		return nil, byterange.Whole
	}
	v := r.Header["Range"]
	if len(v) == 0 {
		return nil, byterange.Whole
	}
	spec, ok := byterange.Spec(v[0])
	if !ok {
		return nil, byterange.Whole
	}
	if ir := r.Header["If-Range"]; len(ir) > 0 && !ifRangeAllows(ir[0], etag, mtime) {
		return nil, byterange.Whole
	}
	return byterange.Parse(spec, size, maxRanges, out)
}

// varyAs200 adds to hdr the Vary: Accept-Encoding (and Available-Dictionary)
// that the 200 of a file of type ctype and length would get from a
// compressing filter around the FileServer (Options.VaryEncoding), for an
// answer that stands for that 200 but whose own type the filter cannot
// judge by: a 304 has none, a multipart 206 and a 416 another. A variant
// (encoding set) carries its own Vary.
func (h *FileServer) varyAs200(hdr http.Header, encoding, ctype string, length int64) {
	if encoding == "" && h.varyEnc != nil && h.varyEnc(ctype, length) {
		header.VaryAcceptEncoding(hdr)
		if h.varyDict {
			header.AddVary(hdr, "Available-Dictionary")
		}
	}
}

// serveMultipart answers with several ranges of the body that body makes
// of f as a multipart/byteranges body laid out like NGINX's. validators
// holds the formatted ETag (its first etagLen bytes) and Last-Modified.
func (h *FileServer) serveMultipart(w http.ResponseWriter, r *http.Request, f *file, body Cut, rel string,
	validators []byte, etagLen int, ctype string, size int64, ranges []byterange.Range) {
	boundary := byterange.NextBoundary()
	ctype = byterange.PartType(r.Context(), ctype)
	// Every part header is formatted up front: the sum gives Content-Length,
	// and the body is then the headers interleaved with file sections.
	var heads []byte
	ends := make([]int, len(ranges))
	length := int64(0)
	for i, rg := range ranges {
		heads = byterange.AppendPartHeader(heads, boundary, ctype, rg, size)
		ends[i] = len(heads)
		length += rg.End - rg.Start
	}
	closing := byterange.AppendClosingBoundary(nil, boundary)
	length += int64(len(heads) + len(closing))

	hdr := w.Header()
	// The filter cannot judge this 206 by its type, multipart's: the
	// Vary of its 200 is added here, as NGINX's gzip filter marks the
	// 200 before the range filter cuts it into parts.
	// (A variant, with its Content-Encoding, is never cut into parts.)
	h.varyAs200(hdr, "", ctype, size)
	hdr["Content-Type"] = []string{"multipart/byteranges; boundary=" + boundary}
	hdr["Content-Length"] = []string{strconv.FormatInt(length, 10)}
	hdr["Last-Modified"] = []string{string(validators[etagLen:])}
	if etagLen > 0 {
		hdr["Etag"] = []string{string(validators[:etagLen])}
	}
	w.WriteHeader(http.StatusPartialContent)
	if r.Method == http.MethodHead {
		return
	}
	if err := writeParts(w, f, body, heads, ends, closing, ranges); err != nil {
		h.log.LogAttrs(r.Context(), slog.LevelInfo, "static: sending file failed",
			slog.String("path", h.fsPath(rel)), slog.Any("error", err))
	}
}

func writeParts(w http.ResponseWriter, f *file, body Cut, heads []byte, ends []int, closing []byte, ranges []byterange.Range) error {
	prev := 0
	for i, rg := range ranges {
		if _, err := w.Write(heads[prev:ends[i]]); err != nil {
			return fmt.Errorf("write part header: %w", err)
		}
		prev = ends[i]
		// A part no longer than the connection buffer is copied into it
		// with the part headers; a longer one goes out with sendfile.
		n := rg.End - rg.Start
		if err := body.send(w, f, rg.Start, n, n <= inlineMax); err != nil {
			return err
		}
	}
	if _, err := w.Write(closing); err != nil {
		return fmt.Errorf("write closing boundary: %w", err)
	}
	return nil
}
