package proxy

import "time"

// peer is one server of an upstream with its balancing state. The state
// follows NGINX's round-robin module: current and effective weights for the
// smooth weighted round robin, and fails/accessed/checked for passive health.
type peer struct {
	addr        string
	weight      int
	maxFails    int
	failTimeout time.Duration
	down        bool
	index       int // position in its group, for a request's tried set

	// Guarded by Upstream.mu.
	current   int
	effective int
	fails     int
	accessed  time.Time // last failure
	checked   time.Time // last failure, or last pick after a fail_timeout
}

// selection is one request's walk over an upstream: which servers it has
// tried, whether it has moved on to the backup servers, and how many tries
// it has left.
type selection struct {
	up       *Upstream
	inBackup bool
	tried    triedSet
	tries    int
}

func (s *selection) reset(up *Upstream) {
	s.up = up
	s.inBackup = false
	s.tried.reset(len(up.primary))
	s.tries = up.tries
}

// next picks the server for the next try, or nil when no server is
// available ("no live upstreams").
func (s *selection) next(now time.Time) *peer {
	up := s.up
	up.mu.Lock()
	defer up.mu.Unlock()
	if !s.inBackup {
		if up.single {
			// A lone server is never taken out of rotation.
			if p := up.primary[0]; !p.down {
				return p
			}
			return nil
		}
		if p := s.pick(up.primary, now); p != nil {
			return p
		}
		if len(up.backup) == 0 {
			return nil
		}
		s.inBackup = true
		s.tried.reset(len(up.backup))
	}
	return s.pick(up.backup, now)
}

// pick is the smooth weighted round robin: every available server's
// current weight grows by its effective weight, the largest wins and pays
// back the total. Weights 5:1:1 give a, a, b, a, c, a, a rather than a
// burst of five to a.
func (s *selection) pick(group []*peer, now time.Time) *peer {
	var best *peer
	total := 0
	for i, p := range group {
		if s.tried.has(i) || p.down {
			continue
		}
		if p.maxFails > 0 && p.fails >= p.maxFails && now.Sub(p.checked) <= p.failTimeout {
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
	if best == nil {
		return nil
	}
	s.tried.add(best.index)
	best.current -= total
	// After fail_timeout a server that reached max_fails gets one trial
	// request; checked moves on so that the others wait for its outcome.
	if now.Sub(best.checked) > best.failTimeout {
		best.checked = now
	}
	return best
}

// release reports the outcome of a try. A failure counts towards max_fails
// and lowers the server's effective weight, which then recovers by one per
// pick; a success after a trial pick clears the failures. It reports
// whether the failure took the server out of rotation.
func (up *Upstream) release(p *peer, failed bool, now time.Time) (disabled bool) {
	if up.single {
		return false
	}
	up.mu.Lock()
	defer up.mu.Unlock()
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
		t.large = make([]bool, n)
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
