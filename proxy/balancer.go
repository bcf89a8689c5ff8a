package proxy

import (
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"time"
)

// Method is how an upstream group picks the server for a request: one of
// NGINX's balancing methods.
type Method uint8

// The balancing methods, named after the directives that choose them.
const (
	// RoundRobin is the default: NGINX's smooth weighted round robin.
	RoundRobin Method = iota
	// LeastConn (least_conn) picks the server with the fewest active
	// requests relative to its weight, round robin among equals.
	LeastConn
	// Hash (hash KEY) maps the key onto the servers by weight, as
	// Cache::Memcached does; a server out of rotation sends the key on to
	// another, rehashed.
	Hash
	// ConsistentHash (hash KEY consistent) places 160 points per weight
	// unit of every server on a ketama ring, so that adding or removing a
	// server moves only the keys of its arcs.
	ConsistentHash
	// IPHash (ip_hash) hashes the first three octets of a client's IPv4
	// address, or the whole IPv6 address.
	IPHash
	// Random (random) picks a server at random, by weight.
	Random
	// RandomTwo (random two [least_conn]) draws two servers at random and
	// takes the one with fewer active requests relative to its weight.
	RandomTwo
)

// String is the method's directive.
func (m Method) String() string {
	switch m {
	case RoundRobin:
		return "round_robin"
	case LeastConn:
		return "least_conn"
	case Hash:
		return "hash"
	case ConsistentHash:
		return "hash consistent"
	case IPHash:
		return "ip_hash"
	case Random:
		return "random"
	case RandomTwo:
		return "random two least_conn"
	}
	return "Method(" + strconv.Itoa(int(m)) + ")"
}

// SupportsBackup reports whether the method takes backup servers: only
// round robin and least_conn, as in NGINX, whose configuration refuses a
// backup line after another method. A group given backup servers anyway
// (NGINX accepts those listed before the method) uses them as NGINX
// does: by round robin, once the method has found no primary server.
func (m Method) SupportsBackup() bool { return m == RoundRobin || m == LeastConn }

// hashTries is how many servers a hashing or random method looks at for
// one request before it falls back to round robin, as in NGINX.
const hashTries = 20

// chashPointsPerWeight is the number of points a server of weight 1 has on
// the consistent-hash ring.
const chashPointsPerWeight = 160

// SetMethod makes the group balance with m. key is the hash key of a
// request, required by Hash and ConsistentHash and unused by the others
// (the server compiles the hash directive's argument into it). Call it
// before the group serves requests.
func (u *Upstream) SetMethod(m Method, key func(*http.Request) string) error {
	switch m {
	case Hash, ConsistentHash:
		if key == nil {
			return errors.New("the hash method needs a key")
		}
	case RoundRobin, LeastConn, IPHash, Random, RandomTwo:
	default:
		return errors.New("unknown balancing method " + m.String())
	}
	u.method, u.hashKey = m, key
	u.ring = nil
	if m == ConsistentHash {
		u.ring = buildRing(u.primary)
	}
	return nil
}

// Method returns the group's balancing method.
func (u *Upstream) Method() Method { return u.method }

// ringPoint is a point of the consistent-hash ring: a hash and the server
// line (as written) it belongs to.
type ringPoint struct {
	hash   uint32
	server string
}

