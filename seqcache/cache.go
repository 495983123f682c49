// The Cache: options, errors, stats, and the registry of handles by name
// with its entry points (Next, Handle, Invalidate, Change, Close).

package seqcache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/seqshim/seqshim/sequence"
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
	// Sample is the period of rate samples, and the shortest time one block
	// asked of the store should last at the current rate (the span; it
	// grows while the store throttles: see Sizing in the package
	// documentation). Default 1s.
	Sample time.Duration
	// MinBlock and MaxBlock clamp the size of a block asked of the store.
	// The first two blocks, before a rate is known, are MinBlock values;
	// later ones follow the rate measured (see Sizing in the package
	// documentation). Defaults 50 and 1,000,000.
	MinBlock, MaxBlock int64
	// MaxWait bounds how long Next waits for a refill when nothing is cached
	// (the caller's context may end the wait sooner). Default 5s.
	MaxWait time.Duration
	// RefillTimeout bounds each background store call. Default 3s.
	RefillTimeout time.Duration
	// Revalidate bounds how long values of a sequence that another process
	// dropped, dropped and created again, or renamed are still handed out:
	// a handle holding values that no store call told of for Revalidate
	// reads the sequence's incarnation (one read), and drops them if it
	// changed (see Revalidation in the package documentation). Default
	// DefaultRevalidate (2s); a negative value turns the checks off.
	Revalidate time.Duration
	// NoRecovery turns off the recovery of lost answers: with a store that
	// is a [sequence.Recoverer], a reservation whose answer was lost (a
	// timeout, a reset) is otherwise read back by its token and its block
	// adopted on proof, instead of becoming a gap (see Recovery in the
	// package documentation). For comparisons and for a store whose reads
	// cost more than the values they save.
	NoRecovery bool

	// MeterProvider receives the cache's metrics (see Metrics in the
	// package documentation). Default: the global provider,
	// otel.GetMeterProvider(), which forwards to the provider the program
	// installs with otel.SetMeterProvider, even later.
	MeterProvider metric.MeterProvider
	// Logger receives the cache's logs (see Logs in the package
	// documentation). Default: slog.Default() as it is when a message is
	// logged.
	Logger *slog.Logger
	// StoreName names the store in logs, e.g. a store URL without its
	// password. Default: the store's Go type.
	StoreName string
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
		o.MinBlock = 50
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
	if o.Revalidate == 0 {
		o.Revalidate = DefaultRevalidate
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
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
	Wasted       int64   // unused values dropped (Invalidate; Change and Close without release)
	Throttled    int64   // store calls refused for want of capacity ([sequence.ErrThrottled]), counted in StoreErrors too
	// Recoveries and Recovered are the blocks, and the values in them, whose
	// reservation's answer was lost and which were adopted on proof
	// ([sequence.Recoverer]); counted in Reservations and Reserved too, and
	// their lost answers in StoreErrors.
	Recoveries, Recovered int64
	// Span is the time a block asked of the store covers at the measured
	// rate: Options.Sample, longer while the store throttles.
	Span time.Duration

	// Revalidation (see the package documentation).
	Checks        int64 // reads of the sequence's incarnation in the background
	CheckErrors   int64 // of those, the ones the store did not answer (the values stayed)
	Revalidations int64 // times the cached values were dropped because the sequence was dropped, recreated or renamed elsewhere
}

// Cache hands out sequence values from blocks reserved in a store. It is safe
// for concurrent use; see the package documentation for how it refills.
type Cache struct {
	// Written once by New, before the Cache is returned; read-only after.
	store  sequence.Reserver
	rec    sequence.Recoverer // store, if it is one and recovery is on; else nil
	opts   Options
	ctx    context.Context // cancelled by Close: ends store calls in flight
	cancel context.CancelFunc

	wg sync.WaitGroup // refills and the sampler; Close waits for them

	mu sync.Mutex // protects closed; serializes the replacement of handles
	// handles maps names to handles. Copy on write: a new map is stored
	// under mu and never modified after, so lookups load it without a lock.
	handles atomic.Pointer[map[string]*Handle]
	closed  bool

	renames sync.Map // incarnation{old name, its incarnation} → incarnation{new name, its}: see Cache.Renamed

	// checkEvery is the revalidation loop's longest sleep: Options.Revalidate,
	// or the shortest interval a sequence's policy asked for since.
	checkEvery atomic.Int64

	ins instruments // written once by New; see metrics.go
}

// New returns a Cache drawing blocks from store. Call Close to stop its
// background work and hand unused values back.
func New(store sequence.Reserver, optFns ...func(*Options)) *Cache {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	o.setDefaults()
	if o.StoreName == "" {
		o.StoreName = fmt.Sprintf("%T", store)
	}
	c := &Cache{store: store, opts: o}
	if r, ok := store.(sequence.Recoverer); ok && !o.NoRecovery {
		c.rec = r
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	m := map[string]*Handle{}
	c.handles.Store(&m)
	c.ins = newInstruments(c)
	c.wg.Add(1)
	go c.sample()
	if o.Revalidate > 0 && canRevalidate(store) {
		c.checkEvery.Store(int64(o.Revalidate))
		c.wg.Add(1)
		go c.revalidate()
	}
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
	old := *c.handles.Load()
	if h := old[name]; h != nil {
		c.mu.Unlock()
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
	c.mu.Unlock()
	h.startCounters() // outside the lock: it calls the MeterProvider
	return h
}

// Invalidate forgets what the cache holds for name: its cached values,
// dropped without being handed back (counted in [Stats].Wasted), a block
// still in flight from the store (dropped when it arrives), and the last
// store error (while it stands, the sampler starts no refill). The next value
// comes from a new reservation. Invalidate neither pauses refills nor waits
// for the store.
//
// Call it after this process made name exist in the store (CREATE SEQUENCE,
// the new name of a RENAME): the cache may still hold values of an earlier
// sequence of that name, dropped by another process, and the "does not
// exist" its refills got since. To change a sequence that exists (setval,
// ALTER, DROP, RENAME), use [Cache.Change] instead: Invalidate called after
// such a change lets Next hand out values of the old state until it runs,
// and loses the unused values Change hands back.
func (c *Cache) Invalidate(name string) {
	if h := (*c.handles.Load())[name]; h != nil {
		h.invalidate()
	}
}

// Change runs fn, which changes the existing sequence name in the store
// (setval, ALTER, DROP, RENAME), so that no value of the old state is handed
// out after Change returns: it stops refills of name, waits for the store
// call in flight, drops the cached values (handing them back first to a
// [sequence.Releaser] store, so fn finds the position PostgreSQL would have:
// the last value served), runs fn, and lets refills resume. Next calls in
// the meantime wait for the first block reserved after fn. The cached values
// are dropped even if fn fails or does not run. The error is fn's, or ctx's
// if the wait for the call in flight is cut short (then fn does not run).
//
// A name that a change makes exist (RENAME's new name, or CREATE, which
// needs no Change) is the business of [Cache.Invalidate].
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
	c.ins.unregister()
	return errors.Join(errs...)
}
