// Metrics: the cache's instruments on the OpenTelemetry metric API.
//
// The hot path records nothing. Values served, values reserved and what is
// cached are the counters the handles keep anyway (the served count is read
// from the blocks' cursors); a callback reads them, under each handle's
// lock, when the MeterProvider collects, so one collection sees one
// consistent state of each handle (reserved − served = remaining + wasted +
// released). The histograms and the error and loss counters are recorded
// where their events happen, all on slow paths: a store call, a caller's
// wait, values dropped or handed back. Nothing is recorded while a lock is
// held: the provider is the program's code.

package seqcache

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/seqshim/seqshim/sequence"
)

// meterName is the instrumentation scope of the cache's instruments.
const meterName = "github.com/seqshim/seqshim/seqcache"

// Attribute keys.
const (
	attrSequence  = "seqshim.sequence" // the sequence's canonical name, on every instrument
	attrErrorType = "error.type"       // why a store call or a wait failed
)

// instruments are a Cache's instruments; written once by New.
type instruments struct {
	served, reserved metric.Int64ObservableCounter // read by observe
	remaining        metric.Int64ObservableGauge   // read by observe
	runway           metric.Float64ObservableGauge // read by observe
	wasted, released metric.Int64Counter
	recovered        metric.Int64Counter
	storeErrors      metric.Int64Counter
	refillDuration   metric.Float64Histogram
	waitDuration     metric.Float64Histogram
	blockSize        metric.Int64Histogram
	reg              metric.Registration // of observe; nil if the provider refused it
}

// durationBuckets are the advised histogram boundaries, in seconds: from a
// fast store call (sub-millisecond) to the longest waits (Options.MaxWait).
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// blockBuckets are the advised boundaries of block sizes, in values.
var blockBuckets = []float64{10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000}

func newInstruments(c *Cache) instruments {
	m := c.opts.MeterProvider.Meter(meterName)
	var errs []error
	var ins instruments
	ins.served = made[metric.Int64ObservableCounter](&errs, noop.Int64ObservableCounter{})(m.Int64ObservableCounter("seqshim.values.served",
		metric.WithUnit("{value}"), metric.WithDescription("Values handed out by nextval.")))
	ins.reserved = made[metric.Int64ObservableCounter](&errs, noop.Int64ObservableCounter{})(m.Int64ObservableCounter("seqshim.values.reserved",
		metric.WithUnit("{value}"), metric.WithDescription("Values in the blocks received from the store.")))
	ins.remaining = made[metric.Int64ObservableGauge](&errs, noop.Int64ObservableGauge{})(m.Int64ObservableGauge("seqshim.cache.remaining",
		metric.WithUnit("{value}"), metric.WithDescription("Values cached in this process: left in the active block and the standby blocks.")))
	ins.runway = made[metric.Float64ObservableGauge](&errs, noop.Float64ObservableGauge{})(m.Float64ObservableGauge("seqshim.cache.runway",
		metric.WithUnit("s"), metric.WithDescription("Seconds the cached values last at the consumption rate of the last minute; absent while nothing is consumed.")))
	ins.wasted = made[metric.Int64Counter](&errs, noop.Int64Counter{})(m.Int64Counter("seqshim.values.wasted",
		metric.WithUnit("{value}"), metric.WithDescription("Reserved values given up unused: dropped by a change to the sequence, or not handed back to the store on close.")))
	ins.released = made[metric.Int64Counter](&errs, noop.Int64Counter{})(m.Int64Counter("seqshim.values.released",
		metric.WithUnit("{value}"), metric.WithDescription("Unused values handed back to the store (on close and before a change to the sequence).")))
	ins.recovered = made[metric.Int64Counter](&errs, noop.Int64Counter{})(m.Int64Counter("seqshim.values.recovered",
		metric.WithUnit("{value}"), metric.WithDescription("Values in blocks whose reservation's answer was lost (a timeout, a reset), adopted on proof of the token written with them instead of becoming a gap; counted in seqshim.values.reserved too.")))
	ins.storeErrors = made[metric.Int64Counter](&errs, noop.Int64Counter{})(m.Int64Counter("seqshim.store.errors",
		metric.WithUnit("{error}"), metric.WithDescription("Failed store calls of refills, by error.type.")))
	ins.refillDuration = made[metric.Float64Histogram](&errs, noop.Float64Histogram{})(m.Float64Histogram("seqshim.refill.duration",
		metric.WithUnit("s"), metric.WithDescription("Duration of each store call of a refill; error.type is set when it failed."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)))
	ins.waitDuration = made[metric.Float64Histogram](&errs, noop.Float64Histogram{})(m.Float64Histogram("seqshim.wait.duration",
		metric.WithUnit("s"), metric.WithDescription("Time a nextval caller waited for a block because nothing was cached; error.type is set when it got no value."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)))
	ins.blockSize = made[metric.Int64Histogram](&errs, noop.Int64Histogram{})(m.Int64Histogram("seqshim.block.size",
		metric.WithUnit("{value}"), metric.WithDescription("Values in each block received from the store."),
		metric.WithExplicitBucketBoundaries(blockBuckets...)))
	reg, err := m.RegisterCallback(c.observe, ins.served, ins.reserved, ins.remaining, ins.runway)
	if err != nil {
		errs = append(errs, err)
	}
	ins.reg = reg
	if err := errors.Join(errs...); err != nil {
		otel.Handle(fmt.Errorf("seqcache: metrics: %w", err))
	}
	return ins
}

