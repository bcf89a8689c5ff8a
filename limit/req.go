package limit

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// Rate is a request rate in thousandths of a request per second, as
// NGINX keeps it: "1r/s" is 1000, "30r/m" is 500, "1r/m" is 16.
type Rate int64

// ParseRate reads NGINX's rate: "10r/s", "30r/m", or a bare number of
// requests per second.
func ParseRate(s string) (Rate, error) {
	scale := int64(1)
	n := s
	if v, ok := strings.CutSuffix(s, "r/s"); ok {
		n = v
	} else if v, ok := strings.CutSuffix(s, "r/m"); ok {
		n, scale = v, 60
	}
	r, err := strconv.ParseInt(n, 10, 64)
	if err != nil || r <= 0 || n[0] == '+' || r > 1<<40 {
		return 0, errors.New("invalid rate")
	}
	return Rate(r * 1000 / scale), nil
}

// String writes the rate as NGINX's configuration would.
func (r Rate) String() string {
	if r%1000 == 0 {
		return strconv.FormatInt(int64(r)/1000, 10) + "r/s"
	}
	return strconv.FormatInt(int64(r)*60/1000, 10) + "r/m"
}

// code is the outcome of looking a key up in a request zone, NGINX's
// NGX_OK, NGX_AGAIN, NGX_BUSY and NGX_ERROR.
type code int

const (
	codeOK    code = iota // within the burst, charged
	codeAgain             // within the burst; charged once every limit has passed
	codeBusy              // over the burst
	codeError             // no memory left for a new key
)

// reqStore keeps the buckets of a request zone.
type reqStore interface {
	// lookup computes the excess that one more request of key makes,
	// in thousandths, and charges it when account is set and it is
	// within burst. Without account, a request within burst gets a
	// hold that charges it later (or releases it).
	lookup(ctx context.Context, key string, burst int64, account bool) (code, int64, heldReq)
}

// heldReq is a key looked up without being charged, while the limits
// after it are looked up.
type heldReq interface {
	// account charges the request and returns the key's excess.
	account() int64
	// unlock gives the hold up without charging.
	unlock()
}

// memReq is a request zone in memory: NGINX's red-black tree and queue
// become a map and a list, most recently used first, whose tail is
// evicted when the zone is full.
type memReq struct {
	rate     int64
	capacity int64

	mu         sync.Mutex
	used       int64
	nodes      map[string]*reqNode
	head, tail *reqNode
}

type reqNode struct {
	z          *memReq
	key        string
	last       int64 // ms
	excess     int64 // thousandths of a request
	count      int   // holds: a held state is not evicted
	prev, next *reqNode
}

func newMemReq(rate Rate, size int64) *memReq {
	return &memReq{rate: int64(rate), capacity: zoneCapacity(size), nodes: map[string]*reqNode{}}
}

// reqNodeCost is what a state of a key of n bytes takes in NGINX's zone
// on a 64-bit machine: the tree node's header (32 bytes), the state's
// fields (48) and the key, in a slab chunk.
func reqNodeCost(n int) int64 { return slabChunk(32 + 48 + n) }

// drained is the excess left after ms milliseconds at the zone's rate
// plus the request being counted, never below 0; ms is clamped as NGINX
// clamps a clock that went backwards.
func (z *memReq) drained(n *reqNode, now int64) (excess, ms int64) {
	ms = now - n.last
	if ms < -60000 {
		ms = 1
	} else if ms < 0 {
		ms = 0
	}
	excess = n.excess - z.rate*ms/1000 + 1000
	if excess < 0 {
		excess = 0
	}
	return excess, ms
}

func (z *memReq) lookup(_ context.Context, key string, burst int64, account bool) (code, int64, heldReq) {
	z.mu.Lock()
	defer z.mu.Unlock()
	now := nowMS()
	if n := z.nodes[key]; n != nil {
		z.toFront(n)
		excess, ms := z.drained(n, now)
		if excess > burst {
			return codeBusy, excess, nil
		}
		if account {
			n.excess = excess
			if ms != 0 {
				n.last = now
			}
			return codeOK, excess, nil
		}
		n.count++
		return codeAgain, excess, n
	}
	cost := reqNodeCost(len(key))
	z.expire(now, 1)
	if z.used+cost > z.capacity {
		z.expire(now, 0)
		if z.used+cost > z.capacity {
			return codeError, 0, nil
		}
	}
	n := &reqNode{z: z, key: key}
	z.used += cost
	z.nodes[key] = n
	z.pushFront(n)
	if account {
		n.last = now
		return codeOK, 0, nil
	}
	n.count = 1
	return codeAgain, 0, n
}

func (n *reqNode) account() int64 {
	z := n.z
	z.mu.Lock()
	defer z.mu.Unlock()
	now := nowMS()
	excess, ms := z.drained(n, now)
	if ms != 0 {
		n.last = now
	}
	n.excess = excess
	n.count--
	return excess
}

func (n *reqNode) unlock() {
	n.z.mu.Lock()
	n.count--
	n.z.mu.Unlock()
}

// expire drops states from the tail, as NGINX does before making one:
// with force 1, up to two that are idle for a minute and drained; with
// force 0, the oldest whatever its state, then up to two of those. A
// held state stops it, since states are moved to the front when used.
func (z *memReq) expire(now int64, n int) {
	for ; n < 3; n++ {
		t := z.tail
		if t == nil || t.count != 0 {
			return
		}
		if n != 0 {
			ms := now - t.last
			if ms < 0 {
				ms = -ms
			}
			if ms < 60000 || t.excess-z.rate*ms/1000 > 0 {
				return
			}
		}
		z.unlink(t)
		delete(z.nodes, t.key)
		z.used -= reqNodeCost(len(t.key))
	}
}

func (z *memReq) pushFront(n *reqNode) {
	n.prev, n.next = nil, z.head
	if z.head != nil {
		z.head.prev = n
	}
	z.head = n
	if z.tail == nil {
		z.tail = n
	}
}

func (z *memReq) unlink(n *reqNode) {
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		z.head = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else {
		z.tail = n.prev
	}
	n.prev, n.next = nil, nil
}

func (z *memReq) toFront(n *reqNode) {
	if z.head != n {
		z.unlink(n)
		z.pushFront(n)
	}
}

// states returns how many keys the zone remembers.
func (z *memReq) states() int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return len(z.nodes)
}
