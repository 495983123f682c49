// Shadow mode: every statement goes to the database as it is, and the
// database's own sequences answer; the engine counts the nextval calls of
// each statement that succeeded and draws as many values from the store in
// the background, from shadow sequences of their own.

package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// ShadowPrefix starts the relation name of every sequence shadow mode draws
// from, so that a shadow never touches the counters a service in ModeServe
// uses, even on the same store.
const ShadowPrefix = "shadow_"

// ShadowName returns the store sequence shadow mode draws from for the
// sequence name (canonical): orders_seq becomes shadow_orders_seq,
// app.invoice_no app.shadow_invoice_no.
func ShadowName(name string) string {
	schema, rel := sequence.SplitName(name)
	return sequence.FormatName(schema, ShadowPrefix+rel)
}

// shadowQueue is how many statements' draws wait for the background
// drawer; beyond it, draws are dropped (counted in ShadowStats.Dropped)
// rather than slow down the application.
const shadowQueue = 4096

// maxShadowRows bounds the values one statement is counted for
// (SELECT nextval('s') FROM generate_series(1, n) with a huge n).
const maxShadowRows = 10_000_000

// Shadow is the background side of shadow mode for one store in this
// process: it draws from the store's shadow sequences as many values as the
// database handed out, and keeps the figures. Every Connector of the
// process in shadow mode with the same store shares one.
type Shadow struct {
	// Written once by newShadow; read-only after.
	store  sequence.Store
	timed  *timedStore
	cache  *seqcache.Cache
	queue  chan shadowDraw
	ctx    context.Context // cancelled by stop
	cancel context.CancelFunc
	done   chan struct{} // closed when the drawer has stopped

	calls, drawn, dropped, failed, created, uncounted atomic.Int64
}

// shadowDraw is n values of a sequence to draw, a warm-up, or a flush
// marker.
type shadowDraw struct {
	name  string // canonical name in the database
	n     int64
	warm  bool          // reserve a first block (seqshim.warm), draw nothing
	flush chan struct{} // non-nil: close it when every earlier draw is done
}

// ShadowStats is what shadow mode measured in this process for one store.
type ShadowStats struct {
	// Calls is the number of values the database handed out for the
	// nextval calls seqshim counted in statements that succeeded.
	Calls int64
	// Drawn is the number of values drawn from the store for them, Failed
	// the number that could not be (the store failed, or the shadow
	// sequence was at its limit), Dropped the number never tried because
	// the background drawer was too far behind.
	Drawn, Failed, Dropped int64
	// Created counts the shadow sequences created in the store on first use.
	Created int64
	// Uncounted is the number of statements with sequence calls seqshim
	// could not count: calls the database evaluates once per row (INSERT …
	// SELECT nextval(…) FROM t), or a sequence name in a bind argument
	// that is not a valid name.
	Uncounted int64
	// StoreCalls is the number of reservations asked of the store,
	// StoreErrors how many of them failed, StoreLatency their durations.
	StoreCalls, StoreErrors int64
	StoreLatency            Latency
	// Sequences are the cache's counters of each shadow sequence (values
	// served, blocks and values reserved, waits, store errors, rate).
	Sequences []seqcache.Stats
}

// Latency summarises durations.
type Latency struct {
	Mean, Max time.Duration
}

// timedStore measures the reservations of a store.
type timedStore struct {
	sequence.Store

	mu     sync.Mutex // guards the fields below
	calls  int64
	errors int64
	total  time.Duration
	max    time.Duration
}

func (t *timedStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	start := time.Now()
	b, err := t.Store.Reserve(ctx, name, n)
	d := time.Since(start)
	t.mu.Lock()
	t.calls++
	t.total += d
	t.max = max(t.max, d)
	if err != nil {
		t.errors++
	}
	t.mu.Unlock()
	return b, err
}

// Release hands unused values back, if the store can.
func (t *timedStore) Release(ctx context.Context, name string, unused sequence.Block) (bool, error) {
	if r, ok := t.Store.(sequence.Releaser); ok {
		return r.Release(ctx, name, unused)
	}
	return false, nil
}

// Gen forwards the cache's revalidation reads (sequence.Validator) to the
// store, untimed: they are not reservations.
func (t *timedStore) Gen(ctx context.Context, name string) (uint64, error) {
	return sequence.ReadGen(ctx, t.Store, name)
}

// newShadow starts the drawer of a store, with a cache made with opts (the
// same metrics and logs as serve mode's, under the shadow sequences' names),
// and queues the first block of each sequence of warm.
func newShadow(st sequence.Store, opts func(*seqcache.Options), warm []string) *Shadow {
	s := &Shadow{store: st, timed: &timedStore{Store: st}, queue: make(chan shadowDraw, shadowQueue), done: make(chan struct{})}
	s.cache = seqcache.New(s.timed, opts)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	go s.run()
	// Warm in shadow mode: the shadow sequences are drawn from (and
	// created) in the background; nothing fails the connection.
	for _, n := range warm {
		select {
		case s.queue <- shadowDraw{name: n, warm: true}:
		default:
		}
	}
	return s
}

