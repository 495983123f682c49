package seqcache

import (
	"context"
	"errors"
	"fmt"
	"github.com/seqshim/seqshim/sequence"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Cache. Zero fields take the defaults noted.
type Options struct {
	// Buffer is how many seconds of consumption, at the observed rate, a
	// handle keeps cached: a refill starts when fewer than
	// max(rate × Buffer, MinThreshold) values are left. It is also how long a
	// warmed cache keeps serving when the store is down. Default 10s.
	Buffer time.Duration
	// MinThreshold is the floor of that refill threshold. Default 50.
	MinThreshold int64
	// Window is the span of the sliding window the rate is measured over.
	// Default 60s.
	Window time.Duration
	// Sample is the period of rate samples, and the time one block asked of
	// the store should last at the current rate. Default 1s.
	Sample time.Duration
	// MinBlock and MaxBlock clamp the size of a block asked of the store.
	// The first blocks, before a rate is known, are MinBlock values.
	// Defaults 1000 and 1,000,000.
	MinBlock, MaxBlock int64
	// MaxWait bounds how long Next waits for a refill when nothing is cached
	// (the caller's context may end the wait sooner). Default 5s.
	MaxWait time.Duration
	// RefillTimeout bounds each background store call. Default 3s.
	RefillTimeout time.Duration
}

func (o *Options) setDefaults() {
	if o.Buffer <= 0 {
		o.Buffer = 10 * time.Second
	}
	if o.MinThreshold <= 0 {
		o.MinThreshold = 50
	}
	if o.Window <= 0 {
		o.Window = 60 * time.Second
	}
	if o.Sample <= 0 {
		o.Sample = time.Second
	}
	if o.MinBlock <= 0 {
		o.MinBlock = 1000
	}
	if o.MaxBlock <= 0 {
		o.MaxBlock = 1_000_000
	}
	if o.MaxBlock < o.MinBlock {
		o.MaxBlock = o.MinBlock
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 5 * time.Second
	}
	if o.RefillTimeout <= 0 {
		o.RefillTimeout = 3 * time.Second
	}
}

// ErrUnavailable is wrapped by the error Next returns when no value arrived
// within Options.MaxWait; the error also wraps the store's last failure.
var ErrUnavailable = errors.New("no sequence value available")

// ErrClosed is returned by Next after [Cache.Close].
var ErrClosed = errors.New("seqcache: cache closed")

// transient reports whether a store error may go away by itself, so that a
// refill is retried rather than reported to the waiting callers.
func transient(err error) bool {
	return sequence.IsTransient(err) && !errors.Is(err, ErrClosed)
}

// Stats are one sequence's counters in a Cache.
type Stats struct {
	Name         string
	Served       int64   // values handed out by Next
	Reservations int64   // blocks received from the store
	Reserved     int64   // values in those blocks
	Waits        int64   // Next calls that had to wait for a refill
	StoreErrors  int64   // failed store calls
	Rate         float64 // values per second over the window
	Depth        int64   // values cached in this process now
	Released     int64   // unused values handed back to the store on Close
	Wasted       int64   // unused values dropped (Invalidate, Close without release)
}

// Cache hands out sequence values from blocks reserved in a store. It is safe
// for concurrent use; see the package documentation for how it refills.
type Cache struct {
	store sequence.Reserver
	opts  Options

	ctx    context.Context // cancelled by Close: ends store calls in flight
	cancel context.CancelFunc
	wg     sync.WaitGroup // refills and the sampler

	mu      sync.Mutex                         // guards additions to handles and closed
	handles atomic.Pointer[map[string]*Handle] // copy on write: lookups take no lock
	closed  bool
}

// New returns a Cache drawing blocks from store. Call Close to stop its
// background work and hand unused values back.
func New(store sequence.Reserver, optFns ...func(*Options)) *Cache {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	o.setDefaults()
	c := &Cache{store: store, opts: o}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	m := map[string]*Handle{}
	c.handles.Store(&m)
	c.wg.Add(1)
	go c.sample()
	return c
}

// Options returns the options in effect, defaults filled in.
func (c *Cache) Options() Options { return c.opts }

// Next returns the next value of the sequence name (canonical, see
// [sequence.ParseName]). Keep the [Handle] instead to skip the name lookup.
func (c *Cache) Next(ctx context.Context, name string) (int64, error) {
	if h := (*c.handles.Load())[name]; h != nil {
		return h.Next(ctx)
	}
	return c.Handle(name).Next(ctx)
}

// Handle returns the handle of sequence name, creating it on first use. A
// handle stays valid until the Cache is closed.
func (c *Cache) Handle(name string) *Handle {
	if h := (*c.handles.Load())[name]; h != nil {
		return h
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *c.handles.Load()
	if h := old[name]; h != nil {
		return h
	}
	h := newHandle(c, name)
	if c.closed {
		h.closed = true
	}
	m := make(map[string]*Handle, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[name] = h
	c.handles.Store(&m)
	return h
}

// Invalidate drops the values cached for name, so the next value comes from
// a new reservation. Call it after changing the sequence in the store from
// this process (setval, ALTER, DROP, RENAME): values reserved before the
// change would otherwise still be handed out.
func (c *Cache) Invalidate(name string) {
	if h := (*c.handles.Load())[name]; h != nil {
		h.invalidate()
	}
}

// Change runs fn, which changes sequence name in the store (setval, ALTER,
// DROP, RENAME), so that no value of the old state is handed out after
// Change returns: it stops refills of name, waits for the store call in
// flight, drops the cached values (handing them back first to a [sequence.Releaser]
// store, so fn finds the position PostgreSQL would have: the last value
// served), runs fn, and lets refills resume. Next
// calls in the meantime wait for the first block reserved after fn. The error
// is fn's, or ctx's if the wait for the call in flight is cut short.
func (c *Cache) Change(ctx context.Context, name string, fn func(ctx context.Context) error) error {
	return c.Handle(name).change(ctx, fn)
}

// Stats returns the counters of sequence name (zero if never used).
func (c *Cache) Stats(name string) Stats {
	if h := (*c.handles.Load())[name]; h != nil {
		return h.Stats()
	}
	return Stats{Name: name}
}

// AllStats returns the counters of every sequence used, ordered by name.
func (c *Cache) AllStats() []Stats {
	m := *c.handles.Load()
	out := make([]Stats, 0, len(m))
	for _, h := range m {
		out = append(out, h.Stats())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Close stops background refills and waits for them, makes every later Next
// fail with ErrClosed, and, if the store implements [sequence.Releaser], hands the
// unused values back so a clean shutdown leaves no gap. It is safe to call
// more than once.
func (c *Cache) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()

	handles := *c.handles.Load()
	for _, h := range handles {
		h.close()
	}
	c.cancel()
	c.wg.Wait()

	var errs []error
	for _, h := range handles {
		if err := h.releaseAll(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// sample records every handle's served count each Sample period, updates
// its rate and threshold, and starts refills the new threshold calls for.
func (c *Cache) sample() {
	defer c.wg.Done()
	t := time.NewTicker(c.opts.Sample)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case now := <-t.C:
			for _, h := range *c.handles.Load() {
				h.tick(now)
			}
		}
	}
}

// block is the active block of a handle: Next takes values from it with one
// atomic add.
type block struct {
	sequence.Block
	next    atomic.Int64 // index of the next value to hand out; may overshoot Count
	trigger atomic.Int64 // from this index on, a refill is due
}

// exhausted is the active block of a handle with nothing cached.
func exhausted() *block { return &block{} }

// sample is the served count at one instant.
type sample struct {
	at     time.Time
	served int64
}

// Handle is one sequence in a Cache. Its Next is the hot path: one atomic
// step inside the current block, no lock, no allocation, no I/O.
type Handle struct {
	c      *Cache
	name   string
	active atomic.Pointer[block]

	refilling atomic.Bool   // a refill goroutine is running; written under mu
	refilled  chan struct{} // closed when that goroutine exits

	mu       sync.Mutex
	standby  []sequence.Block // blocks received, in order, not yet active
	standbyN int64            // values in standby
	gen      uint64           // bumped by Invalidate: refills of an older generation are dropped
	closed   bool
	paused   int // Change calls in progress: no refill starts
	waiters  int
	notify   chan struct{} // closed and replaced after every store call
	outcomes uint64        // store calls completed
	lastErr  error         // error of the last store call, nil after a success
	retired  int64         // values served from blocks no longer active
	samples  []sample      // ring of the last Window/Sample+1 samples
	nsamples int           // samples recorded, at most len(samples)
	ringNext int           // where the next sample goes
	first    time.Time     // when the first block became active
	rate     float64
	thresh   int64

	// counters
	reservations, reserved, waits, storeErrors, released, wasted int64
}

func newHandle(c *Cache, name string) *Handle {
	h := &Handle{c: c, name: name, notify: make(chan struct{}), thresh: c.opts.MinThreshold}
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
	return h.slow(ctx)
}

// kick starts a refill from the hot path.
func (h *Handle) kick() {
	h.mu.Lock()
	h.startRefillLocked()
	h.mu.Unlock()
}

// slow is Next when the active block is used up.
func (h *Handle) slow(ctx context.Context) (int64, error) {
	var (
		timer    *time.Timer
		timeout  <-chan time.Time
		sinceErr uint64 // only store outcomes after this count are this call's business
		waiting  bool
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return 0, ErrClosed
		}
		b := h.active.Load()
		if i := b.next.Add(1) - 1; i < b.Count {
			// Another caller switched blocks while we waited for the lock.
			h.startRefillIfDueLocked(b, i)
			h.mu.Unlock()
			return b.Value(i), nil
		}
		if len(h.standby) > 0 {
			h.activateLocked(time.Now())
			h.mu.Unlock()
			continue
		}
		if waiting && h.outcomes > sinceErr && h.lastErr != nil && !transient(h.lastErr) {
			err := h.lastErr
			h.mu.Unlock()
			return 0, err
		}
		if !waiting {
			waiting = true
			sinceErr = h.outcomes
			h.waits++
			h.waiters++
			defer h.doneWaiting()
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
			return 0, fmt.Errorf("seqcache: waiting for a block of %q: %w", h.name, ctx.Err())
		case <-timeout:
			h.mu.Lock()
			last := h.lastErr
			h.mu.Unlock()
			if last == nil {
				last = errors.New("store did not answer")
			}
			return 0, fmt.Errorf("seqcache: no value for %q within %v: %w: %w", h.name, h.c.opts.MaxWait, ErrUnavailable, last)
		}
	}
}

func (h *Handle) doneWaiting() {
	h.mu.Lock()
	h.waiters--
	h.mu.Unlock()
}

// activateLocked makes the first standby block the active one.
func (h *Handle) activateLocked(now time.Time) {
	old := h.active.Load()
	h.retired += old.Count // only called once old is used up
	nb := &block{Block: h.standby[0]}
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

// needLocked reports whether another block is wanted: a standby block is
// always kept, and enough values to last the buffer. Callers waiting in Next
// are not counted: a block on standby is theirs as soon as they run, and a
// refill that kept asking until they did would reserve block after block
// from a fast store.
func (h *Handle) needLocked() bool {
	return h.standbyN == 0 || h.depthLocked() <= h.thresh
}

// rateLocked is the consumption rate, values per second, over the window up
// to now.
func (h *Handle) rateLocked(now time.Time) float64 {
	if h.nsamples == 0 {
		return 0
	}
	oldest := h.samples[0]
	if h.nsamples == len(h.samples) {
		oldest = h.samples[h.ringNext]
	}
	// Over at least one Sample period: a burst drawn in a few microseconds
	// says nothing of the rate, and dividing by its own duration would size
	// the next blocks for millions of values a second.
	elapsed := max(now.Sub(oldest.at), h.c.opts.Sample).Seconds()
	return float64(h.servedLocked()-oldest.served) / elapsed
}

// addSampleLocked records s in the ring, overwriting the oldest sample once
// the ring is full.
func (h *Handle) addSampleLocked(s sample) {
	h.samples[h.ringNext] = s
	h.ringNext = (h.ringNext + 1) % len(h.samples)
	h.nsamples = min(h.nsamples+1, len(h.samples))
}

// blockSizeLocked is the size to ask the store for: one Sample period of
// consumption at the current rate, clamped to [MinBlock, MaxBlock].
func (h *Handle) blockSizeLocked(now time.Time) int64 {
	o := &h.c.opts
	n := int64(h.rateLocked(now) * o.Sample.Seconds())
	return min(max(n, o.MinBlock), o.MaxBlock)
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

		ctx, cancel := context.WithTimeout(h.c.ctx, h.c.opts.RefillTimeout)
		b, err := h.c.store.Reserve(ctx, h.name, n)
		cancel()

		h.mu.Lock()
		h.outcomes++
		if err == nil && b.Count <= 0 {
			err = fmt.Errorf("seqcache: store returned an empty block for %q", h.name)
		}
		h.lastErr = err
		if err != nil {
			h.storeErrors++
		} else {
			h.reservations++
			h.reserved += b.Count
			if gen == h.gen {
				h.standby = append(h.standby, b)
				h.standbyN += b.Count
				h.setTriggerLocked(h.active.Load())
			} else {
				h.wasted += b.Count // reserved before an Invalidate
			}
		}
		close(h.notify)
		h.notify = make(chan struct{})
		wake := h.notify // closed by the next outcome, Change or Close
		if err != nil && !transient(err) {
			// A definitive answer (exhausted, dropped): stop until a caller
			// asks again, and keep the hot path from asking per value.
			h.active.Load().trigger.Store(h.active.Load().Count)
			h.refilling.Store(false)
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()

		if err == nil {
			backoff = minBackoff
			continue
		}
		wait := backoff/2 + rand.N(backoff/2+1)
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

// tick records a rate sample and adjusts the threshold.
func (h *Handle) tick(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.first.IsZero() {
		return
	}
	o := &h.c.opts
	h.addSampleLocked(sample{at: now, served: h.servedLocked()})
	h.rate = h.rateLocked(now)
	h.thresh = max(int64(h.rate*o.Buffer.Seconds()), o.MinThreshold)
	b := h.active.Load()
	h.setTriggerLocked(b)
	if h.needLocked() && h.lastErr == nil {
		h.startRefillLocked()
	}
}

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
	defer h.mu.Unlock()
	h.paused--
	h.invalidateLocked() // a refill that was in flight when ctx ended
	if h.waiters > 0 {
		h.startRefillLocked()
	}
}

// invalidate drops every cached value of the handle.
func (h *Handle) invalidate() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.invalidateLocked()
}

func (h *Handle) invalidateLocked() {
	h.gen++
	h.wasted += h.claimActiveLocked().Count + h.standbyN
	h.standby, h.standbyN = nil, 0
	h.lastErr = nil
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
	if err != nil {
		return fmt.Errorf("seqcache: releasing unused values of %q: %w", h.name, err)
	}
	return nil
}

var errReleaseRefused = errors.New("release refused")

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
	}
}
