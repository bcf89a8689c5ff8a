// Package resolver is a small DNS stub resolver for the "resolver"
// directive: it asks the configured servers (and only them: no
// /etc/hosts, no system resolver) for the A and AAAA records of a name, as
// NGINX's resolver does, and caches the answers for their TTL or for the
// "valid=" time.
package resolver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Resolver looks names up with DNS servers. Set its fields before the
// first Lookup; it is then safe for concurrent use.
type Resolver struct {
	// Servers are "host:port" addresses of DNS servers, tried in turn.
	Servers []string
	// Valid, when positive, replaces the answers' TTL as the time an
	// answer is cached.
	Valid time.Duration
	// NoIPv4 and NoIPv6 skip the A or AAAA query ("ipv4=off", "ipv6=off").
	NoIPv4, NoIPv6 bool
	// Timeout bounds a lookup (resolver_timeout); 0 means 30s.
	Timeout time.Duration

	mu    sync.Mutex
	cache map[string]entry
	next  atomic.Uint32
}

type entry struct {
	addrs []netip.Addr
	until time.Time
}

// Error is a failed lookup, worded as NGINX words it in "could not be
// resolved (3: Host not found)".
type Error struct {
	Code int // the DNS rcode, or 110 for a timeout, as NGINX reports
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Msg) }

var rcodeText = map[int]string{
	1: "Format error", 2: "Server failure", 3: "Host not found", 4: "Unimplemented", 5: "Operation refused",
}

// Lookup returns the addresses of name, from the cache while its answer
// is valid.
func (r *Resolver) Lookup(ctx context.Context, name string) ([]netip.Addr, error) {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	now := time.Now()
	r.mu.Lock()
	if e, ok := r.cache[name]; ok && now.Before(e.until) {
		r.mu.Unlock()
		return e.addrs, nil
	}
	r.mu.Unlock()

	timeout := r.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var types []uint16
	if !r.NoIPv4 {
		types = append(types, typeA)
	}
	if !r.NoIPv6 {
		types = append(types, typeAAAA)
	}
	type result struct {
		ans answer
		err error
	}
	results := make(chan result, len(types))
	for _, t := range types {
		go func() {
			a, err := r.query(ctx, name, t)
			results <- result{a, err}
		}()
	}
	var addrs []netip.Addr
	var ttl uint32 = 1<<32 - 1
	var firstErr error
	for range types {
		res := <-results
		if res.err != nil {
			if firstErr == nil {
				firstErr = res.err
			}
			continue
		}
		addrs = append(addrs, res.ans.addrs...)
		if len(res.ans.addrs) > 0 {
			ttl = min(ttl, res.ans.ttl)
		}
	}
	if len(addrs) == 0 {
		if firstErr == nil {
			firstErr = &Error{Code: 3, Msg: rcodeText[3]}
		}
		return nil, firstErr
	}
	valid := time.Duration(ttl) * time.Second
	if r.Valid > 0 {
		valid = r.Valid
	}
	r.mu.Lock()
	if r.cache == nil {
		r.cache = map[string]entry{}
	}
	if len(r.cache) >= maxCache {
		clear(r.cache) // names come from requests: keep the table bounded
	}
	r.cache[name] = entry{addrs: addrs, until: now.Add(valid)}
	r.mu.Unlock()
	return addrs, nil
}

// maxCache bounds the names kept.
const maxCache = 4096

const (
	typeA    uint16 = 1
	typeAAAA uint16 = 28
	classIN  uint16 = 1
)

// query asks the servers in turn, once each, for records of type t.
func (r *Resolver) query(ctx context.Context, name string, t uint16) (answer, error) {
	if len(r.Servers) == 0 {
		return answer{}, errors.New("no resolver defined")
	}
	msg, err := AppendQuery(nil, uint16(rand.Uint32()), name, t)
	if err != nil {
		return answer{}, &Error{Code: 1, Msg: err.Error()}
	}
	id := binary.BigEndian.Uint16(msg)
	var lastErr error
	start := int(r.next.Add(1))
	for i := range r.Servers {
		server := r.Servers[(start+i)%len(r.Servers)]
		a, err := exchange(ctx, server, msg, id, t)
		if err == nil {
			return a, nil
		}
		lastErr = err
		var dnsErr *Error
		if errors.As(err, &dnsErr) && dnsErr.Code == 3 {
			return answer{}, err // the name does not exist: no other server will say more
		}
		if ctx.Err() != nil {
			break
		}
	}
	return answer{}, lastErr
}

