// Logs: a handle's trouble (its store failing, callers going without a
// value) and its end, logged once per change of state, never per retry or
// per caller.

package seqcache

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// Log attribute keys.
const (
	logSequence = "seqshim.sequence"
	logStore    = "seqshim.store"
)

// trouble is a handle's state of distress; the zero value is all well.
type trouble struct {
	since       time.Time // when the store first failed or a caller first went without a value
	failing     bool      // a store call failed since the last block arrived (logged)
	limited     bool      // the store refused a block for the sequence's daily limit (logged)
	starving    bool      // a caller went without a value since then (logged)
	storeErrors int64     // failed store calls since
	unserved    int64     // callers that went without a value since
}

// note is what a change of trouble logs, once the handle's lock is released.
type note struct {
	kind  noteKind
	err   error   // noteFailing, noteRanOut
	ended trouble // noteRecovered: the trouble a block ended
}

type noteKind uint8

const (
	noteNone       noteKind = iota
	noteFailing             // WARN: the store failed, after working
	noteRanOut              // ERROR: a caller got no value, after callers did
	noteRecovered           // INFO: a block arrived after either
	noteDailyLimit          // WARN: the store refused a block for the daily limit
)

// storeOutcomeLocked updates the trouble after a store call: a block ends
// it; a failure starts it, logged once. A definitive answer about the
// sequence (it does not exist, it reached its limit) is the store working,
// and a failure caused by Close is not the store's: neither changes it —
// but for the daily limit, whose refusals an operator must see: logged
// once, until a block arrives (the next day, or a raised limit).
func (h *Handle) storeOutcomeLocked(now time.Time, err error, closing bool) note {
	switch {
	case err == nil:
		if h.trouble.since.IsZero() {
			return note{}
		}
		t := h.trouble
		h.trouble = trouble{}
		return note{kind: noteRecovered, ended: t}
	case closing:
		return note{}
	case errors.Is(err, sequence.ErrDailyLimit):
		if h.trouble.limited {
			return note{}
		}
		h.trouble.limited = true
		if h.trouble.since.IsZero() {
			h.trouble.since = now
		}
		return note{kind: noteDailyLimit, err: err}
	case isAnswer(err):
		return note{}
	}
	h.trouble.storeErrors++
	if h.trouble.since.IsZero() {
		h.trouble.since = now
	}
	if h.trouble.failing {
		return note{}
	}
	h.trouble.failing = true
	return note{kind: noteFailing, err: err}
}

// unservedLocked updates the trouble after a caller waited for a block and
// got none; the first such caller is logged.
func (h *Handle) unservedLocked(now time.Time, err error) note {
	h.trouble.unserved++
	if h.trouble.since.IsZero() {
		h.trouble.since = now
	}
	if h.trouble.starving {
		return note{}
	}
	h.trouble.starving = true
	return note{kind: noteRanOut, err: err}
}

// ranOut reports whether err, returned by Next after a wait, means that the
// cache had no value in time, as opposed to a definitive answer of the
// store or a closed cache.
func ranOut(err error) bool {
	if errors.Is(err, ErrClosed) {
		return false
	}
	return errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// isAnswer reports whether a store error is a definitive answer about the
// sequence (PostgreSQL's own errors: 42P01, 2200H, …) rather than a failure
// of the store.
func isAnswer(err error) bool {
	var e *sequence.Error
	return errors.As(err, &e) && !errors.Is(err, sequence.ErrConflict)
}

func (c *Cache) logger() *slog.Logger {
	if c.opts.Logger != nil {
		return c.opts.Logger
	}
	return slog.Default()
}

// log writes n; waited is the caller's wait for an unserved caller.
func (h *Handle) log(ctx context.Context, n note, waited time.Duration) {
	if n.kind == noteNone {
		return
	}
	l := h.c.logger()
	seq, store := slog.String(logSequence, h.name), slog.String(logStore, h.c.opts.StoreName)
	switch n.kind {
	case noteRecovered:
		l.LogAttrs(ctx, slog.LevelInfo, "seqshim: refills recovered", seq, store,
			slog.Duration("after", time.Since(n.ended.since)),
			slog.Int64("store_errors", n.ended.storeErrors),
			slog.Int64("unserved_calls", n.ended.unserved))
	case noteFailing:
		l.LogAttrs(ctx, slog.LevelWarn, "seqshim: refill failed", seq, store,
			slog.Any("error", n.err), slog.Bool("retrying", transient(n.err)))
	case noteRanOut:
		l.LogAttrs(ctx, slog.LevelError, "seqshim: cache ran out, a caller got no value", seq, store,
			slog.Any("error", n.err), slog.Duration("waited", waited))
	case noteDailyLimit:
		l.LogAttrs(ctx, slog.LevelWarn, "seqshim: daily limit reached, the store refuses values until it resets", seq, store,
			slog.Any("error", n.err))
	}
}