// buildRing places each server's points as NGINX does, for compatibility
// with Cache::Memcached::Fast: the base is the CRC-32 of the host, a zero
// byte and the port as written (no port when the line has none; the path
// for a Unix-domain socket), and each point is the CRC-32 of the base
// continued with the previous point's hash as four little-endian bytes.
func buildRing(peers []*peer) []ringPoint {
	n := 0
	for _, p := range peers {
		n += p.weight * chashPointsPerWeight
	}
	points := make([]ringPoint, 0, n)
	for _, p := range peers {
		host, port := ringHostPort(p.server)
		base := crc32.Update(0, crc32.IEEETable, []byte(host))
		base = crc32.Update(base, crc32.IEEETable, []byte{0})
		base = crc32.Update(base, crc32.IEEETable, []byte(port))
		var prev [4]byte
		for range p.weight * chashPointsPerWeight {
			h := crc32.Update(base, crc32.IEEETable, prev[:])
			points = append(points, ringPoint{hash: h, server: p.server})
			prev = [4]byte{byte(h), byte(h >> 8), byte(h >> 16), byte(h >> 24)}
		}
	}
	// NGINX sorts with qsort, which is not stable; of points with equal
	// hashes it keeps one, whichever comes first. Servers whose hashes
	// collide are rare enough that the order among them is left to the
	// stable sort.
	slices.SortStableFunc(points, func(a, b ringPoint) int {
		switch {
		case a.hash < b.hash:
			return -1
		case a.hash > b.hash:
			return 1
		}
		return 0
	})
	return slices.CompactFunc(points, func(a, b ringPoint) bool { return a.hash == b.hash })
}

// ringHostPort splits a server line's address the way NGINX's ring does:
// the port is the run of digits after the last colon, if any.
func ringHostPort(server string) (host, port string) {
	if hasPrefixFold(server, "unix:") {
		return server[len("unix:"):], ""
	}
	for j := len(server) - 1; j >= 0; j-- {
		c := server[j]
		if c == ':' {
			return server[:j], server[j+1:]
		}
		if c < '0' || c > '9' {
			break
		}
	}
	return server, ""
}

// findPoint returns the index of the first point whose hash is at least
// h (len(points) when none is).
func findPoint(points []ringPoint, h uint32) int {
	i, _ := slices.BinarySearchFunc(points, h, func(p ringPoint, h uint32) int {
		switch {
		case p.hash < h:
			return -1
		case p.hash > h:
			return 1
		}
		return 0
	})
	return i
}

// peer is one server of an upstream with its balancing state. The state
// follows NGINX's round-robin module: current and effective weights for the
// smooth weighted round robin, fails/accessed/checked for passive health,
// and conns, the requests it is serving, for least_conn and max_conns.
type peer struct {
	addr        string
	server      string // the address as written on the server line
	weight      int
	maxFails    int
	maxConns    int
	failTimeout time.Duration
	down        bool
	index       int // position in its group, for a request's tried set

	// Guarded by Upstream.mu.
	current   int
	effective int
	fails     int
	conns     int
	accessed  time.Time // last failure
	checked   time.Time // last failure, or last pick after a fail_timeout
}

// usable reports whether p may take a request now: not down, not out of
// rotation after max_fails, not at max_conns.
func (p *peer) usable(now time.Time) bool {
	if p.down {
		return false
	}
	if p.maxFails > 0 && p.fails >= p.maxFails && p.withinFailTimeout(now) {
		return false
	}
	return p.maxConns == 0 || p.conns < p.maxConns
}

// withinFailTimeout reports whether now is within fail_timeout of p's
// last check. NGINX compares its clock of whole seconds, so a
// fail_timeout of N seconds lasts until the clock has moved more than N
// seconds on from the second of the check: between N and N+1 seconds,
// and a fail_timeout of 0 (NoFailTimeout) until the second of the check
// ends. A fail_timeout that is no whole number of seconds (possible in
// the library only) is compared exactly.
func (p *peer) withinFailTimeout(now time.Time) bool {
	if p.failTimeout%time.Second == 0 {
		return now.Unix()-p.checked.Unix() <= int64(p.failTimeout/time.Second)
	}
	return now.Sub(p.checked) <= p.failTimeout
}

// selection is one request's walk over an upstream: which servers it has
// tried, whether it has moved on to the backup servers, how many tries it
// has left, and the state of a hashing method.
type selection struct {
	up       *Upstream
	inBackup bool
	tried    triedSet
	tries    int

	key       string // Hash, ConsistentHash: the request's key
	hash      uint32 // Hash: running sum; ConsistentHash: ring position; IPHash: last hash
	rehash    int    // Hash: iterations so far
	hashTries int    // servers looked at by a hashing or random method
	addr      []byte // IPHash: the octets hashed
	addrBuf   [16]byte
}

