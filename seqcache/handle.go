// The Handle: its active block, the hot path (Next), the slow path when a
// block is used up, and its counters.

package seqcache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/seqshim/seqshim/sequence"
)

// block is the active block of a handle: Next takes values from it with one
// atomic add.
type block struct {
	sequence.Block // written once, before the block is published in Handle.active
	// next is the index of the next value to hand out; it may overshoot
	// Count. Next adds to it without a lock; claimActiveLocked pushes it
	// past the end.
	next atomic.Int64
	// trigger is the index from which a refill is due: read by Next without
	// a lock, stored only under the handle's mu.
	trigger atomic.Int64
	// activated is when the block became active: written once, before it
	// is published.
	activated time.Time
	usedUp    bool // protected by the handle's mu: its use was noted (noteUsedUpLocked)
}

// exhausted is the active block of a handle with nothing cached.
func exhausted() *block { return &block{} }

// Handle is one sequence in a Cache. Its Next is the hot path: one atomic
// step inside the current block, no lock, no allocation, no I/O.
type Handle struct {
	// Written once by newHandle, before the handle is published; read-only
	// after.
	c       *Cache
	name    string
	seqAttr attribute.KeyValue       // seqshim.sequence=name
	attrs   metric.MeasurementOption // the attribute set of seqAttr alone

	// active is the block Next takes values from: loaded by Next without a
	// lock; stored by newHandle, then only under mu.
	active atomic.Pointer[block]

	refilling   atomic.Bool   // a refill goroutine is running: loaded by Next without a lock, stored only under mu
	incarnation atomic.Uint64 // which sequence the name names: see Cache.Retire
	refilled    chan struct{} // protected by mu; closed when that goroutine exits

	// pending is a reservation whose answer was lost and whose read-back
	// failed too (the store unreachable): the next refill reads it back
	// again before reserving anew, while the sequence's gen is still
	// pendingGen. Used only by the refill goroutine (one at a time; the
	// next starts after the last exited, under mu). See Handle.reserve.
	pending pendingReservation

	// mu protects all the fields below. (Cache.Handle may also set closed
	// before it publishes the handle.)
	mu       sync.Mutex
	standby  []sequence.Block // blocks received, in order, not yet active
	standbyN int64            // values in standby
	gen      uint64           // bumped by Invalidate: refills of an older generation are dropped
	closed   bool
	paused   int           // Change calls in progress: no refill starts
	waiters  int           // callers of Next waiting for a block
	notify   chan struct{} // closed and replaced after every store call, and by Change and Close
	outcomes uint64        // store calls completed
	lastErr  error         // error of the last store call, nil after a success
	retired  int64         // values served from blocks no longer active
	samples  []sample      // ring of the last Window/Sample+1 samples
	nsamples int           // samples recorded, at most len(samples)
	ringNext int           // where the next sample goes
	first    time.Time     // when the first block became active
	rate     float64       // values per second over the window, as of the last sample
	thresh   int64         // refill threshold: max(rate × buffer, MinThreshold), buffer as limitsLocked says
	trouble  trouble       // the store failing, callers without a value: see logs.go
	sizing   sizing        // the span and the ramp: see sizing.go
	// policy is the store's cache policy for the sequence, as the last
	// block received carried it (sequence.Block.Policy): its non-zero
	// fields override Options for this handle (see limitsLocked). Zero
	// until a block arrives.
	policy sequence.Policy
	// Revalidation (see revalidate.go).
	holdGen  uint64    // incarnation (sequence.Block.Gen) of the values cached; 0 if unknown or none
	checkAt  time.Time // when a check of the incarnation is due; zero until a block arrives
	checking bool      // a check is in flight

	// counters
	reservations, reserved, waits, storeErrors, released, wasted, throttled int64
	checks, checkErrors, revalidations                                      int64
	recoveries, recovered                                                   int64
}

func newHandle(c *Cache, name string) *Handle {
	h := &Handle{c: c, name: name, notify: make(chan struct{}), thresh: c.opts.MinThreshold}
	h.sizing.span = c.opts.Sample
	h.seqAttr = attribute.String(attrSequence, name)
	h.attrs = metric.WithAttributeSet(attribute.NewSet(h.seqAttr))
	h.samples = make([]sample, int(c.opts.Window/c.opts.Sample)+1)
	h.active.Store(exhausted())
	return h
}

// Name returns the sequence's canonical name.
func (h *Handle) Name() string { return h.name }

// Next returns the sequence's next value. Inside a block it takes no lock
// and does no I/O; when the block is used up it switches to the standby
// block, or waits for the refill in flight, at most Options.MaxWait and no
// longer than ctx allows.
func (h *Handle) Next(ctx context.Context) (int64, error) {
	b := h.active.Load()
	if i := b.next.Add(1) - 1; i < b.Count {
		if i >= b.trigger.Load() && !h.refilling.Load() {
			h.kick()
		}
		return b.Value(i), nil
	}
	v, err := h.slow(ctx, 1)
	return v.First, err
}

