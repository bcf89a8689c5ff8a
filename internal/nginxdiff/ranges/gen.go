package main

import (
	"fmt"
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The generator draws from the global rnd in a fixed order: a seed gives
// the same requests as in the runs that static/README.md cites. Change
// the draws and those seeds no longer reproduce them.

// rnd is the generator's source, seeded by -seed.
var rnd *rand.Rand

// lmChoice is the code for an origin's Last-Modified: with -looselm,
// one without GMT, which NGINX's upstream module reads all the same.
func lmChoice() string {
	if *looseLM {
		return "z"
	}
	return "y"
}

func pick(xs ...string) string { return xs[rnd.Intn(len(xs))] }

func num(size int) string {
	switch rnd.Intn(10) {
	case 0:
		return strconv.Itoa(size)
	case 1:
		return strconv.Itoa(size + rnd.Intn(3) - 1)
	case 2:
		return pick("9223372036854775807", "9223372036854775808", "99999999999999999999", "0000000000000000000000005", "18446744073709551616")
	case 3:
		return "0"
	default:
		if size <= 0 {
			return strconv.Itoa(rnd.Intn(4))
		}
		return strconv.Itoa(rnd.Intn(size + size/4 + 2))
	}
}

func sp() string {
	if rnd.Intn(8) == 0 {
		return pick(" ", "  ", "\t")
	}
	return ""
}

func oneRange(size int) string {
	switch rnd.Intn(8) {
	case 0:
		return sp() + "-" + sp() + num(size) + sp()
	case 1:
		return sp() + num(size) + sp() + "-" + sp()
	case 2:
		return pick("", "a-b", "-", "--1", "1-2-3", "+1-2", "1 2-3", "0x1-2", "-1-2", "5-2", "1-1")
	default:
		a := num(size)
		b := num(size)
		if rnd.Intn(3) > 0 {
			ai, _ := strconv.Atoi(a)
			bi, _ := strconv.Atoi(b)
			if ai > bi {
				a, b = b, a
			}
		}
		return sp() + a + sp() + "-" + sp() + b + sp()
	}
}

func rangeValue(size int) string {
	unit := "bytes="
	switch rnd.Intn(20) {
	case 0:
		unit = pick("Bytes=", "BYTES=", "bytes =", "bytes= ", "items=", "byte=", "bytes")
	}
	n := 1
	switch rnd.Intn(6) {
	case 0, 1:
		n = 2 + rnd.Intn(3)
	case 2:
		n = 1 + rnd.Intn(12)
	}
	if rnd.Intn(60) == 0 {
		n = 50 + rnd.Intn(200)
	}
	rs := make([]string, n)
	for i := range rs {
		rs[i] = oneRange(size)
	}
	sep := ","
	if rnd.Intn(10) == 0 {
		sep = pick(", ", " ,", ",,", ";")
	}
	return unit + strings.Join(rs, sep)
}

func date(off time.Duration) string {
	t := mtime.Add(off)
	switch rnd.Intn(6) {
	case 0:
		return t.Format("Monday, 02-Jan-06 15:04:05 GMT")
	case 1:
		return t.Format("Mon Jan _2 15:04:05 2006")
	case 2:
		if *goodDates {
			return t.Format(http.TimeFormat)
		}
		return pick("yesterday", "", "Sun, 13 Sep 2020 12:26:40", "Sun, 13  Sep 2020 12:26:40 GMT", "sun, 13 sep 2020 12:26:40 gmt",
			"Sun, 13 Sep 2020 12:26:40 UTC", "Sun, 13 Sep 2020 12:26:40 GMT ", "13 Sep 2020 12:26:40 GMT", "Sun, 13 Sep 2020 2:26:40 GMT", "Sun, 13 Sep 20 12:26:40 GMT", "Mon, 13 Sep 2020 12:26:40 GMT", "Sun, 31 Sep 2020 12:26:40 GMT", "Sun, 13 Sep 2020 24:26:40 GMT")
	default:
		return t.Format(http.TimeFormat)
	}
}

func validatorDate() string {
	return date(time.Duration(pick3(-1, 0, 1, 0, 0, -3600, 86400)) * time.Second)
}

func pick3(xs ...int) int { return xs[rnd.Intn(len(xs))] }

func tag(etag string) string {
	switch rnd.Intn(9) {
	case 0, 1, 2:
		return etag
	case 3:
		return "W/" + etag
	case 4:
		return strings.TrimPrefix(etag, "W/")
	case 5:
		return `"x"`
	case 6:
		return pick("*", "", "nonsense", `"`, `W/"`, etag+"x", `"`+strings.Trim(etag, `"W/`), ` `+etag)
	default:
		return pick(`"x", `, `"x",`, `*, `, `W/"x" , `) + etag
	}
}

func tagList(etag string) string {
	if rnd.Intn(4) == 0 {
		return tag(etag) + pick(", ", ",", " ,\t") + tag(etag)
	}
	return tag(etag)
}

type req struct {
	method, path string
	hdr          [][2]string
}

func (r req) raw() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n", r.method, r.path)
	for _, h := range r.hdr {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	b.WriteString("\r\n")
	return b.String()
}

var keyN int

func genPath() (path string, size int, etag string) {
	size = sizes[rnd.Intn(len(sizes))]
	ext := pick(".txt", ".bin")
	staticTag := func() string {
		return fmt.Sprintf(`"%x-%x"`, mtime.Unix(), size)
	}
	switch rnd.Intn(12) {
	case 0, 1:
		return "/s/" + strconv.Itoa(size) + ext, size, staticTag()
	case 2:
		return pick("/sb/", "/so/", "/se/", "/s0/") + strconv.Itoa(size) + ext, size, staticTag()
	case 3:
		return "/sg/" + strconv.Itoa(size) + ".txt", size, staticTag()
	case 4:
		if rnd.Intn(2) == 0 {
			return "/ep/missing", 100, fmt.Sprintf(`"%x-%x"`, mtime.Unix(), 100)
		}
		return "/e2/missing", 100, fmt.Sprintf(`"%x-%x"`, mtime.Unix(), 100)
	default:
		code := pick("s", "w", "n") + pick("y", "n", lmChoice()) + pick("b", "n", "x") + pick("p", "-", "-") + pick("k", "-", "-", "-")
		tg := fmt.Sprintf(`"o-%d"`, size)
		if code[0] == 'w' {
			tg = "W/" + tg
		}
		loc := pick("/o/", "/pf/", "/pg/", "/c/", "/c/", "/cf/")
		p := loc + code + "/" + strconv.Itoa(size) + ".txt"
		if loc == "/c/" || loc == "/cf/" {
			keyN++
			p += "?k=" + strconv.Itoa(keyN/2) // two requests per key: a miss, then a hit
		}
		return p, size, tg
	}
}

func genReq() req {
	path, size, etag := genPath()
	r := req{method: "GET", path: path}
	if rnd.Intn(8) == 0 {
		r.method = "HEAD"
	}
	if rnd.Intn(10) < 8 {
		r.hdr = append(r.hdr, [2]string{pick("Range", "Range", "Range", "range", "RANGE"), rangeValue(size)})
	}
	if rnd.Intn(5) == 0 {
		if rnd.Intn(2) == 0 {
			r.hdr = append(r.hdr, [2]string{"If-Range", tag(etag)})
		} else {
			r.hdr = append(r.hdr, [2]string{"If-Range", validatorDate()})
		}
	}
	if rnd.Intn(5) == 0 {
		r.hdr = append(r.hdr, [2]string{"If-Modified-Since", validatorDate()})
	}
	if rnd.Intn(7) == 0 {
		r.hdr = append(r.hdr, [2]string{"If-Unmodified-Since", validatorDate()})
	}
	if rnd.Intn(6) == 0 {
		r.hdr = append(r.hdr, [2]string{"If-None-Match", tagList(etag)})
	}
	if rnd.Intn(7) == 0 {
		r.hdr = append(r.hdr, [2]string{"If-Match", tagList(etag)})
	}
	// mosaic serves a Range request's identity body by design
	// (compress/README.md): gzip only without Range there.
	gz := strings.HasPrefix(path, "/sg/") || strings.HasPrefix(path, "/pg/")
	if rnd.Intn(2) == 0 && !(gz && len(r.hdr) > 0 && r.hdr[0][0] != "If-Range" && strings.EqualFold(r.hdr[0][0], "range")) {
		r.hdr = append(r.hdr, [2]string{"Accept-Encoding", "gzip"})
	}
	rnd.Shuffle(len(r.hdr), func(i, j int) { r.hdr[i], r.hdr[j] = r.hdr[j], r.hdr[i] })
	return r
}
