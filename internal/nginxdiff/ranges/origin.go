package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The files' and the origin's modification time.
const mtimeS = "Sun, 13 Sep 2020 12:26:40 GMT"

var mtime, _ = time.Parse(http.TimeFormat, mtimeS)

var sizes = []int{0, 1, 10, 100, 5000}

// content is the n bytes of every file and origin answer of that size.
func content(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = "abcdefghijklmnopqrstuvwxyz0123456789\n"[i%37]
	}
	return b
}

// origin serves /o/<code>/<size>.txt: size bytes with the validators and
// framing that the five letters of code ask for: ETag strong (s), weak
// (w) or none (n); Last-Modified with GMT (y), without (z) or none (n);
// Accept-Ranges bytes (b), none (n) or absent (x); a 206 of its own for
// a single range (p) or not (-); chunked (k) or with a length (-).
func origin(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	// parts: o, code, size(.txt)
	if len(parts) < 3 {
		http.NotFound(w, r)
		return
	}
	code := parts[len(parts)-2]
	n, _ := strconv.Atoi(strings.TrimSuffix(parts[len(parts)-1], ".txt"))
	body := content(n)
	h := w.Header()
	h.Set("Content-Type", "text/plain")
	h.Set("Cache-Control", "max-age=600")
	switch code[0] {
	case 's':
		h.Set("ETag", fmt.Sprintf(`"o-%d"`, n))
	case 'w':
		h.Set("ETag", fmt.Sprintf(`W/"o-%d"`, n))
	}
	switch code[1] {
	case 'y':
		h.Set("Last-Modified", mtimeS)
	case 'z': // no zone: a date to NGINX's ngx_parse_http_time
		h.Set("Last-Modified", strings.TrimSuffix(mtimeS, " GMT"))
	}
	switch code[2] {
	case 'b':
		h.Set("Accept-Ranges", "bytes")
	case 'n':
		h.Set("Accept-Ranges", "none")
	}
	status := 200
	if code[3] == 'p' {
		if rg := r.Header.Get("Range"); strings.HasPrefix(rg, "bytes=") && !strings.Contains(rg, ",") {
			a, b, ok := strings.Cut(rg[6:], "-")
			s, e1 := strconv.Atoi(a)
			e, e2 := strconv.Atoi(b)
			if ok && e1 == nil && e2 == nil && s <= e && e < n {
				h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", s, e, n))
				body = body[s : e+1]
				status = 206
			}
		}
	}
	if code[4] != 'k' {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(status)
	if code[4] == 'k' {
		w.(http.Flusher).Flush()
	}
	w.Write(body)
}