// ipHashPseudo is what ip_hash hashes for a client that has no IP
// address (a Unix-domain socket).
var ipHashPseudo = [3]byte{}

func (s *selection) reset(up *Upstream, r *http.Request) {
	*s = selection{up: up, tries: up.tries, tried: s.tried}
	s.tried.reset(len(up.primary))
	switch up.method {
	case Hash:
		s.key = up.hashKey(r)
	case ConsistentHash:
		s.key = up.hashKey(r)
		if len(up.ring) > 0 {
			s.hash = uint32(findPoint(up.ring, crc32.ChecksumIEEE([]byte(s.key))))
		}
	case IPHash:
		s.hash = 89
		s.addr = s.addrBuf[:0]
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		if ip, err := netip.ParseAddr(host); err == nil && ip.Is4() {
			a := ip.As4()
			s.addr = append(s.addr, a[:3]...)
		} else if err == nil {
			a := ip.As16()
			s.addr = append(s.addr, a[:]...)
		} else {
			s.addr = append(s.addr, ipHashPseudo[:]...)
		}
	}
}

// next picks the server for the next try, or nil when no server is
// available ("no live upstreams"). The server counts the request among its
// active ones until release.
func (s *selection) next(now time.Time) *peer {
	up := s.up
	up.mu.Lock()
	defer up.mu.Unlock()
	p := s.pick(now)
	if p != nil {
		p.conns++
	}
	return p
}

func (s *selection) pick(now time.Time) *peer {
	up := s.up
	if up.single {
		// A lone server is never taken out of rotation by failures.
		if p := up.primary[0]; !p.down && (p.maxConns == 0 || p.conns < p.maxConns) {
			return p
		}
		return nil
	}
	if !s.inBackup {
		if p := s.pickPrimary(now); p != nil {
			return p
		}
		if len(up.backup) == 0 {
			return nil
		}
		s.inBackup = true
		s.tried.reset(len(up.backup))
	}
	if up.method == LeastConn {
		return s.leastConn(up.backup, now)
	}
	return s.roundRobin(up.backup, now)
}

// pickPrimary picks among the primary servers with the group's method.
// The hashing and random methods fall back to round robin when the key
// is empty or after looking at 20 servers, as NGINX's do.
func (s *selection) pickPrimary(now time.Time) *peer {
	up := s.up
	var p *peer
	switch up.method {
	case LeastConn:
		return s.leastConn(up.primary, now)
	case Hash:
		p = s.hashPeer(now)
	case ConsistentHash:
		p = s.chashPeer(now)
	case IPHash:
		p = s.ipHashPeer(now)
	case Random:
		p = s.randomPeer(now)
	case RandomTwo:
		p = s.randomTwoPeer(now)
	}
	if p != nil {
		return s.took(p, now)
	}
	return s.roundRobin(up.primary, now)
}

// took marks p tried by this request and starts its trial period when
// it had been out of rotation.
func (s *selection) took(p *peer, now time.Time) *peer {
	s.tried.add(p.index)
	// After fail_timeout a server that reached max_fails gets one trial
	// request; checked moves on so that the others wait for its outcome.
	if !p.withinFailTimeout(now) {
		p.checked = now
	}
	return p
}

// byWeight returns the primary server that w, below the total weight,
// falls on when the servers' weights are laid end to end.
func (up *Upstream) byWeight(w uint32) *peer {
	for _, p := range up.primary {
		if w < uint32(p.weight) {
			return p
		}
		w -= uint32(p.weight)
	}
	return up.primary[len(up.primary)-1]
}

