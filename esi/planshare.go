package esi

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// PlanShare keeps parse plans where several servers find them: a server
// that has no plan for a stored object in its own PlanStore loads it from
// here before parsing, and saves the plans it records. The server shares
// them through the Redis store of the page's cache zone. Keys are
// hexadecimal; a plan is opaque bytes, checked when it is loaded.
type PlanShare interface {
	Load(ctx context.Context, key string) ([]byte, error)
	Save(ctx context.Context, key string, plan []byte) error
}

// shareTimeout bounds a load on the delivery path and a save after it.
const shareTimeout = time.Second

func (k planKey) String() string { return fmt.Sprintf("%016x", uint64(k)) }

// planVersion starts an encoded plan: a layout written by another version
// is not read.
const planVersion = 2

// encode writes a plan's key and steps (not the compressed forms of its
// runs, which each server makes for itself).
func (pl *plan) encode() []byte {
	b := []byte{planVersion}
	b = binary.LittleEndian.AppendUint64(b, uint64(pl.key))
	b = binary.AppendUvarint(b, uint64(pl.size))
	b = binary.AppendUvarint(b, uint64(len(pl.steps)))
	for i := range pl.steps {
		s := &pl.steps[i]
		b = append(b, byte(s.kind))
		b = binary.AppendUvarint(b, uint64(s.n))
		switch s.kind {
		case stepMarkup:
			b = append(b, s.data...)
		case stepText:
			b = binary.LittleEndian.AppendUint32(b, s.crc)
			b = append(b, byte(len(s.guard)))
			b = append(b, s.guard...)
		}
	}
	return b
}

var errPlanEncoding = errors.New("esi: malformed parse plan")

// decodePlan reads what encode wrote, checking that it describes a plan
// this package could have recorded: it comes from outside the process.
func decodePlan(b []byte) (*plan, error) {
	if len(b) < 9 || b[0] != planVersion {
		return nil, errPlanEncoding
	}
	key := planKey(binary.LittleEndian.Uint64(b[1:]))
	b = b[9:]
	uvarint := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	size, ok1 := uvarint()
	count, ok2 := uvarint()
	if !ok1 || !ok2 || count > maxPlanSteps || size > 1<<50 {
		return nil, errPlanEncoding
	}
	pl := &plan{key: key, size: int64(size), steps: make([]step, 0, min(count, uint64(len(b))))}
	var total int64
	cost := int64(stepCost)
	for range count {
		if len(b) == 0 {
			return nil, errPlanEncoding
		}
		s := step{kind: stepKind(b[0])}
		b = b[1:]
		n, ok := uvarint()
		if !ok || n == 0 || n > size {
			return nil, errPlanEncoding
		}
		s.n = int64(n)
		switch s.kind {
		case stepMarkup:
			if uint64(len(b)) < n {
				return nil, errPlanEncoding
			}
			s.data, b = append([]byte(nil), b[:int(n)]...), b[int(n):]
			cost += s.n
		case stepText:
			if len(b) < 5 || int(b[4]) > guardLen || len(b) < 5+int(b[4]) {
				return nil, errPlanEncoding
			}
			s.crc, b = binary.LittleEndian.Uint32(b), b[4:]
			s.guard, b = append([]byte(nil), b[1:1+b[0]]...), b[1+b[0]:]
			s.run = new(storedRun)
			cost += guardLen
		case stepRemoved:
		default:
			return nil, errPlanEncoding
		}
		if k := len(pl.steps); k > 0 && pl.steps[k-1].kind == s.kind {
			return nil, errPlanEncoding // the recorder merges neighbours
		}
		total += s.n
		cost += stepCost
		pl.steps = append(pl.steps, s)
	}
	if len(b) != 0 || total != pl.size {
		return nil, errPlanEncoding
	}
	pl.cost = cost
	return pl, nil
}

// loadShared looks for the plan of key in the share, and keeps it in the
// store when it is found and well formed; what the store keeps is the
// mark of a page without a plan if the plan is larger than the store.
func (p *page) loadShared(store *PlanStore, key planKey) *plan {
	ctx, cancel := context.WithTimeout(p.ctx, shareTimeout)
	defer cancel()
	b, err := p.h.opts.PlanShare.Load(ctx, key.String())
	if err != nil || len(b) == 0 {
		return nil
	}
	pl, err := decodePlan(b)
	if err != nil {
		p.h.log.LogAttrs(p.ctx, slog.LevelWarn, "esi: a shared parse plan is malformed, not used",
			slog.String("uri", p.req.URL.RequestURI()))
		return nil
	}
	if pl.key != key {
		// Saved under another body's name: it describes other bytes.
		p.h.log.LogAttrs(p.ctx, slog.LevelWarn, "esi: a shared parse plan is of another stored body, not used",
			slog.String("uri", p.req.URL.RequestURI()), slog.String("body", key.String()), slog.String("plan_body", pl.key.String()))
		return nil
	}
	return store.put(pl, true)
}

// saveShared saves a recorded plan in the share, after the delivery.
func (h *handler) saveShared(ctx context.Context, pl *plan) {
	b := pl.encode()
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shareTimeout)
		defer cancel()
		if err := h.opts.PlanShare.Save(ctx, pl.key.String(), b); err != nil {
			h.log.LogAttrs(ctx, slog.LevelInfo, "esi: cannot share a parse plan", slog.Any("error", err))
		}
	}()
}