// made returns the instrument a Meter made, its error appended to errs, or
// fallback if it made none: a provider's error must not disable the cache.
func made[T any](errs *[]error, fallback T) func(T, error) T {
	return func(v T, err error) T {
		if err != nil {
			*errs = append(*errs, err)
		}
		if any(v) == nil {
			return fallback
		}
		return v
	}
}

// unregister stops the callback: the observable instruments report while
// the Cache is open.
func (ins *instruments) unregister() {
	if ins.reg == nil {
		return
	}
	if err := ins.reg.Unregister(); err != nil {
		otel.Handle(fmt.Errorf("seqcache: metrics: %w", err))
	}
}

// observe reports every handle's counters to the observable instruments.
func (c *Cache) observe(_ context.Context, o metric.Observer) error {
	now := time.Now()
	for _, h := range *c.handles.Load() {
		r := h.reading(now)
		o.ObserveInt64(c.ins.served, r.served, h.attrs)
		o.ObserveInt64(c.ins.reserved, r.reserved, h.attrs)
		o.ObserveInt64(c.ins.remaining, r.remaining, h.attrs)
		if r.rate > 0 {
			o.ObserveFloat64(c.ins.runway, float64(r.remaining)/r.rate, h.attrs)
		}
	}
	return nil
}

// reading is what observe reports of one handle.
type reading struct {
	served, reserved, remaining int64
	rate                        float64 // values per second over the window
}

// reading takes the handle's counters in one critical section, the active
// block's cursor loaded once, so that reserved − served is remaining plus
// what was wasted and released.
func (h *Handle) reading(now time.Time) reading {
	h.mu.Lock()
	defer h.mu.Unlock()
	b := h.active.Load()
	used := min(b.next.Load(), b.Count)
	return reading{
		served:    h.retired + used,
		reserved:  h.reserved,
		remaining: b.Count - used + h.standbyN,
		rate:      h.rateLocked(now),
	}
}

// startCounters makes the handle's loss counters exist at 0, so that a
// backend's increase() or rate() sees their first increment.
func (h *Handle) startCounters() {
	ctx := context.Background()
	h.c.ins.wasted.Add(ctx, 0, h.attrs)
	h.c.ins.released.Add(ctx, 0, h.attrs)
	if h.c.rec != nil {
		h.c.ins.recovered.Add(ctx, 0, h.attrs)
	}
}

// errorAttrs are the handle's attributes plus the error.type of err.
func (h *Handle) errorAttrs(err error) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(h.seqAttr, attribute.String(attrErrorType, errorType(err))))
}

// recordStoreCall records one store call of a refill: its duration, and the
// block's size or the error. A failure caused by Close is not recorded.
func (h *Handle) recordStoreCall(took time.Duration, n int64, err error) {
	ctx := context.Background()
	ins := &h.c.ins
	if err != nil {
		opt := h.errorAttrs(err)
		ins.refillDuration.Record(ctx, took.Seconds(), opt)
		ins.storeErrors.Add(ctx, 1, opt)
		return
	}
	ins.refillDuration.Record(ctx, took.Seconds(), h.attrs)
	ins.blockSize.Record(ctx, n, h.attrs)
}

// recordRecovery records a store call whose answer was lost (an error, by
// error.type) and the n values of its block, recovered by proof.
func (h *Handle) recordRecovery(lost error, n int64) {
	ctx := context.Background()
	h.c.ins.storeErrors.Add(ctx, 1, h.errorAttrs(lost))
	h.c.ins.recovered.Add(ctx, n, h.attrs)
}

// recordWait records a caller's wait for a block, under the caller's
// context (an exemplar then points at its trace).
func (h *Handle) recordWait(ctx context.Context, waited time.Duration, err error) {
	opt := h.attrs
	if err != nil {
		opt = h.errorAttrs(err)
	}
	h.c.ins.waitDuration.Record(ctx, waited.Seconds(), opt)
}

// recordLoss adds values given up and handed back.
func (h *Handle) recordLoss(wasted, released int64) {
	ctx := context.Background()
	if wasted > 0 {
		h.c.ins.wasted.Add(ctx, wasted, h.attrs)
	}
	if released > 0 {
		h.c.ins.released.Add(ctx, released, h.attrs)
	}
}

// errorType is the error.type of a failed store call or wait: a short,
// low-cardinality class. Store errors that carry a code of their own (an
// AWS error code such as ThrottlingException, a SQLSTATE) report it.
func errorType(err error) string {
	var (
		coded interface{ ErrorCode() string } // smithy.APIError: DynamoDB's error codes
		state interface{ SQLState() string }  // *pgconn.PgError, *sequence.Error
		ne    net.Error
	)
	switch {
	case errors.Is(err, ErrClosed):
		return "closed"
	case errors.Is(err, ErrUnavailable):
		return "unavailable"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, sequence.ErrMisconfigured):
		return "misconfigured"
	case errors.Is(err, sequence.ErrNotFound):
		return "not_found"
	case errors.Is(err, sequence.ErrLimit):
		return "limit"
	case errors.Is(err, sequence.ErrConflict):
		return "conflict"
	case errors.As(err, &coded) && coded.ErrorCode() != "":
		return coded.ErrorCode()
	case errors.As(err, &state) && state.SQLState() != "":
		return state.SQLState()
	case errors.Is(err, sequence.ErrThrottled):
		return "throttled"
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.As(err, &ne):
		return "network"
	}
	return "_OTHER"
}