// hashPeer is the hash method: ((crc32([REHASH] KEY) >> 16) & 0x7fff)
// added to the previous value, modulo the total weight, with REHASH (the
// iteration, in decimal) left out the first time.
func (s *selection) hashPeer(now time.Time) *peer {
	if s.key == "" {
		return nil
	}
	var buf [20]byte
	for s.hashTries <= hashTries {
		h := crc32.NewIEEE()
		if s.rehash > 0 {
			h.Write(strconv.AppendInt(buf[:0], int64(s.rehash), 10))
		}
		h.Write([]byte(s.key))
		s.hash += (h.Sum32() >> 16) & 0x7fff
		s.rehash++
		p := s.up.byWeight(s.hash % s.up.totalWeight)
		if !s.tried.has(p.index) && p.usable(now) {
			return p
		}
		s.hashTries++
	}
	return nil
}

// chashPeer walks the ring from the key's point: the first point whose
// server can take the request wins; among several servers written alike
// the smooth weighted round robin decides.
func (s *selection) chashPeer(now time.Time) *peer {
	ring := s.up.ring
	if s.key == "" || len(ring) == 0 {
		return nil
	}
	for s.hashTries <= hashTries {
		server := ring[s.hash%uint32(len(ring))].server
		best := smoothPick(s.up.primary, func(_ int, p *peer) bool {
			return s.tried.has(p.index) || !p.usable(now) || p.server != server
		})
		if best != nil {
			return best
		}
		s.hash++
		s.hashTries++
	}
	return nil
}

// ipHashPeer is ip_hash: starting from 89 (or the hash that chose the
// previous server), hash = (hash*113 + octet) % 6271 over the address's
// octets, then the result modulo the total weight.
func (s *selection) ipHashPeer(now time.Time) *peer {
	h := s.hash
	for s.hashTries <= hashTries {
		for _, b := range s.addr {
			h = (h*113 + uint32(b)) % 6271
		}
		p := s.up.byWeight(h % s.up.totalWeight)
		if !s.tried.has(p.index) && p.usable(now) {
			s.hash = h
			return p
		}
		s.hashTries++
	}
	return nil
}

// peekRandom draws a primary server at random, by weight.
func (up *Upstream) peekRandom() *peer {
	return up.byWeight(rand.Uint32N(up.totalWeight))
}

func (s *selection) randomPeer(now time.Time) *peer {
	for s.hashTries <= hashTries {
		p := s.up.peekRandom()
		if !s.tried.has(p.index) && p.usable(now) {
			return p
		}
		s.hashTries++
	}
	return nil
}

// randomTwoPeer draws until it has two different usable servers and
// takes the one with fewer active requests for its weight (the first on
// a tie).
func (s *selection) randomTwoPeer(now time.Time) *peer {
	var prev *peer
	for s.hashTries <= hashTries {
		p := s.up.peekRandom()
		if p != prev && !s.tried.has(p.index) && p.usable(now) {
			if prev != nil {
				if p.conns*prev.weight > prev.conns*p.weight {
					p = prev
				}
				return p
			}
			prev = p
		}
		s.hashTries++
	}
	return nil
}

// roundRobin is the smooth weighted round robin over the available
// servers of group (smoothPick).
func (s *selection) roundRobin(group []*peer, now time.Time) *peer {
	best := smoothPick(group, func(i int, p *peer) bool { return s.tried.has(i) || !p.usable(now) })
	if best == nil {
		return nil
	}
	return s.took(best, now)
}

// smoothPick is the smooth weighted round robin over the peers of group
// that skip lets through: each one's current weight grows by its
// effective weight, the largest wins and pays back the total. Weights
// 5:1:1 give a, a, b, a, c, a, a rather than a burst of five to a.
func smoothPick(group []*peer, skip func(i int, p *peer) bool) *peer {
	var best *peer
	total := 0
	for i, p := range group {
		if skip(i, p) {
			continue
		}
		p.current += p.effective
		total += p.effective
		if p.effective < p.weight {
			p.effective++
		}
		if best == nil || p.current > best.current {
			best = p
		}
	}
	if best != nil {
		best.current -= total
	}
	return best
}

