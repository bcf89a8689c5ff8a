// Package userid identifies clients by a cookie, as NGINX's
// ngx_http_userid_filter_module does: a request without the cookie is
// given a new identifier (16 bytes, base64 in the cookie), one with it
// is known by it, in the same format as NGINX's, so that the cookies a
// site's NGINX handed out keep their meaning behind mosaic and the other
// way round. It imports nothing of the server.
package userid

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// Mode is the userid directive's value.
type Mode uint8

const (
	Off Mode = iota // no cookie read or set
	Log             // the cookie is read ($uid_got), none is set
	V1              // cookies are set in NGINX's first format
	On              // cookies are set in its second format
)

// Config is one level's settings.
type Config struct {
	Mode Mode
	// Service is userid_service, -1 when unset: then the server's
	// address (On) or 0 (V1) fills the identifier's first word.
	Service int64
	Name    string // the cookie's name ("uid")
	Domain  string // its domain, "" for none
	Path    string // its path ("/")
	// Expires: 0 for a session cookie, else how long the cookie lasts;
	// MaxExpires for NGINX's "max" (31 Dec 2037).
	Expires    time.Duration
	MaxExpires bool
	// Secure, HTTPOnly and SameSite ("strict", "lax", "none", or "")
	// are userid_flags' attributes.
	Secure, HTTPOnly bool
	SameSite         string
	P3P              string // a P3P field to send with the cookie, "" for none
	// Mark is userid_mark's character, 0 for none: a cookie without it
	// is sent again with it.
	Mark byte
}

// Seed: NGINX's worker start value (its pid and the start's
// microseconds) and the two sequences that make identifiers of one
// second unique.
var (
	startLE, startBE = encodeStart(uint32(time.Now().Nanosecond()/1000/20)<<16 | uint32(os.Getpid())&0xffff)
	sequenceV1       atomic.Uint32
	sequenceV2       atomic.Uint32
)

// encodeStart writes the start value in the byte orders of the two
// formats, once: it never changes, and Go 1.26's s390x back end cannot
// assemble the byte-reversed load of a package variable that
// LittleEndian.PutUint32 of it compiled to there ("illegal combination
// MOVWBR ADDR").
func encodeStart(v uint32) (le, be [4]byte) {
	binary.LittleEndian.PutUint32(le[:], v)
	binary.BigEndian.PutUint32(be[:], v)
	return le, be
}

func init() {
	sequenceV1.Store(1)
	sequenceV2.Store(0x03030302)
}

// Request is the identifier of one request.
type Request struct {
	cfg    *Config
	cookie string   // the cookie's value as the client sent it
	got    [16]byte // the identifier it carried, valid when hasGot
	hasGot bool
	set    [16]byte // the identifier to set, valid when hasSet
	hasSet bool
	reset  bool
	done   bool // set has been decided
	// Err is NGINX's complaint about a cookie it could not read ("client
	// sent too short userid cookie"), for the error log; "" when none.
	Err string
}

// Read reads the identifier the client sent in the cookie value (as
// $cookie_NAME gives it, "" when absent).
func Read(cfg *Config, cookie string) *Request {
	q := &Request{cfg: cfg, cookie: cookie}
	if cookie == "" {
		return q
	}
	if len(cookie) < 22 {
		q.Err = fmt.Sprintf("client sent too short userid cookie %q", cookie)
		return q
	}
	// As NGINX, only the first 22 characters count: a mark, and the
	// "==" padding that many cookies lost, may follow. NGINX's decoder
	// (ngx_decode_base64) stops at the first "=", so a cookie with one
	// among them is read up to it, the identifier's rest left zero.
	src := cookie[:22]
	if i := strings.IndexByte(src, '='); i >= 0 {
		src = src[:i]
	}
	if _, err := base64.RawStdEncoding.Decode(q.got[:], []byte(src)); err != nil {
		q.Err = fmt.Sprintf("client sent invalid userid cookie %q", cookie)
		q.got = [16]byte{}
		return q
	}
	q.hasGot = word(q.got, 3) != 0
	return q
}

// word is the i-th 32-bit word of id as NGINX holds it in memory on a
// little-endian machine, which is what its variables print.
func word(id [16]byte, i int) uint32 { return binary.LittleEndian.Uint32(id[4*i:]) }

func format(name string, id [16]byte) string {
	return fmt.Sprintf("%s=%08X%08X%08X%08X", name, word(id, 0), word(id, 1), word(id, 2), word(id, 3))
}

// Got is $uid_got: the name and the identifier the client sent, in hex;
// "" when it sent none that reads.
func (q *Request) Got() string {
	if q.cfg.Mode == Off || !q.hasGot {
		return ""
	}
	return format(q.cfg.Name, q.got)
}

