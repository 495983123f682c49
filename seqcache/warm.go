// Warm: a block reserved ahead of the first Next, so that a program finds
// out at start-up whether its store and sequences work.

package seqcache

import (
	"context"
	"fmt"
)

// Warm makes sure the handle has values cached without handing any out: if
// it has none, it starts a refill and waits for the store's answer. It
// returns nil once a block is cached, the store's error if the reservation
// failed (whether or not the failure is transient: the refill goes on
// retrying a transient one in the background, as for Next), ErrClosed after
// Close, or ctx's error if ctx ends first.
//
// A program calls it for the sequences it cannot work without, when it
// starts, so that a store it cannot reach or a sequence that does not exist
// fails the start rather than the first Next, minutes later. No value is
// lost: the block is handed out by Next afterwards.
func (h *Handle) Warm(ctx context.Context) error {
	h.mu.Lock()
	for {
		if h.closed {
			h.mu.Unlock()
			return ErrClosed
		}
		if h.depthLocked() > 0 {
			h.mu.Unlock()
			return nil
		}
		since := h.outcomes
		h.startRefillLocked()
		ch := h.notify // closed by the refill's outcome (or Change, Close)
		h.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("seqcache: warming %q: %w", h.name, ctx.Err())
		}
		h.mu.Lock()
		if h.outcomes > since && h.lastErr != nil && h.depthLocked() == 0 {
			err := h.lastErr
			h.mu.Unlock()
			return err
		}
	}
}
