package slice

import "github.com/mosaic-edge/mosaic/internal/byterange"

// ParseContentRange reads a slice's Content-Range as NGINX's slice module
// does: "bytes START-END/LENGTH", spaces allowed around each part, the
// unit in lower case, LENGTH "*" when unknown (returned as -1). The range
// is returned with its end exclusive; whether it lies within the length
// is left to the caller, which compares it with the range it asked for.
func ParseContentRange(v string) (rg byterange.Range, total int64, ok bool) {
	if len(v) < 7 || v[:6] != "bytes " {
		return rg, 0, false
	}
	p := 6
	spaces := func() {
		for p < len(v) && v[p] == ' ' {
			p++
		}
	}
	// number reads at least one digit, refusing a value past int64.
	number := func() (int64, bool) {
		if p == len(v) || v[p] < '0' || v[p] > '9' {
			return 0, false
		}
		var n int64
		for ; p < len(v) && '0' <= v[p] && v[p] <= '9'; p++ {
			d := int64(v[p] - '0')
			if n > (1<<63-1-d)/10 {
				return 0, false
			}
			n = n*10 + d
		}
		return n, true
	}
	spaces()
	start, ok := number()
	if !ok {
		return rg, 0, false
	}
	spaces()
	if p == len(v) || v[p] != '-' {
		return rg, 0, false
	}
	p++
	spaces()
	last, ok := number()
	if !ok || last == 1<<63-1 {
		return rg, 0, false
	}
	spaces()
	if p == len(v) || v[p] != '/' {
		return rg, 0, false
	}
	p++
	spaces()
	total = -1
	if p < len(v) && v[p] == '*' {
		p++
	} else if total, ok = number(); !ok {
		return rg, 0, false
	}
	spaces()
	if p != len(v) {
		return rg, 0, false
	}
	return byterange.Range{Start: start, End: last + 1}, total, true
}
