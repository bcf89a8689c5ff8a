package compress

import (
	"io"
	"slices"
	"sync"

	"github.com/mosaic-edge/mosaic/brotli"
)

// MaxIdleEncoders is the largest brotli_idle_encoders value.
const MaxIdleEncoders = 1024

// EncoderPool keeps idle brotli encoders between responses, so that a
// response at a high level reuses the hash tables and ring buffer an earlier
// one allocated instead of allocating (and zeroing) them again: at level 9
// the hash table alone is 32 MiB.
//
// An encoder is reused only for the same level, window and retention
// policy: the encoder's hasher is chosen for its level and window when it is
// first used and cannot change, and locations with different policies keep
// their promises about memory apart. When more encoders are idle than the
// pool holds, the least recently used one is freed. A pool is safe for
// concurrent use; a process normally has one, shared by every location.
type EncoderPool struct {
	mu    sync.Mutex
	limit int
	idle  []idleEncoder // least recently used first

	reused, allocated, released uint64
}

type encoderKey struct {
	retention Retention
	quality   int
	lgwin     int
	dict      *Dictionary // dcb: the dictionary its streams start after
}

type idleEncoder struct {
	key encoderKey
	w   *brotli.Writer
}

// PoolStats counts what a pool did. Released counts encoders dropped for
// any reason: the retention policy, a full pool or a change of settings.
type PoolStats struct {
	Idle      int
	Reused    uint64
	Allocated uint64
	Released  uint64
}

// NewEncoderPool returns a pool that keeps at most idle encoders
// (brotli_idle_encoders), clamped to 0..MaxIdleEncoders. With 0 nothing is
// kept and every response gets a new encoder.
func NewEncoderPool(idle int) *EncoderPool {
	return &EncoderPool{limit: min(max(idle, 0), MaxIdleEncoders)}
}

var defaultPool = NewEncoderPool(DefaultIdleEncoders)

// Stats returns the pool's counters.
func (p *EncoderPool) Stats() PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return PoolStats{Idle: len(p.idle), Reused: p.reused, Allocated: p.allocated, Released: p.released}
}

// get returns an encoder for key started on a response to dst: an idle one
// with the same key (reused is true), or a new one.
func (p *EncoderPool) get(key encoderKey, dst io.Writer, body brotliBody) (w *brotli.Writer, reused bool) {
	p.mu.Lock()
	for i := len(p.idle) - 1; i >= 0; i-- {
		if p.idle[i].key == key {
			w := p.idle[i].w
			p.idle = slices.Delete(p.idle, i, i+1)
			p.reused++
			p.mu.Unlock()
			startBrotli(w, key, dst, body)
			return w, true
		}
	}
	if key.retention.Policy == RetainCurrentConfig {
		// current_config keeps memory only while it suits the settings in
		// use. An encoder cannot be reconfigured, so taking one over for
		// other settings means freeing it: the oldest idle encoder of this
		// policy goes, rather than staying to hold memory for settings
		// that are no longer being asked for.
		for i, e := range p.idle {
			if e.key.retention == key.retention {
				p.idle = slices.Delete(p.idle, i, i+1)
				p.released++
				break
			}
		}
	}
	p.allocated++
	p.mu.Unlock()
	return newBrotli(key, dst, body), false
}

// put returns an encoder after its response, or frees it as the retention
// policy and the pool's size say.
func (p *EncoderPool) put(key encoderKey, w *brotli.Writer) {
	keep := true
	switch key.retention.Policy {
	case RetainReleaseAll:
		// The encoder object is a few kilobytes once its buffers are gone;
		// keeping it would save nothing measurable, so nothing is kept.
		keep = false
	case RetainBounded:
		detachBrotli(w, key)
		keep = encoderFootprint(w) <= key.retention.Bound
	default:
		if key.dict != nil {
			detachBrotli(w, key)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !keep || p.limit == 0 {
		p.released++
		return
	}
	if len(p.idle) >= p.limit {
		p.idle = slices.Delete(p.idle, 0, 1)
		p.released++
	}
	p.idle = append(p.idle, idleEncoder{key: key, w: w})
}
