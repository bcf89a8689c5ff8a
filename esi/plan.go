package esi

import (
	"container/list"
	"errors"
	"hash/crc32"
	"net/http"
	"strconv"
	"sync"

	"github.com/mosaic-edge/mosaic/vars"
)

// A parse plan is what a full parse of a stored page found, kept so that
// later deliveries of the same stored body skip the scan: the page as a
// list of steps, each a verbatim run (kept as its length and the few bytes
// after it), a run inside an <esi:remove> block (its length), or ESI
// markup (its bytes). A plan is keyed on the identity of the stored body
// (the cache's Meta.BodyID, drawn when the body is stored), so it is
// only ever replayed against the bytes it was recorded from. Replaying a
// plan writes each verbatim run without looking for '<' in it, and hands
// everything else to the page's parser, which so stays exactly where a
// full parse would be. Markup is still compared byte for byte, and the
// bytes after each run (which decided where the run ends: a '<' near its
// end is text or markup by what follows) are checked against the plan's:
// any difference ends the replay there, and the parser goes on from that
// byte.

// stepKind says what a step of a plan covers.
type stepKind uint8

const (
	stepText    stepKind = iota // verbatim run: skipped by the parser
	stepRemoved                 // content of an <esi:remove> block: fed to the parser
	stepMarkup                  // ESI markup: fed to the parser
)

type step struct {
	kind stepKind
	n    int64
	crc  uint32 // stepText: of the run's bytes, which gzip's trailer needs
	data []byte // stepMarkup: the markup's bytes
	// stepText: the stream's next bytes after the run (fewer at its
	// end), as many as the parser may look at to tell text from markup.
	guard []byte
	run   *storedRun
}

// guardLen is how far past a byte the parser may look before it calls
// the byte text: "<!--esi" is 6 bytes past its '<'.
const guardLen = 8

// storedRun holds the compressed forms of a verbatim run, made at the
// first stitched delivery that needs them (esi_stitch), one per coding:
// gzip's is raw deflate cut with a sync flush (no final block), zstd's one
// frame, brotli's a catable segment (neither first nor last).
type storedRun struct {
	mu    sync.Mutex
	forms [numCodings][]byte
}

// form returns the run's stored form in c, nil when it is not made yet.
func (r *storedRun) form(c Coding) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.forms[c]
}

// plan is the parse of one stored object.
type plan struct {
	key planKey
	// none: the object's parse cannot be replayed (it ends inside a
	// construct, ...): its deliveries parse it without recording again,
	// and without looking for a shared plan.
	none  bool
	steps []step
	size  int64 // bytes of the stream
	cost  int64 // bytes charged to the store
	elem  *list.Element
	store *PlanStore
}

// stepCost is what a step costs in the store besides its bytes.
const stepCost = 64

// planKey identifies a stored body: the cache's Meta.BodyID, random and
// drawn anew each time a body is stored, so that a refilled entry never
// finds the plan of the body it replaced.
type planKey uint64

// PlanStore keeps parse plans (esi_plan_zone), bounded in bytes: the least
// recently used plans make room for new ones, and a plan larger than the
// store is not kept. Its methods are safe for concurrent use; several
// handlers may share one store.
type PlanStore struct {
	mu    sync.Mutex
	max   int64
	used  int64
	lru   list.List // front: most recently used
	plans map[planKey]*plan
	stats PlanStats
}

// PlanStats counts what a PlanStore did.
type PlanStats struct {
	Plans     int   // plans held
	Bytes     int64 // bytes charged, compressed runs included
	Recorded  int64 // plans recorded here and stored
	Loaded    int64 // plans loaded from the PlanShare and stored
	Replayed  int64 // deliveries that replayed a plan
	Mismatch  int64 // replays given up because the body differed
	Evictions int64 // plans dropped to make room
	// Oversize counts plans larger than the whole store: each is kept
	// as a mark that its page is parsed, so that its later deliveries
	// neither record it again nor load it from the share.
	Oversize int64
}

// MinPlanStoreSize is the smallest size of a PlanStore: 8 pages of 4 KiB,
// as the seed's zone minimum.
const MinPlanStoreSize = 8 << 12

// NewPlanStore returns a store holding at most maxBytes of plans.
func NewPlanStore(maxBytes int64) (*PlanStore, error) {
	if maxBytes < MinPlanStoreSize {
		return nil, errors.New("esi: a plan store must hold at least 32k")
	}
	return &PlanStore{max: maxBytes, plans: make(map[planKey]*plan)}, nil
}

// Close releases nothing: the store is memory only. It makes the store an
// io.Closer for a registry that shares it between configurations.
func (s *PlanStore) Close() error { return nil }

// Stats returns the store's counters.
func (s *PlanStore) Stats() PlanStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Plans, st.Bytes = len(s.plans), s.used
	return st
}

func (s *PlanStore) get(k planKey) *plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	pl := s.plans[k]
	if pl != nil {
		s.lru.MoveToFront(pl.elem)
	}
	return pl
}

// replayed counts a delivery that replays a plan.
func (s *PlanStore) replayed() {
	s.mu.Lock()
	s.stats.Replayed++
	s.mu.Unlock()
}

// put stores pl, recorded here or loaded from the share, replacing a plan
// of the same key, unless it is larger than the whole store: then it
// stores the mark of a page without a plan in its place. It returns what
// it stored.
func (s *PlanStore) put(pl *plan, loaded bool) *plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pl.cost > s.max {
		s.stats.Oversize++
		pl = &plan{key: pl.key, none: true, cost: stepCost}
		loaded = false
	}
	s.insert(pl, loaded)
	return pl
}

