// The background refill: when a handle wants another block, and the one
// goroutine per handle that reserves it from the store.

package seqcache

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// startRefillLocked starts the refill goroutine unless one is running: at
// most one store call per sequence is ever in flight.
func (h *Handle) startRefillLocked() {
	if h.refilling.Load() || h.closed || h.paused > 0 {
		return
	}
	h.refilling.Store(true)
	h.refilled = make(chan struct{})
	h.c.wg.Add(1)
	go h.refill(h.refilled)
}

// needLocked reports whether another block is wanted: a standby block is
// always kept, and no fewer values than the threshold (as the trigger
// counts: a refill is due once fewer are left). Callers waiting in Next
// are not counted: a block on standby is theirs as soon as they run, and a
// refill that kept asking until they did would reserve block after block
// from a fast store.
func (h *Handle) needLocked() bool {
	return h.standbyN == 0 || h.depthLocked() < h.thresh
}

// refill reserves blocks until the handle has enough cached, retrying
// transient store failures with jittered backoff.
func (h *Handle) refill(done chan struct{}) {
	defer h.c.wg.Done()
	defer close(done)
	const minBackoff, maxBackoff = 20 * time.Millisecond, 2 * time.Second
	backoff := minBackoff
	for {
		h.mu.Lock()
		if h.closed || h.paused > 0 || !h.needLocked() {
			h.refilling.Store(false)
			h.setTriggerLocked(h.active.Load())
			h.mu.Unlock()
			return
		}
		gen := h.gen
		n := h.blockSizeLocked(time.Now())
		h.mu.Unlock()

		start := time.Now()
		b, err, lost := h.reserve(n, gen)
		now := time.Now()
		closing := err != nil && h.c.ctx.Err() != nil // the failure is Close's doing

		h.mu.Lock()
		h.outcomes++
		if err == nil && b.Count <= 0 {
			err = fmt.Errorf("seqcache: store returned an empty block for %q", h.name)
		}
		h.lastErr = err
		var wasted int64
		throttled := err != nil && errors.Is(err, sequence.ErrThrottled)
		if err != nil {
			h.storeErrors++
			if throttled {
				h.throttled++
				h.throttledLocked(now)
			}
		} else {
			if lost != nil {
				h.storeErrors++ // the call failed; its block came by the read-back
				h.recoveries++
				h.recovered += b.Count
			}
			h.sizing.raised = false
			h.applyPolicyLocked(b.Policy)
			h.reservations++
			h.reserved += b.Count
			if gen == h.gen {
				wasted = h.newIncarnationLocked(b)
				h.validatedLocked(start)
				h.observeLocked(b, now)
				h.standby = append(h.standby, b)
				h.standbyN += b.Count
				h.setTriggerLocked(h.active.Load())
			} else {
				wasted = b.Count // reserved before an Invalidate
				h.wasted += wasted
			}
		}
		nt := h.storeOutcomeLocked(now, err, closing)
		close(h.notify)
		h.notify = make(chan struct{})
		wake := h.notify // closed by the next outcome, Change or Close
		if err != nil && !transient(err) {
			// A definitive answer (exhausted, dropped): stop until a caller
			// asks again, and keep the hot path from asking per value.
			h.active.Load().trigger.Store(h.active.Load().Count)
			h.refilling.Store(false)
			h.mu.Unlock()
			h.reportStoreCall(now.Sub(start), b.Count, err, lost, closing, wasted, nt)
			return
		}
		h.mu.Unlock()
		h.reportStoreCall(now.Sub(start), b.Count, err, lost, closing, wasted, nt)

		if err == nil {
			backoff = minBackoff
			continue
		}
		wait := backoff/2 + rand.N(backoff/2+1)
		if throttled {
			// Back-pressure: wait longer, and anywhere in the interval (full
			// jitter), so that the processes throttled together do not all
			// come back together.
			backoff = max(backoff, minThrottledBackoff)
			wait = time.Millisecond + rand.N(backoff)
		}
		backoff = min(2*backoff, maxBackoff)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-wake:
			t.Stop()
		case <-h.c.ctx.Done():
			t.Stop()
		}
	}
}

