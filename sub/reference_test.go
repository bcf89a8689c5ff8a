package sub

import "slices"

// nginxReplace is a port of NGINX 1.22's ngx_http_sub_parse and the body
// filter around it for a body in one buffer (the last): the Horspool scan
// over the shortest pattern, the patterns sorted by their byte at that
// length, the partial match that waits, the text left as it is at the end.
// It is the reference the Replacer's results are checked against.
func nginxReplace(pats, subs []string, once bool, text []byte) string {
	type match struct {
		m   []byte
		sub string
	}
	var ms []match
	for i, p := range pats {
		if p == "" {
			continue
		}
		m := []byte(p)
		for j, c := range m {
			m[j] = lower(c)
		}
		ms = append(ms, match{m, subs[i]})
	}
	if len(ms) == 0 {
		return string(text)
	}
	minLen := len(ms[0].m)
	for _, m := range ms[1:] {
		minLen = min(minLen, len(m.m))
	}
	slices.SortStableFunc(ms, func(a, b match) int { return int(a.m[minLen-1]) - int(b.m[minLen-1]) })
	var shift [256]int
	var index [257]int
	sm := min(minLen, 255)
	for c := range shift {
		shift[c] = sm
	}
	ch := 0
	for i, m := range ms {
		for j := 0; j < sm; j++ {
			c := m.m[minLen-1-j]
			shift[c] = min(shift[c], j)
		}
		c := int(m.m[minLen-1])
		for ch <= c {
			index[ch] = i
			ch++
		}
	}
	for ch < 257 {
		index[ch] = len(ms)
		ch++
	}

	var out []byte
	applied := make([]bool, len(ms))
	nApplied, ctxIndex, ctxOnce := 0, 0, false
	pos, ctxOffset := 0, minLen-1
	var looked []byte
	for pos < len(text) {
		buf := text[pos:]
		end := len(buf)
		offset := ctxOffset
		var start, next int
		ok := false
		if ctxOnce {
			offset = end + minLen - 1
		} else {
		scan:
			for offset < end {
				c := lower(buf[offset])
				if shift[c] > 0 {
					offset += shift[c]
					continue
				}
				start = offset - minLen + 1
				for i := max(index[c], ctxIndex); i != index[int(c)+1]; i++ {
					if once && applied[i] {
						continue
					}
					switch compare(buf[start:], ms[i].m) {
					case mismatch:
						continue
					case partial:
						ctxIndex = i
						break scan
					}
					ctxIndex = i
					ctxOffset = offset + len(ms[i].m)
					next = start + len(ms[i].m)
					end = next
					ok = true
					break scan
				}
				offset++
				ctxIndex = 0
			}
		}
		if !ok {
			ctxOffset = offset
			start = offset - minLen + 1
			next = start
		}
		out = append(out, buf[:max(start, 0)]...)
		looked = buf[next:end]
		pos += end
		ctxOffset -= end
		if ok {
			out = append(out, ms[ctxIndex].sub...)
			if !applied[ctxIndex] {
				applied[ctxIndex] = true
				nApplied++
			}
			ctxIndex = 0
			ctxOnce = once && nApplied == len(ms)
		}
	}
	return string(append(out, looked...))
}