func (s *PlanStore) insert(pl *plan, loaded bool) {
	if old := s.plans[pl.key]; old != nil {
		s.remove(old)
	}
	pl.store = s
	pl.elem = s.lru.PushFront(pl)
	s.plans[pl.key] = pl
	s.used += pl.cost
	switch {
	case loaded:
		s.stats.Loaded++
	case !pl.none:
		s.stats.Recorded++
	}
	s.evict()
}

// drop forgets a plan that did not match its body.
func (s *PlanStore) drop(pl *plan) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Mismatch++
	if s.plans[pl.key] == pl {
		s.remove(pl)
	}
}

// grow charges n more bytes to a plan held in the store (a run's
// compressed form was added) and reports whether they may be kept. A plan
// no longer held charges nothing; one that would outgrow the whole store
// is not given the form, and evicts nothing: each delivery would
// otherwise empty the store.
func (s *PlanStore) grow(pl *plan, n int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plans[pl.key] != pl {
		return true
	}
	if pl.cost+n > s.max {
		return false
	}
	pl.cost += n
	s.used += n
	s.evict()
	return true
}

func (s *PlanStore) remove(pl *plan) {
	s.lru.Remove(pl.elem)
	delete(s.plans, pl.key)
	s.used -= pl.cost
}

// evict drops the least recently used plans until the store fits.
func (s *PlanStore) evict() {
	for s.used > s.max {
		pl := s.lru.Back().Value.(*plan)
		s.remove(pl)
		s.stats.Evictions++
	}
}

// storedStatuses are the $upstream_cache_status values of a response
// served from a cache's stored object. A plan is recorded and replayed for
// those only: a response fetched from the origin may not be stored, or
// stored as something else.
var storedStatuses = map[string]bool{"HIT": true, "STALE": true, "UPDATING": true, "REVALIDATED": true}

// bodyIDVar is where the cache names the stored body it serves
// (cache.BodyIDVar; this package does not import the cache).
const bodyIDVar = "cache_body_id"

// keyOf returns the plan key of a response served from a cache's store:
// the identity of its body, which the cache publishes in the request's
// variables. ok is false for a response that does not come from the store
// (whether and as what it will be stored is not known), and for an entry
// that has no identity (written by an older version).
func keyOf(r *http.Request) (k planKey, ok bool) {
	st := vars.FromContext(r.Context())
	if status, _ := st.Get("upstream_cache_status"); !storedStatuses[status] {
		return 0, false
	}
	id, _ := st.Get(bodyIDVar)
	v, err := strconv.ParseUint(id, 16, 64)
	if err != nil || v == 0 {
		return 0, false
	}
	return planKey(v), true
}

// planRecorder builds a plan from the events of a full parse.
type planRecorder struct {
	store   *PlanStore
	key     planKey
	steps   []step
	guarded []int // text steps whose guard is not complete yet
	cost    int64
	failed  bool // the parse cannot be replayed: nothing is stored
}

// maxPlanSteps bounds a plan: a page of more steps than this is parsed on
// every delivery.
const maxPlanSteps = 1 << 16

// add records one event.
func (rc *planRecorder) add(ev *Event) {
	if rc.failed || ev.Len == 0 {
		// Events without bytes (a block closed implicitly, ...) come
		// again from the parser when it is fed the markup around them.
		if ev.Kind == KindRemoveUnclosed {
			rc.failed = true // a block given up midway is not replayed
		}
		return
	}
	kind := stepMarkup
	switch ev.Kind {
	case KindText:
		kind = stepText
	case KindRemoved:
		kind = stepRemoved
	}
	n := len(rc.steps)
	extends := n > 0 && rc.steps[n-1].kind == kind
	if !extends && n > 0 && rc.steps[n-1].kind == stepText {
		rc.guarded = append(rc.guarded, n-1)
		rc.cost += guardLen
	}
	rc.guard(ev.Data)
	if extends {
		last := &rc.steps[n-1]
		last.n += int64(ev.Len)
		switch kind {
		case stepMarkup:
			last.data = append(last.data, ev.Data...)
			rc.cost += int64(ev.Len)
		case stepText:
			last.crc = crc32.Update(last.crc, crc32.IEEETable, ev.Data)
		}
		return
	}
	if len(rc.steps) == maxPlanSteps {
		rc.failed = true
		return
	}
	s := step{kind: kind, n: int64(ev.Len)}
	switch kind {
	case stepMarkup:
		s.data = append([]byte(nil), ev.Data...)
		rc.cost += int64(ev.Len)
	case stepText:
		s.crc = crc32.ChecksumIEEE(ev.Data)
		s.run = new(storedRun)
	}
	rc.steps = append(rc.steps, s)
	rc.cost += stepCost
}

// guard gives the next bytes of the stream to the text steps whose guard
// is incomplete.
func (rc *planRecorder) guard(b []byte) {
	keep := rc.guarded[:0]
	for _, i := range rc.guarded {
		g := &rc.steps[i].guard
		*g = append(*g, b[:min(len(b), guardLen-len(*g))]...)
		if len(*g) < guardLen {
			keep = append(keep, i)
		}
	}
	rc.guarded = keep
}

// finish stores the plan of a stream of size bytes that the parser ended
// cleanly (in text, holding nothing back), and returns it, or nil. A parse
// that cannot be replayed is stored as such.
func (rc *planRecorder) finish(size int64) *plan {
	if rc.failed {
		rc.store.put(&plan{key: rc.key, none: true, cost: stepCost}, false)
		return nil
	}
	pl := &plan{key: rc.key, steps: rc.steps, size: size, cost: rc.cost + stepCost}
	if rc.store.put(pl, false) != pl {
		return nil
	}
	return pl
}