func exchange(ctx context.Context, server string, msg []byte, id, t uint16) (answer, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "udp", server)
	if err != nil {
		return answer{}, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	if _, err := c.Write(msg); err != nil {
		return answer{}, err
	}
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return answer{}, &Error{Code: 110, Msg: "Operation timed out"}
			}
			return answer{}, err
		}
		a, err := ParseAnswer(buf[:n], id, t)
		if errors.Is(err, errOtherID) {
			continue // a late answer to an earlier query, or spoofing: keep waiting
		}
		return a, err
	}
}

// AppendQuery appends a DNS query for name's records of type t, with
// recursion desired, to b.
func AppendQuery(b []byte, id uint16, name string, t uint16) ([]byte, error) {
	b = binary.BigEndian.AppendUint16(b, id)
	b = append(b, 0x01, 0x00)             // RD
	b = append(b, 0, 1, 0, 0, 0, 0, 0, 0) // one question
	b, err := appendName(b, name)
	if err != nil {
		return nil, err
	}
	b = binary.BigEndian.AppendUint16(b, t)
	return binary.BigEndian.AppendUint16(b, classIN), nil
}

func appendName(b []byte, name string) ([]byte, error) {
	if name == "" || len(name) > 253 {
		return nil, errors.New("invalid name")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return nil, errors.New("invalid name")
		}
		b = append(b, byte(len(label)))
		b = append(b, label...)
	}
	return append(b, 0), nil
}

// answer is what a response said: the addresses of the records of the
// type asked, and the smallest of their TTLs.
type answer struct {
	addrs []netip.Addr
	ttl   uint32
}

var (
	errOtherID = errors.New("dns: answer to another query")
	errFormat  = errors.New("dns: malformed response")
)

// ParseAnswer reads a DNS response to the query id for records of type t.
// Records of other types (the CNAMEs leading to the addresses) are
// skipped; the addresses are those of every record of type t in the
// answer section.
func ParseAnswer(msg []byte, id, t uint16) (answer, error) {
	if len(msg) < 12 {
		return answer{}, errFormat
	}
	if binary.BigEndian.Uint16(msg) != id {
		return answer{}, errOtherID
	}
	flags := binary.BigEndian.Uint16(msg[2:])
	if flags&0x8000 == 0 {
		return answer{}, errFormat // not a response
	}
	if rcode := int(flags & 0xf); rcode != 0 {
		text := rcodeText[rcode]
		if text == "" {
			text = "Unknown error"
		}
		return answer{}, &Error{Code: rcode, Msg: text}
	}
	qd := int(binary.BigEndian.Uint16(msg[4:]))
	an := int(binary.BigEndian.Uint16(msg[6:]))
	off := 12
	var err error
	for range qd {
		if off, err = skipName(msg, off); err != nil {
			return answer{}, err
		}
		off += 4
	}
	var a answer
	a.ttl = 1<<32 - 1
	for range an {
		if off, err = skipName(msg, off); err != nil {
			return answer{}, err
		}
		if off+10 > len(msg) {
			return answer{}, errFormat
		}
		typ := binary.BigEndian.Uint16(msg[off:])
		class := binary.BigEndian.Uint16(msg[off+2:])
		ttl := binary.BigEndian.Uint32(msg[off+4:])
		n := int(binary.BigEndian.Uint16(msg[off+8:]))
		off += 10
		if off+n > len(msg) {
			return answer{}, errFormat
		}
		data := msg[off : off+n]
		off += n
		if class != classIN || typ != t {
			continue
		}
		var addr netip.Addr
		switch {
		case t == typeA && n == 4:
			addr = netip.AddrFrom4([4]byte(data))
		case t == typeAAAA && n == 16:
			addr = netip.AddrFrom16([16]byte(data))
		default:
			return answer{}, errFormat
		}
		a.addrs = append(a.addrs, addr)
		a.ttl = min(a.ttl, ttl)
	}
	return a, nil
}

// skipName returns the offset past the (possibly compressed) name at off.
func skipName(msg []byte, off int) (int, error) {
	for {
		if off >= len(msg) {
			return 0, errFormat
		}
		l := int(msg[off])
		switch {
		case l == 0:
			return off + 1, nil
		case l&0xc0 == 0xc0:
			if off+2 > len(msg) {
				return 0, errFormat
			}
			return off + 2, nil // a pointer ends the name
		case l&0xc0 != 0:
			return 0, errFormat
		}
		off += 1 + l
	}
}