// Set is $uid_set: the identifier the response sets, "" when it sets
// none (the client's cookie stands, or userid is not v1 or on). reset is
// $uid_reset's value: "" or "0" keeps a cookie the client sent, any other
// value replaces it ("log" also logs the old one: logged is set then).
// local is the server's address on the connection (for the first word of
// an identifier in the On format; invalid for a Unix-domain socket).
func (q *Request) Set(reset string, local netip.Addr, now time.Time) (value string, logged string) {
	if q.cfg.Mode < V1 {
		return "", ""
	}
	logged = q.decide(reset, local, now)
	if !q.hasSet {
		return "", logged
	}
	return format(q.cfg.Name, q.set), logged
}

// decide chooses the identifier to set, once per request, as NGINX's
// ngx_http_userid_create_uid; it returns the notice of a logged reset.
func (q *Request) decide(reset string, local netip.Addr, now time.Time) (logged string) {
	if q.done {
		return ""
	}
	q.done = true
	if q.hasGot {
		if reset == "" || reset == "0" {
			m := q.cfg.Mark
			if m == 0 || len(q.cookie) > 23 && q.cookie[22] == m && q.cookie[23] == '=' {
				return ""
			}
			// The cookie lacks the mark: the same identifier goes out again,
			// marked.
			q.set, q.hasSet = q.got, true
			return ""
		}
		q.reset = true
		if reset == "log" {
			logged = fmt.Sprintf("userid cookie %q was reset", format(q.cfg.Name, q.got))
		}
	}
	sec := uint32(now.Unix())
	if q.cfg.Mode == V1 {
		var service uint32
		if q.cfg.Service >= 0 {
			service = uint32(q.cfg.Service)
		}
		binary.LittleEndian.PutUint32(q.set[0:], service)
		binary.LittleEndian.PutUint32(q.set[4:], sec)
		copy(q.set[8:12], startLE[:])
		binary.LittleEndian.PutUint32(q.set[12:], sequenceV1.Add(0x100)-0x100)
	} else {
		switch {
		case q.cfg.Service >= 0:
			binary.BigEndian.PutUint32(q.set[0:], uint32(q.cfg.Service))
		case local.Is4() || local.Is4In6():
			a := local.Unmap().As4()
			copy(q.set[0:4], a[:])
		case local.Is6():
			a := local.As16()
			copy(q.set[0:4], a[12:])
		}
		binary.BigEndian.PutUint32(q.set[4:], sec)
		copy(q.set[8:12], startBE[:])
		binary.BigEndian.PutUint32(q.set[12:], nextV2())
	}
	q.hasSet = true
	return logged
}

// nextV2 returns the On format's next sequence number, which NGINX keeps
// at 0x03030302 or above.
func nextV2() uint32 {
	for {
		old := sequenceV2.Load()
		next := old + 0x100
		if next < 0x03030302 {
			next = 0x03030302
		}
		if sequenceV2.CompareAndSwap(old, next) {
			return old
		}
	}
}

// maxExpires is NGINX's "userid_expires max".
const maxExpires = "; expires=Thu, 31-Dec-37 23:55:55 GMT"

// Cookie is the Set-Cookie value for the identifier Set chose, "" when
// there is none to set.
func (q *Request) Cookie(now time.Time) string {
	if !q.hasSet {
		return ""
	}
	c := q.cfg
	var b strings.Builder
	b.WriteString(c.Name)
	b.WriteByte('=')
	if !q.hasGot || q.reset {
		enc := base64.StdEncoding.EncodeToString(q.set[:])
		if c.Mark != 0 {
			enc = enc[:22] + string(c.Mark) + enc[23:]
		}
		b.WriteString(enc)
	} else {
		b.WriteString(q.cookie[:22])
		b.WriteByte(c.Mark)
		b.WriteByte('=')
	}
	switch {
	case c.MaxExpires:
		b.WriteString(maxExpires)
	case c.Expires > 0:
		b.WriteString("; expires=")
		b.WriteString(CookieTime(now.Add(c.Expires)))
	}
	if c.Domain != "" {
		b.WriteString("; domain=")
		b.WriteString(c.Domain)
	}
	b.WriteString("; path=")
	b.WriteString(c.Path)
	if c.Secure {
		b.WriteString("; secure")
	}
	if c.HTTPOnly {
		b.WriteString("; httponly")
	}
	if c.SameSite != "" {
		b.WriteString("; samesite=")
		b.WriteString(c.SameSite)
	}
	return b.String()
}

// CookieTime formats t as NGINX's ngx_http_cookie_time: a two-digit year
// up to 2037 (for browsers of the Netscape 3 era), four digits after.
func CookieTime(t time.Time) string {
	t = t.UTC()
	if t.Year() > 2037 {
		return t.Format("Mon, 02-Jan-2006 15:04:05 GMT")
	}
	return t.Format("Mon, 02-Jan-06 15:04:05 GMT")
}
