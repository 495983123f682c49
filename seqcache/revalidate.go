// Revalidation: noticing, within Options.Revalidate, that another process
// dropped, recreated or renamed a sequence whose values this one holds.

package seqcache

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// DefaultRevalidate is the default of Options.Revalidate. See Revalidation
// in the package documentation for the trade-off.
const DefaultRevalidate = 2 * time.Second

// canRevalidate reports whether the store can tell a sequence's incarnation
// or existence: a [sequence.Validator], or a store with Describe.
func canRevalidate(st sequence.Reserver) bool {
	switch st.(type) {
	case sequence.Validator, interface {
		Describe(ctx context.Context, name string) (sequence.Info, error)
	}:
		return true
	}
	return false
}

// revalidate runs the checks due, each at its handle's checkAt, until Close.
// It sleeps until the earliest checkAt, at most Options.Revalidate (or the
// shortest interval a sequence's policy set).
func (c *Cache) revalidate() {
	defer c.wg.Done()
	t := time.NewTimer(time.Duration(c.checkEvery.Load()))
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		next := now.Add(time.Duration(c.checkEvery.Load()))
		for _, h := range *c.handles.Load() {
			if at := h.checkIfDue(now); !at.IsZero() && at.Before(next) {
				next = at
			}
		}
		t.Reset(next.Sub(now))
	}
}

// checkIfDue starts the handle's check if it is due at now: the handle holds
// values and no store call told of its sequence for Options.Revalidate. It
// returns when the next check is due, zero if none is foreseen (nothing
// cached, a check in flight, or one started now).
func (h *Handle) checkIfDue(now time.Time) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.paused > 0 || h.checking || h.checkAt.IsZero() || h.depthLocked() == 0 {
		return time.Time{}
	}
	if now.Before(h.checkAt) {
		return h.checkAt
	}
	h.checking = true
	h.checkAt = now.Add(h.revalidateLocked())
	h.c.wg.Add(1) // the revalidate goroutine holds a count: no race with Close's Wait
	go h.check(now, h.gen, h.holdGen)
	return time.Time{}
}

// revalidateLocked is the handle's revalidation interval: its sequence's
// policy's (sequence.Policy.Revalidate, seqctl alter --revalidate), or
// Options.Revalidate.
func (h *Handle) revalidateLocked() time.Duration {
	if r := h.policy.Revalidate; r > 0 {
		return r
	}
	return h.c.opts.Revalidate
}

// noteRevalidate makes the revalidation loop wake at least every d, for a
// policy that asked for d.
func (c *Cache) noteRevalidate(d time.Duration) {
	for {
		cur := c.checkEvery.Load()
		if cur == 0 || int64(d) >= cur || c.checkEvery.CompareAndSwap(cur, int64(d)) {
			return // checks off, or the loop wakes often enough
		}
	}
}

// validatedLocked records a store response, started at start, that told the
// incarnation of the values cached: no check is due before start plus the
// handle's revalidation interval.
func (h *Handle) validatedLocked(start time.Time) {
	if at := start.Add(h.revalidateLocked()); at.After(h.checkAt) {
		h.checkAt = at
	}
}

// check reads the incarnation of the sequence, started at start while the
// handle's generation was gen and its cached values of incarnation hold, and
// drops the cached values if the sequence is gone or another one. A store
// that cannot be asked leaves them: the cache keeps serving, as it does
// while refills fail.
func (h *Handle) check(start time.Time, gen, hold uint64) {
	defer h.c.wg.Done()
	ctx, cancel := context.WithTimeout(h.c.ctx, h.c.opts.RefillTimeout)
	g, err := sequence.ReadGen(ctx, h.c.store, h.name)
	cancel()

	var why string
	switch {
	case err == nil:
		if g != 0 && hold != 0 && g != hold {
			why = "recreated"
		}
	case errors.Is(err, sequence.ErrNotFound):
		why = "gone"
	}
	h.mu.Lock()
	h.checks++
	h.checking = false
	if err != nil && !errors.Is(err, sequence.ErrNotFound) {
		h.checkErrors++
	}
	var wasted int64
	// A change meanwhile (Invalidate, Change, a block of another
	// incarnation) made the cached values newer than this read.
	if why != "" && gen == h.gen && hold == h.holdGen {
		wasted = h.invalidateLocked()
		h.revalidations++
		h.incarnation.Add(1) // the name names another sequence, or none: see Cache.Retire
	} else {
		why = ""
	}
	h.mu.Unlock()
	if why == "" {
		return
	}
	h.recordLoss(wasted, 0)
	h.c.logger().LogAttrs(context.Background(), slog.LevelInfo,
		"seqshim: sequence dropped, recreated or renamed in the store; cached values dropped",
		slog.String(logSequence, h.name), slog.String(logStore, h.c.opts.StoreName),
		slog.String("change", why), slog.Int64("wasted", wasted))
}

// newIncarnationLocked takes note of b, a block just received: if it comes
// from another incarnation than the values cached, the sequence was dropped
// and created again since they were reserved, and they are dropped. It
// returns how many.
func (h *Handle) newIncarnationLocked(b sequence.Block) int64 {
	var wasted int64
	if b.Gen != 0 && h.holdGen != 0 && b.Gen != h.holdGen {
		wasted = h.claimActiveLocked().Count + h.standbyN
		h.wasted += wasted
		h.standby, h.standbyN = nil, 0
		h.sizing.prevOK = false // no gap to read between two sequences
		h.revalidations++
		h.incarnation.Add(1) // see Cache.Retire
	}
	if b.Gen != 0 {
		h.holdGen = b.Gen
	}
	return wasted
}
