// Block sizing: the span a block covers, grown while the store throttles and
// shrunk back when it has stopped; the ramp from small first blocks to the
// measured rate; the jitter that keeps a fleet's refills apart. See Sizing in
// the package documentation.

package seqcache

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// Bounds of the sizing policy; documented in doc.go (Sizing).
const (
	// maxSpanFactor bounds the span: at most this many Options.Sample.
	maxSpanFactor = 64
	// calmBefore is how long the store must not have throttled before the
	// span halves; each halving draws its own wait in
	// [calmBefore, calmBefore + calmJitter), so that processes throttled
	// together do not shrink together.
	calmBefore = 10 * time.Minute
	calmJitter = 5 * time.Minute
	// rampAge: a process that has served for a time d trusts the rate of
	// its last block used up for at most rampAge × d: a burst of a few
	// milliseconds is not taken for a rate that lasts a second.
	rampAge = 2
	// A block holds between jitterLow and jitterHigh spans of consumption
	// at the measured rate: at least a span when the rate reads a little
	// low, and a fleet's processes, drawing at the same rate, come to refill
	// at different moments.
	jitterLow, jitterHigh = 1.1, 1.4
	// minThrottledBackoff is the first wait before a throttled call is
	// retried (other failures: 20 ms).
	minThrottledBackoff = 100 * time.Millisecond
	// fleetWrites is the store writes a second a whole fleet should make on
	// one sequence: a block holds at least 1/fleetWrites s of the fleet's
	// consumption, which a process reads from the values others reserved
	// between its own reservations. Half of DynamoDB's per-item limit.
	fleetWrites = 500
	// fleetMinSpan is the shortest time the fleet's consumption is measured
	// over.
	fleetMinSpan = 250 * time.Millisecond
	// minUseTime is the shortest time a block is taken to have lasted (a
	// typical store round trip): the rate of a block drawn in a burst is
	// not measured over a few microseconds.
	minUseTime = 5 * time.Millisecond
)

// sizing is a handle's state for the size of its blocks; protected by the
// handle's mu.
type sizing struct {
	span       time.Duration // the time a block covers: Sample × 2^k, k ≤ log2(maxSpanFactor)
	raised     bool          // the span doubled since the last block arrived: once per throttled refill
	lastThrot  time.Time     // the last throttled store call
	lastChange time.Time     // the last change of span
	calm       time.Duration // quiet time needed before the next halving; 0 until the first throttle

	usedN  int64         // values of the last block used up, 0 if none
	usedIn time.Duration // how long it lasted
	usedAt time.Time     // when it was used up

	// The rest of the fleet, seen from this process's reservations.
	prev      sequence.Block // the last block received, if prevOK
	prevOK    bool           // false until a block arrives, and after Invalidate
	gapValues int64          // values others reserved since gapFrom
	gapFrom   time.Time
	others    float64   // values per second others reserved, as of othersAt
	othersAt  time.Time // zero until measured
}

// observeLocked takes note of b, a block just received: the values between
// the last block's end and b's start went to other processes.
func (h *Handle) observeLocked(b sequence.Block, now time.Time) {
	s := &h.sizing
	gap, ok := valuesBetween(s.prev, b)
	switch {
	case !s.prevOK || !ok:
		s.gapValues, s.gapFrom = 0, now
	default:
		s.gapValues = min(s.gapValues, math.MaxInt64/2) + gap // a setval far ahead must not overflow it
		if d := now.Sub(s.gapFrom); d >= fleetMinSpan {
			s.others, s.othersAt = float64(s.gapValues)/d.Seconds(), now
			s.gapValues, s.gapFrom = 0, now
		}
	}
	s.prev, s.prevOK = b, true
}

// valuesBetween is the number of values of the sequence after a's last and
// before b's first, if b follows a (same increment, no wrap, no setval
// backwards).
func valuesBetween(a, b sequence.Block) (int64, bool) {
	if a.Count <= 0 || b.Count <= 0 || a.Step != b.Step || a.Step == 0 {
		return 0, false
	}
	last := a.Last()
	var dist, step uint64
	switch {
	case a.Step > 0 && b.First > last:
		dist, step = uint64(b.First)-uint64(last), uint64(a.Step)
	case a.Step < 0 && b.First < last:
		dist, step = uint64(last)-uint64(b.First), -uint64(a.Step)
	default:
		return 0, false
	}
	n := dist / step
	if dist%step != 0 || n > math.MaxInt64/2 {
		return 0, false
	}
	return int64(n) - 1, true
}