// leastConn picks the server with the fewest active requests for its
// weight; several such servers share the requests by the smooth weighted
// round robin.
func (s *selection) leastConn(group []*peer, now time.Time) *peer {
	var best *peer
	many := false
	first := 0
	for i, p := range group {
		if s.tried.has(i) || !p.usable(now) {
			continue
		}
		switch {
		case best == nil || p.conns*best.weight < best.conns*p.weight:
			best, many, first = p, false, i
		case p.conns*best.weight == best.conns*p.weight:
			many = true
		}
	}
	if best == nil {
		return nil
	}
	if many {
		// Every server compared here has best's ratio, whichever of them
		// best is by then.
		total := 0
		for i := first; i < len(group); i++ {
			p := group[i]
			if s.tried.has(i) || p.conns*best.weight != best.conns*p.weight || !p.usable(now) {
				continue
			}
			p.current += p.effective
			total += p.effective
			if p.effective < p.weight {
				p.effective++
			}
			if p.current > best.current {
				best = p
			}
		}
		best.current -= total
	}
	return s.took(best, now)
}

// release reports the outcome of a try and ends the request's count on
// the server. A failure counts towards max_fails and lowers the server's
// effective weight, which then recovers by one per pick; a success after
// a trial pick clears the failures. It reports whether the failure took
// the server out of rotation.
func (up *Upstream) release(p *peer, failed bool, now time.Time) (disabled bool) {
	up.mu.Lock()
	defer up.mu.Unlock()
	p.conns--
	if up.single {
		p.fails = 0
		return false
	}
	if !failed {
		if p.accessed.Before(p.checked) {
			p.fails = 0
		}
		return false
	}
	p.fails++
	p.accessed = now
	p.checked = now
	if p.maxFails > 0 {
		p.effective -= p.weight / p.maxFails
		disabled = p.fails >= p.maxFails
	}
	if p.effective < 0 {
		p.effective = 0
	}
	return disabled
}

// triedSet records the servers of one group a request has tried.
type triedSet struct {
	small uint64
	large []bool // groups of more than 64 servers
}

func (t *triedSet) reset(n int) {
	t.small = 0
	if n > 64 {
		if cap(t.large) >= n {
			t.large = t.large[:n]
			clear(t.large)
		} else {
			t.large = make([]bool, n)
		}
	} else {
		t.large = nil
	}
}

func (t *triedSet) has(i int) bool {
	if t.large != nil {
		return t.large[i]
	}
	return t.small&(1<<uint(i)) != 0
}

func (t *triedSet) add(i int) {
	if t.large != nil {
		t.large[i] = true
		return
	}
	t.small |= 1 << uint(i)
}

// Selection is one request's walk over an upstream's servers for a
// module that reaches them with a client of its own (gRPC speaks HTTP/2,
// which a Wire cannot carry): the group's method, passive health state,
// max_conns and tries, as the Handler's own requests use them.
type Selection struct {
	s   selection
	cur *peer
}

// Select starts r's walk over u's servers; tries, when positive, bounds
// the servers tried (proxy_next_upstream_tries).
func (u *Upstream) Select(r *http.Request, tries int) *Selection {
	s := &Selection{}
	s.s.reset(u, r)
	if tries > 0 && s.s.tries > tries {
		s.s.tries = tries
	}
	return s
}

// Next returns the address of the server to try next ("unix:/path" for a
// Unix-domain socket), or false when no server may be tried: none is
// available ("no live upstreams") or the tries are spent. The server
// counts the request among its active ones until Done.
func (s *Selection) Next() (string, bool) {
	if s.cur != nil {
		panic("proxy: Selection.Next before Done")
	}
	if s.s.tries <= 0 {
		return "", false
	}
	p := s.s.next(time.Now())
	if p == nil {
		return "", false
	}
	s.cur = p
	return p.addr, true
}

// More reports whether the tries allow another server.
func (s *Selection) More() bool { return s.s.tries > 0 }

// Done ends the try of the server Next returned; failed charges it with
// a failure, which counts towards max_fails. It reports whether the
// failure took the server out of rotation.
func (s *Selection) Done(failed bool) (disabled bool) {
	p := s.cur
	s.cur = nil
	s.s.tries--
	return s.s.up.release(p, failed, time.Now())
}
