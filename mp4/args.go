package mp4

// ParseTime reads a "start" or "end" argument as NGINX's mp4 module does:
// seconds with an optional fraction, kept to milliseconds (further
// digits are allowed and dropped, as a Flash player sends many), no sign,
// at most one dot. ok is false for anything else and for a value beyond
// int64 milliseconds.
func ParseTime(s string) (ms int64, ok bool) {
	if s == "" {
		return 0, false
	}
	const maxInt64 = 1<<63 - 1
	const cutoff, cutlim = maxInt64 / 10, maxInt64 % 10
	point, dot := 3, false
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if dot {
				return 0, false
			}
			dot = true
			continue
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		if point == 0 {
			continue // digits past the milliseconds
		}
		if v >= cutoff && (v > cutoff || int64(c-'0') > cutlim) {
			return 0, false
		}
		v = v*10 + int64(c-'0')
		if dot {
			point--
		}
	}
	for ; point > 0; point-- {
		if v > cutoff {
			return 0, false
		}
		v *= 10
	}
	return v, true
}

// Range turns the parsed arguments into what Cut takes, as NGINX does: an
// end without a start starts at 0, an end at or before the start (or 0)
// is no end, and without a start nothing is cut (ok false: the file is
// served whole).
func Range(start int64, haveStart bool, end int64, haveEnd bool) (startMS, lengthMS uint64, ok bool) {
	if !haveStart {
		start = -1
	}
	var length int64
	if haveEnd && end > 0 {
		if start < 0 {
			start = 0
		}
		if end > start {
			length = end - start
		}
	}
	if start < 0 {
		return 0, 0, false
	}
	return uint64(start), uint64(length), true
}