// maxTake bounds what one Take asks for, so that adding it to a block's
// index never overflows.
const maxTake = 1 << 40

// Take returns a block of at most n consecutive values of the sequence, the
// values Next would return next, in order: the rest of the active block when
// fewer than n are left in it. It waits as Next does when the cache is
// empty. The sequence service hands such blocks to its clients, so that its
// cache sizes its reservations to the values its clients take, as a
// process's cache does to its statements'. n below 1 is 1.
func (h *Handle) Take(ctx context.Context, n int64) (sequence.Block, error) {
	n = min(max(n, 1), maxTake)
	b := h.active.Load()
	if i := b.next.Add(n) - n; i < b.Count {
		if i+n > b.trigger.Load() && !h.refilling.Load() {
			h.kick()
		}
		return b.take(i, n), nil
	}
	return h.slow(ctx, n)
}

// Epoch names the handle's cached values: it changes whenever they are
// dropped (Change, Invalidate). A block taken within one epoch can be given
// back (Untake) only within it, so that values from before a change
// (setval, RESTART) are never handed out after it.
func (h *Handle) Epoch() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gen
}

// Untake gives back a block Take returned in epoch — or its tail — when
// nothing taken after it is still out: the values are handed out again,
// next, in order. It reports whether it did; otherwise the values stay a
// gap, as any a caller does not use. The sequence service calls it with the
// unused tail a client hands back (at its shutdown, before an ALTER), so
// that the store ends where PostgreSQL would, at the last value used; the
// caller must know the values are the giver's (the service checks the
// token of the reservation that handed them out).
//
// It gives back b when b ends where the active block's next value starts
// (the last values taken), or when the active block was given back whole
// and b comes right before it (merged into one block again) or at the end
// of the lap before it (a sequence that cycles: b is handed out first, then
// the active block).
func (h *Handle) Untake(b sequence.Block, epoch uint64) bool {
	if b.Count < 1 {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.active.Load()
	if epoch != h.gen || h.closed || a.Count == 0 || a.Step != b.Step || b.Gen != 0 && a.Gen != b.Gen {
		return false
	}
	if a.Contains(b.First) {
		// The tail of what was taken from the active block (or, for a
		// sequence that cycles, the same values of another lap: then the
		// cursor is elsewhere, and b may still come before the block).
		i := (b.First - a.First) / a.Step
		if end := i + b.Count; end < a.Count && a.next.CompareAndSwap(end, i) {
			return true
		} else if end == a.Count {
			// The block's last values: the cursor may have overshot its end
			// (a Take of more than was left), nothing was taken past it.
			for {
				j := a.next.Load()
				if j < a.Count {
					break
				}
				if a.next.CompareAndSwap(j, i) {
					return true
				}
			}
		}
	}
	last := b.Last()
	up := b.Step > 0
	adjacent := up && last < a.First && a.First-last == b.Step || !up && last > a.First && last-a.First == -b.Step
	// Within one epoch a block that came after b yet does not start past it
	// came after a wrap (a sequence that cycles).
	wrapped := up && a.First <= b.First || !up && a.First >= b.First
	if !adjacent && !wrapped {
		return false
	}
	// Claim the old block first: a Take racing with us then finds it used
	// up and waits for the lock, instead of taking its values twice.
	if !a.next.CompareAndSwap(0, a.Count) {
		return false
	}
	h.retired -= b.Count // counted when its block was retired: to be served again
	nb := &block{Block: a.Block, activated: a.activated}
	if adjacent {
		nb.First, nb.Count = b.First, a.Count+b.Count
	} else {
		nb.First, nb.Count = b.First, b.Count
		h.standby = append([]sequence.Block{a.Block}, h.standby...)
		h.standbyN += a.Count
	}
	h.setTriggerLocked(nb)
	h.active.Store(nb)
	return true
}

// Unserved returns the values the handle holds that no caller took yet: the
// rest of the active block, then the standby blocks, in the order they will
// be handed out.
func (h *Handle) Unserved() []sequence.Block {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.active.Load()
	var out []sequence.Block
	if i := a.next.Load(); i < a.Count {
		out = append(out, a.Block.Tail(i))
	}
	return append(out, h.standby...)
}

// take is the values of b from index i, at most n.
func (b *block) take(i, n int64) sequence.Block {
	return sequence.Block{First: b.Value(i), Step: b.Step, Count: min(n, b.Count-i), Policy: b.Policy, Gen: b.Gen}
}

// kick starts a refill from the hot path.
func (h *Handle) kick() {
	h.mu.Lock()
	h.startRefillLocked()
	h.mu.Unlock()
}

// slow is Next and Take (of n values) when the active block is used up.
func (h *Handle) slow(ctx context.Context, n int64) (_ sequence.Block, err error) {
	var (
		timer     *time.Timer
		timeout   <-chan time.Time
		sinceErr  uint64 // only store outcomes after this count are this call's business
		waiting   bool
		waitStart time.Time
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		if waiting {
			h.doneWaiting(ctx, waitStart, err)
		}
	}()
	for {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return sequence.Block{}, ErrClosed
		}
		b := h.active.Load()
		if i := b.next.Add(n) - n; i < b.Count {
			// Another caller switched blocks while we waited for the lock.
			h.startRefillIfDueLocked(b, i+n-1)
			h.mu.Unlock()
			return b.take(i, n), nil
		}
		h.noteUsedUpLocked(b, time.Now())
		if len(h.standby) > 0 {
			h.activateLocked(time.Now())
			h.mu.Unlock()
			continue
		}
		if waiting && h.outcomes > sinceErr && h.lastErr != nil && !transient(h.lastErr) {
			err := h.lastErr
			h.mu.Unlock()
			return sequence.Block{}, err
		}
		if !waiting {
			waiting = true
			waitStart = time.Now()
			sinceErr = h.outcomes
			h.waits++
			h.waiters++
		}
		h.startRefillLocked()
		ch := h.notify
		h.mu.Unlock()

		if timer == nil {
			timer = time.NewTimer(h.c.opts.MaxWait)
			timeout = timer.C
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return sequence.Block{}, fmt.Errorf("seqcache: waiting for a block of %q: %w", h.name, ctx.Err())
		case <-timeout:
			h.mu.Lock()
			last := h.lastErr
			h.mu.Unlock()
			if last == nil {
				last = errors.New("store did not answer")
			}
			return sequence.Block{}, fmt.Errorf("seqcache: no value for %q within %v: %w: %w", h.name, h.c.opts.MaxWait, ErrUnavailable, last)
		}
	}
}

