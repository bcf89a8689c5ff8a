package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
)

// The files' modification time, and the origin's Last-Modified.
const mtimeS = "Sun, 13 Sep 2020 12:26:40 GMT"

var mtime, _ = time.Parse(http.TimeFormat, mtimeS)

// content is the n bytes of every file and origin answer of that size:
// text that compresses.
func content(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = "the quick brown fox jumps over the lazy dog\n"[i%44]
	}
	return b
}

// gzipped and brotlied are a body's .gz and .br siblings, the same for
// every file of its size (gzip without a name or time).
func gzipped(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

func brotlied(b []byte) []byte {
	var out bytes.Buffer
	bw := brotli.NewWriter(&out)
	bw.Write(b)
	bw.Close()
	return out.Bytes()
}

// gzLen is the length of each size's .gz sibling, for the ETag that
// gzip_static sends.
var gzLen = map[int]int{}

// fileETag is NGINX's ETag of a file of size bytes dated mtime, or of
// its .gz sibling.
func fileETag(size int, gz bool) string {
	if gz {
		size = gzLen[size]
	}
	return fmt.Sprintf(`"%x-%x"`, mtime.Unix(), size)
}

// writeFiles writes every file under root, with the siblings its
// letter names, all dated mtime.
func writeFiles(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	write := func(p string, b []byte) error {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return fmt.Errorf("files: %w", err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			return fmt.Errorf("files: %w", err)
		}
		return nil
	}
	for _, size := range fileSizes {
		body := content(size)
		gz, br := gzipped(body), brotlied(body)
		gzLen[size] = len(gz)
		for _, sib := range siblings {
			for _, ext := range fileExts {
				p := filepath.Join(root, fmt.Sprintf("%s%d.%s", sib, size, ext))
				if err := write(p, body); err != nil {
					return err
				}
				if sib == "g" || sib == "a" {
					if err := write(p+".gz", gz); err != nil {
						return err
					}
				}
				if sib == "b" || sib == "a" {
					if err := write(p+".br", br); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// origin answers /o with what its query asks (gen.go's originQuery): st
// the status, ct the Content-Type ("-": none), ce a Content-Encoding of
// its own (the body encoded to match), ch chunked instead of a length,
// cc Cache-Control, ex Expires, lm Last-Modified, et an ETag, ck a
// Set-Cookie, va a Vary of its own, n the body's length.
func origin(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	idx := func(k string, list []string) (string, bool) {
		v := q.Get(k)
		if v == "" {
			return "", false
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 || i >= len(list) {
			return "", false
		}
		return list[i], true
	}
	h := w.Header()
	status, _ := strconv.Atoi(q.Get("st"))
	n, _ := strconv.Atoi(q.Get("n"))
	body := content(n)
	if ct, _ := idx("ct", originTypes); ct == "-" {
		h["Content-Type"] = nil // net/http would sniff one
	} else {
		h.Set("Content-Type", ct)
	}
	if ce, ok := idx("ce", originEnc); ok {
		switch ce {
		case "gzip":
			body = gzipped(body)
		case "br":
			body = brotlied(body)
		case "-empty-":
			ce = ""
		}
		h["Content-Encoding"] = []string{ce}
	}
	if v, ok := idx("cc", originCC); ok {
		h.Set("Cache-Control", v)
	}
	if v, ok := idx("ex", originExp); ok {
		h.Set("Expires", v)
	}
	if q.Get("lm") != "" {
		h.Set("Last-Modified", mtimeS)
	}
	if v, ok := idx("et", originETag); ok {
		h.Set("ETag", v)
	}
	if q.Get("ck") != "" {
		h.Set("Set-Cookie", "k=v; Path=/")
	}
	if v, ok := idx("va", originVary); ok {
		h.Set("Vary", v)
	}
	switch status {
	case 204, 304:
		body = nil
	case 206:
		if len(body) > 2 {
			h.Set("Content-Range", fmt.Sprintf("bytes 0-1/%d", len(body)))
			body = body[:2]
		}
	}
	chunked := q.Get("ch") != ""
	if !chunked && status != 204 && status != 304 {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(status)
	if chunked && len(body) > 0 {
		w.(http.Flusher).Flush()
	}
	w.Write(body)
}

// decode returns body decoded by its Content-Encoding, or an error
// mark: what both servers send is compared decoded.
func decode(enc string, body []byte) string {
	var out bytes.Buffer
	var err error
	switch strings.ToLower(enc) {
	case "gzip":
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(body)); err == nil {
			_, err = out.ReadFrom(zr)
		}
	case "br":
		_, err = out.ReadFrom(brotli.NewReader(bytes.NewReader(body)))
	default:
		return string(body)
	}
	if err != nil {
		return "UNDECODABLE " + enc + ": " + err.Error()
	}
	return out.String()
}