// Stats returns the figures so far.
func (s *Shadow) Stats() ShadowStats {
	st := ShadowStats{
		Calls: s.calls.Load(), Drawn: s.drawn.Load(), Failed: s.failed.Load(), Dropped: s.dropped.Load(),
		Created: s.created.Load(), Uncounted: s.uncounted.Load(), Sequences: s.cache.AllStats(),
	}
	s.timed.mu.Lock()
	st.StoreCalls, st.StoreErrors = s.timed.calls, s.timed.errors
	if s.timed.calls > 0 {
		st.StoreLatency = Latency{Mean: s.timed.total / time.Duration(s.timed.calls), Max: s.timed.max}
	}
	s.timed.mu.Unlock()
	return st
}

// Flush waits until every draw counted before it has been made (or has
// failed), or ctx ends.
func (s *Shadow) Flush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case s.queue <- shadowDraw{flush: done}:
	case <-s.done:
		return errors.New("seqshim: shadow closed")
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-s.done:
		return errors.New("seqshim: shadow closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// count queues n values of name to draw; it never blocks.
func (s *Shadow) count(name string, n int64) {
	s.calls.Add(n)
	select {
	case s.queue <- shadowDraw{name: name, n: n}:
	default:
		s.dropped.Add(n)
	}
}

// run is the background drawer.
func (s *Shadow) run() {
	defer close(s.done)
	for {
		select {
		case <-s.ctx.Done():
			return
		case d := <-s.queue:
			if d.flush != nil {
				close(d.flush)
				continue
			}
			s.draw(d.name, d.n, d.warm)
		}
	}
}

// draw takes n values of the shadow sequence of name from the cache (or,
// with warm, reserves its first block), creating the shadow sequence with
// the default spec (CREATE SEQUENCE with no options) if the store does not
// have it.
func (s *Shadow) draw(name string, n int64, warm bool) {
	shadow := ShadowName(name)
	h := s.cache.Handle(shadow)
	next := func() error {
		if warm {
			return h.Warm(s.ctx)
		}
		_, err := h.Next(s.ctx)
		return err
	}
	if warm {
		n = 1
	}
	tried := false
	for i := int64(0); i < n; i++ {
		err := next()
		if errors.Is(err, sequence.ErrNotFound) && !tried {
			tried = true
			spec := sequence.DefaultSpec()
			cerr := s.store.Create(s.ctx, shadow, spec, spec.Initial())
			if cerr == nil {
				s.created.Add(1)
			}
			if cerr == nil || errors.Is(cerr, sequence.ErrExists) {
				s.cache.Invalidate(shadow)
				err = next()
			}
		}
		switch {
		case err != nil && warm:
			return // counted by the cache's store errors
		case err != nil:
			s.failed.Add(n - i)
			return
		case !warm:
			s.drawn.Add(1)
		}
	}
}

// stop ends the drawer and waits for it; the cache is closed by the owner.
func (s *Shadow) stop() {
	s.cancel()
	<-s.done
}

// shadowCount notes the draws for the nextval calls of a statement about
// to run, with its arguments: [Session.shadowCounted] queues them once it
// succeeded.
func (s *Session[A]) shadowCount(pl *rewrite.Plan, args A) {
	s.shadow = s.shadow[:0]
	if pl == nil {
		return
	}
	for i := range pl.Statements {
		st := &pl.Statements[i]
		switch st.Kind {
		case rewrite.Local, rewrite.Rewrite:
		case rewrite.Reject:
			// A call the database evaluates once per row: how many rows,
			// only the database knows.
			if errors.Is(st.Err, rewrite.ErrUnsupported) {
				s.shadow = append(s.shadow, shadowDraw{})
			}
			continue
		default:
			continue
		}
		rows := int64(1)
		if st.Series != nil {
			lo, null1, err1 := operand(args, st.Series.Start, false)
			hi, null2, err2 := operand(args, st.Series.End, false)
			if err1 != nil || err2 != nil {
				s.shadow = append(s.shadow, shadowDraw{})
				continue
			}
			if null1 || null2 {
				continue // generate_series(NULL, …) has no rows
			}
			rows = min(st.Series.Rows(lo, hi), maxShadowRows)
		}
		for _, call := range st.Calls {
			if call.Func != rewrite.Nextval || call.Null {
				continue
			}
			name := call.Name
			if call.NameArg >= 0 {
				text, null, err := argText(args, call.NameArg)
				if null {
					continue // nextval(NULL) is NULL: nothing drawn
				}
				if err == nil {
					name, err = sequence.ParseName(text)
				}
				if err != nil {
					s.shadow = append(s.shadow, shadowDraw{})
					continue
				}
			}
			if rows > 0 {
				s.shadow = append(s.shadow, shadowDraw{name: name, n: rows})
			}
		}
	}
}

// shadowCounted queues the draws [Session.shadowCount] noted, for a
// statement that succeeded; a draw without a name is a statement whose
// calls could not be counted.
func (s *Session[A]) shadowCounted() {
	sh := s.eng.shadow
	for _, d := range s.shadow {
		if d.name == "" {
			sh.uncounted.Add(1)
			continue
		}
		sh.count(d.name, d.n)
	}
	s.shadow = s.shadow[:0]
}

// Shadow returns the engine's shadow, nil in serve mode.
func (e *Engine) Shadow() *Shadow { return e.shadow }