// doneWaiting ends a caller's wait for a block, which got it a value or
// err: it records the wait, and logs the first caller that got none.
func (h *Handle) doneWaiting(ctx context.Context, start time.Time, err error) {
	now := time.Now()
	var n note
	h.mu.Lock()
	h.waiters--
	if err != nil && ranOut(err) {
		n = h.unservedLocked(now, err)
	}
	h.mu.Unlock()
	waited := now.Sub(start)
	h.recordWait(ctx, waited, err)
	h.log(ctx, n, waited)
}

// activateLocked makes the first standby block the active one.
func (h *Handle) activateLocked(now time.Time) {
	old := h.active.Load()
	h.retired += old.Count // only called once old is used up
	nb := &block{Block: h.standby[0], activated: now}
	h.standby = h.standby[1:]
	h.standbyN -= nb.Count
	if h.first.IsZero() {
		h.first = now
		h.addSampleLocked(sample{at: now})
	}
	h.setTriggerLocked(nb)
	h.active.Store(nb)
	h.startRefillIfDueLocked(nb, 0)
}

// setTriggerLocked sets the index of b from which Next starts a refill: when
// the values left in b plus those in standby fall to the threshold, and at
// once when there is no standby block (a standby is always kept).
func (h *Handle) setTriggerLocked(b *block) {
	switch {
	case h.standbyN == 0:
		b.trigger.Store(0)
	case h.standbyN >= h.thresh:
		b.trigger.Store(b.Count)
	default:
		b.trigger.Store(max(b.Count-(h.thresh-h.standbyN), 0))
	}
}

func (h *Handle) startRefillIfDueLocked(b *block, i int64) {
	if i >= b.trigger.Load() {
		h.startRefillLocked()
	}
}

// depthLocked is the number of values cached: left in the active block plus
// standby.
func (h *Handle) depthLocked() int64 {
	b := h.active.Load()
	left := b.Count - min(b.next.Load(), b.Count)
	return left + h.standbyN
}

// servedLocked is the number of values handed out so far.
func (h *Handle) servedLocked() int64 {
	b := h.active.Load()
	return h.retired + min(b.next.Load(), b.Count)
}

// Policy returns the store's cache policy for the sequence as of the last
// block received ([sequence.Block.Policy]); zero before the first. Its
// non-zero fields override the cache's Options for this sequence.
func (h *Handle) Policy() sequence.Policy {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.policy
}

// Stats returns the handle's counters.
func (h *Handle) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Stats{
		Name:         h.name,
		Served:       h.servedLocked(),
		Reservations: h.reservations,
		Reserved:     h.reserved,
		Waits:        h.waits,
		StoreErrors:  h.storeErrors,
		Rate:         h.rate,
		Depth:        h.depthLocked(),
		Released:     h.released,
		Wasted:       h.wasted,
		Throttled:    h.throttled,
		Recoveries:   h.recoveries,
		Recovered:    h.recovered,
		Span:         h.sizing.span,

		Checks:        h.checks,
		CheckErrors:   h.checkErrors,
		Revalidations: h.revalidations,
	}
}
