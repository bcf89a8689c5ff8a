// Package splitclients splits clients into groups by a hash of a key, as
// NGINX's split_clients block (ngx_http_split_clients_module) does for
// A/B testing: each line gives a share in percent (up to two decimals)
// and a value, "*" the rest; a key's MurmurHash2 picks the line. The same
// key lands in the same group as with NGINX. It imports nothing of the
// server.
package splitclients

import (
	"fmt"
	"strconv"
	"strings"
)

// Split is a built split_clients block.
type Split struct {
	parts []part
}

type part struct {
	bound uint32 // the hash values below it take this part; 0 for "*"
	value string
}

// Builder reads the block's lines in order.
type Builder struct {
	parts   []part
	percent []uint32 // each line's share in hundredths of a percent
}

// Line reads one line: a share ("12.5%" or "*") and its value.
func (b *Builder) Line(share string, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("invalid number of parameters")
	}
	var p uint32
	if share != "*" {
		n, ok := hundredths(strings.TrimSuffix(share, "%"))
		if !strings.HasSuffix(share, "%") || !ok || n == 0 {
			return fmt.Errorf("invalid percent value %q", share)
		}
		p = n
	}
	b.percent = append(b.percent, p)
	b.parts = append(b.parts, part{value: args[0]})
	return nil
}

// hundredths reads a decimal with at most two digits after the point as
// NGINX's ngx_atofp(s, 2), in hundredths.
func hundredths(s string) (uint32, bool) {
	whole, frac, dot := strings.Cut(s, ".")
	if s == "" || len(frac) > 2 || dot && frac == "" && whole == "" {
		return 0, false
	}
	for len(frac) < 2 {
		frac += "0"
	}
	digits := whole + frac
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	return uint32(n), err == nil
}

// Split returns the block built, or NGINX's error when the shares add up
// to more than 100%.
func (b *Builder) Split() (*Split, error) {
	var sum, last uint32
	for i, p := range b.percent {
		if p == 0 {
			sum = 10000
		} else {
			sum += p
		}
		if sum > 10000 {
			return nil, fmt.Errorf("percent total is greater than 100%%")
		}
		if p != 0 {
			last += uint32(uint64(p) * 0xffffffff / 10000)
			b.parts[i].bound = last
		}
	}
	return &Split{parts: b.parts}, nil
}

// Pick returns the value for key: that of the first line whose bound its
// hash is under, "" when the shares do not cover it.
func (s *Split) Pick(key string) string {
	h := murmur2(key)
	for _, p := range s.parts {
		if h < p.bound || p.bound == 0 {
			return p.value
		}
	}
	return ""
}

// murmur2 is MurmurHash2 with seed 0, the hash NGINX's split_clients
// uses (ngx_murmur_hash2).
func murmur2(s string) uint32 {
	const m = 0x5bd1e995
	h := uint32(len(s))
	for len(s) >= 4 {
		k := uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
		k *= m
		k ^= k >> 24
		k *= m
		h *= m
		h ^= k
		s = s[4:]
	}
	switch len(s) {
	case 3:
		h ^= uint32(s[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(s[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(s[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