// pendingReservation is a reservation made with token whose answer was
// lost (err) and whose read-back failed, in generation gen.
type pendingReservation struct {
	token sequence.Token
	err   error
	gen   uint64
	reads int // read-backs that failed
}

// maxReadBacks bounds the read-backs of one lost answer: a store that
// cannot be read but could be written (its reads throttled or failing
// alone) must not keep refills from reserving for long. With the refill's
// backoff (20 ms doubling to 2 s, jittered) they span about 4 s, less than
// the default MaxWait: a refill stalled by them still serves its callers.
const maxReadBacks = 8

// reserve asks the store for a block of n values, under RefillTimeout; gen
// is the handle's generation when the refill decided to.
//
// With a [sequence.Recoverer] store the attempt carries a fresh token, and
// a failure that may hide an applied reservation (see recoverable) is
// followed by a read-back of that token, under a timeout of its own: on
// proof the block is adopted, and lost is the failure it replaces. The
// attempt is over (returned, its context cancelled) before the read-back,
// so its block is received once at most: by the answer or by the proof.
// No proof leaves the block a gap, and the next attempt has a new token. A
// read-back that fails too (the store unreachable) is tried again by the
// next refill, before any new reservation, as long as no change to the
// sequence (a new gen) came in between, up to maxReadBacks times: during an
// outage that loses answers, the cache then reads rather than reserving
// block after block that would be lost. A read-back that cannot work (a
// configuration error), is throttled, or Close gives up: a gap.
func (h *Handle) reserve(n int64, gen uint64) (b sequence.Block, err, lost error) {
	rec := h.c.rec
	if rec == nil {
		ctx, cancel := context.WithTimeout(h.c.ctx, h.c.opts.RefillTimeout)
		b, err = h.c.store.Reserve(ctx, h.name, n)
		cancel()
		return b, err, nil
	}
	if h.pending.gen != gen {
		h.pending = pendingReservation{} // reserved before a change: a gap
	}
	for {
		fresh := h.pending.token.IsZero()
		if fresh {
			tok := sequence.NewToken()
			ctx, cancel := context.WithTimeout(h.c.ctx, h.c.opts.RefillTimeout)
			b, err = rec.ReserveToken(ctx, h.name, n, tok)
			cancel()
			if err == nil || !recoverable(err) || h.c.ctx.Err() != nil {
				return b, err, nil
			}
			h.pending = pendingReservation{token: tok, err: err, gen: gen}
		}
		ctx, cancel := context.WithTimeout(h.c.ctx, h.c.opts.RefillTimeout)
		rb, ok, rerr := rec.Recover(ctx, h.name, h.pending.token)
		cancel()
		p := h.pending
		switch {
		case rerr == nil && ok && rb.Count > 0:
			h.pending = pendingReservation{}
			return rb, nil, p.err
		case rerr != nil && recoverable(rerr) && h.c.ctx.Err() == nil && p.reads+1 < maxReadBacks:
			// Not read: try again next time.
			h.pending.reads++
			if fresh {
				return sequence.Block{}, p.err, nil
			}
			return sequence.Block{}, rerr, nil
		}
		// No proof, or no way to get it: the block is a gap.
		h.pending = pendingReservation{}
		if fresh || h.c.ctx.Err() != nil {
			return sequence.Block{}, p.err, nil
		}
		// An earlier attempt's read-back, answered at last: reserve now.
	}
}

// recoverable reports whether a failed reservation may have been applied
// by the store with its answer lost, so that reading its token back may
// find it: a transient failure (a timeout, a reset, a lost race after a
// retry) other than throttling, which the store reports instead of
// applying the request. A definitive answer applied nothing.
func recoverable(err error) bool {
	return transient(err) && !errors.Is(err, sequence.ErrThrottled)
}

// reportStoreCall records a store call of a refill and logs the change of
// state it made, once h.mu is released (waiters are woken first). lost is
// the failure of a call whose block was recovered (err is then nil).
func (h *Handle) reportStoreCall(took time.Duration, n int64, err, lost error, closing bool, wasted int64, nt note) {
	if !closing {
		h.recordStoreCall(took, n, err)
		if lost != nil {
			h.recordRecovery(lost, n)
		}
	}
	h.recordLoss(wasted, 0)
	h.log(context.Background(), nt, 0)
}
