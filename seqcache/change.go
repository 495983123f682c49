// What takes cached values away from Next: Change, Invalidate, Close, and
// handing unused values back to the store.

package seqcache

import (
	"context"
	"errors"
	"fmt"

	"github.com/seqshim/seqshim/sequence"
)

// change is Cache.Change.
func (h *Handle) change(ctx context.Context, fn func(ctx context.Context) error) error {
	h.mu.Lock()
	h.paused++
	close(h.notify) // wakes a refill sleeping in backoff
	h.notify = make(chan struct{})
	for h.refilling.Load() {
		done := h.refilled
		h.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			h.resume()
			return ctx.Err()
		}
		h.mu.Lock()
	}
	h.mu.Unlock()
	defer h.resume()
	// Hand the unused values back first (to a sequence.Releaser store), so that the
	// store's position is the last value served, as PostgreSQL's is: ALTER
	// … MAXVALUE below the reserved end succeeds, ALTER … INCREMENT and
	// RENAME continue without a gap. Values not taken back are a gap.
	_ = h.releaseAll()
	h.invalidate()
	return fn(ctx)
}

// resume ends a change: blocks reserved from now on reflect it.
func (h *Handle) resume() {
	h.mu.Lock()
	h.paused--
	wasted := h.invalidateLocked() // a refill that was in flight when ctx ended
	if h.waiters > 0 {
		h.startRefillLocked()
	}
	h.mu.Unlock()
	h.recordLoss(wasted, 0)
}

// invalidate drops every cached value of the handle.
func (h *Handle) invalidate() {
	h.mu.Lock()
	wasted := h.invalidateLocked()
	h.mu.Unlock()
	h.recordLoss(wasted, 0)
}

// invalidateLocked drops the cached values and returns how many.
func (h *Handle) invalidateLocked() int64 {
	h.gen++
	wasted := h.claimActiveLocked().Count + h.standbyN
	h.wasted += wasted
	h.standby, h.standbyN = nil, 0
	h.lastErr = nil
	h.sizing.prevOK = false // the sequence may have moved: no gap to read
	h.holdGen = 0
	return wasted
}

// claimActiveLocked replaces the active block with an exhausted one and
// returns the values of the old one that no caller took.
func (h *Handle) claimActiveLocked() sequence.Block {
	old := h.active.Load()
	h.active.Store(exhausted())
	// Push the cursor past the end: a caller racing with us either got its
	// index before (its value counts as served) or gets one past Count.
	i := old.next.Add(old.Count) - old.Count
	h.retired += min(i, old.Count)
	return old.Block.Tail(i)
}

// close marks the handle closed and wakes its waiters.
func (h *Handle) close() {
	h.mu.Lock()
	h.closed = true
	close(h.notify)
	h.notify = make(chan struct{})
	h.mu.Unlock()
}

// releaseAll hands the handle's unused values back to the store, last block
// first, so each release finds the store positioned at its end.
func (h *Handle) releaseAll() error {
	h.mu.Lock()
	unused := append([]sequence.Block{h.claimActiveLocked()}, h.standby...)
	h.standby, h.standbyN = nil, 0
	h.mu.Unlock()

	rel, ok := h.c.store.(sequence.Releaser)
	var released, wasted int64
	var err error
	for i := len(unused) - 1; i >= 0; i-- {
		b := unused[i]
		if b.Count <= 0 {
			continue
		}
		if !ok || err != nil {
			wasted += b.Count
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), h.c.opts.RefillTimeout)
		var done bool
		done, err = rel.Release(ctx, h.name, b)
		cancel()
		if done {
			released += b.Count
		} else {
			wasted += b.Count
			if err == nil {
				err = errReleaseRefused // stop: earlier blocks cannot be released either
			}
		}
	}
	if errors.Is(err, errReleaseRefused) {
		err = nil
	}
	h.mu.Lock()
	h.released += released
	h.wasted += wasted
	h.mu.Unlock()
	h.recordLoss(wasted, released)
	if err != nil {
		return fmt.Errorf("seqcache: releasing unused values of %q: %w", h.name, err)
	}
	return nil
}

var errReleaseRefused = errors.New("release refused")