// noteUsedUpLocked records that b, the active block, has no value left, for
// the ramp: the rate at which its values went.
func (h *Handle) noteUsedUpLocked(b *block, now time.Time) {
	if b.Count <= 0 || b.usedUp || b.activated.IsZero() {
		return
	}
	b.usedUp = true
	s := &h.sizing
	s.usedN, s.usedIn, s.usedAt = b.Count, max(now.Sub(b.activated), minUseTime), now
}

// limitsLocked returns the buffer and the block bounds in force for the
// handle: the store's cache policy for the sequence (h.policy) where it sets
// them, the cache's Options elsewhere. When the two mix into bounds that
// cross, the one the policy set wins (a policy MinBlock above
// Options.MaxBlock raises the maximum to it).
func (h *Handle) limitsLocked() (buffer time.Duration, minBlock, maxBlock int64) {
	o, p := &h.c.opts, h.policy
	buffer, minBlock, maxBlock = o.Buffer, o.MinBlock, o.MaxBlock
	if p.Buffer > 0 {
		buffer = p.Buffer
	}
	if p.MinBlock > 0 {
		minBlock = p.MinBlock
	}
	if p.MaxBlock > 0 {
		maxBlock = p.MaxBlock
	}
	if maxBlock < minBlock {
		if p.MaxBlock > 0 {
			minBlock = maxBlock
		} else {
			maxBlock = minBlock
		}
	}
	return buffer, minBlock, maxBlock
}

// applyPolicyLocked takes the policy a block just received carried: from
// now on the threshold and the size of the blocks asked for follow it.
func (h *Handle) applyPolicyLocked(p sequence.Policy) {
	if p == h.policy {
		return
	}
	old := h.policy
	h.policy = p
	if p.Buffer != old.Buffer {
		h.setThreshLocked()
	}
	if p.Revalidate > 0 && p.Revalidate != old.Revalidate {
		h.c.noteRevalidate(p.Revalidate)
	}
}

// blockSizeLocked is the size to ask the store for: a span of consumption
// at the rate measured over the window, or 1/fleetWrites s of the fleet's
// consumption if that is more, times a random factor in
// [jitterLow, jitterHigh), clamped to [MinBlock, MaxBlock] (the policy's,
// where it sets them: see limitsLocked). While the rate
// of the last block used up (within the window) is higher — a process
// starting, or drawing faster than its window knows — a block covers
// min(span, rampAge × the time since the first block) at that rate instead.
func (h *Handle) blockSizeLocked(now time.Time) int64 {
	o := &h.c.opts
	s := &h.sizing
	covered := h.rateLocked(now) * s.span.Seconds()
	if s.usedN > 0 && now.Sub(s.usedAt) <= o.Window {
		recent := float64(s.usedN) / s.usedIn.Seconds()
		trust := min(s.span, rampAge*now.Sub(h.first))
		covered = max(covered, recent*trust.Seconds())
	}
	if s.othersAt.After(now.Add(-o.Window)) {
		covered = max(covered, (s.others+h.rate)/fleetWrites)
	}
	want := covered * (jitterLow + rand.Float64()*(jitterHigh-jitterLow))
	_, minBlock, maxBlock := h.limitsLocked()
	n := maxBlock
	if want < float64(maxBlock) {
		n = min(max(int64(want), minBlock), maxBlock)
	}
	return n
}

// throttledLocked takes a throttled store call as back-pressure: the span
// doubles, once per refill (until a block arrives), up to maxSpanFactor
// Samples.
func (h *Handle) throttledLocked(now time.Time) {
	s := &h.sizing
	s.lastThrot = now
	s.calm = calmBefore + rand.N(calmJitter)
	if s.raised {
		return
	}
	s.raised = true
	if top := maxSpanFactor * h.c.opts.Sample; s.span < top {
		s.span = min(2*s.span, top)
		s.lastChange = now
	}
}

// relaxLocked halves the span once the store has not throttled for the calm
// time since the last throttle or change, down to Sample.
func (h *Handle) relaxLocked(now time.Time) {
	s := &h.sizing
	if s.span <= h.c.opts.Sample {
		return
	}
	if now.Sub(s.lastThrot) < s.calm || now.Sub(s.lastChange) < s.calm {
		return
	}
	s.span = max(s.span/2, h.c.opts.Sample)
	s.lastChange = now
	s.calm = calmBefore + rand.N(calmJitter)
}
