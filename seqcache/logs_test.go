package seqcache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// recorder is a slog.Handler that keeps the records it is given.
type recorder struct {
	mu      sync.Mutex // protects records
	records []slog.Record
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec.Clone())
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

// logLine is a record as the tests compare it.
type logLine struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (r *recorder) lines() []logLine {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []logLine
	for _, rec := range r.records {
		l := logLine{level: rec.Level, msg: rec.Message, attrs: map[string]string{}}
		rec.Attrs(func(a slog.Attr) bool {
			l.attrs[a.Key] = a.Value.Resolve().String()
			return true
		})
		out = append(out, l)
	}
	return out
}

func (l logLine) String() string { return fmt.Sprintf("%v %q %v", l.level, l.msg, l.attrs) }

// A store outage logs one WARN when refills start failing (not one per
// retry), one ERROR when a caller first goes without a value (not one per
// caller), and one INFO when a block arrives again, with the counts of the
// outage; every line names the sequence and the store, and the failures
// name the error.
func TestLogsOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.latency = 5 * time.Millisecond
		store.create("s", sequence.DefaultSpec())
		rec := &recorder{}
		c := New(store, func(o *Options) {
			o.Logger = slog.New(rec)
			o.StoreName = "fake://store"
			o.MinBlock, o.MaxBlock = 100, 100
			o.MaxWait = 3 * time.Second // longer than the longest retry backoff
		})
		defer c.Close()
		h := c.Handle("s")
		ctx := context.Background()
		if _, err := h.Next(ctx); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the refill after the first block
		if got := rec.lines(); len(got) != 0 {
			t.Fatalf("logs of a healthy store: %v", got)
		}

		store.setDown(true)
		var unserved int
		for unserved < 3 {
			if _, err := h.Next(ctx); err != nil {
				if !errors.Is(err, ErrUnavailable) {
					t.Fatalf("Next: %v, want ErrUnavailable", err)
				}
				unserved++
			}
		}
		if st := h.Stats(); st.StoreErrors < 3 {
			t.Fatalf("StoreErrors = %d: the test wants refills retried several times", st.StoreErrors)
		}
		store.setDown(false)
		if _, err := h.Next(ctx); err != nil {
			t.Fatalf("after the store came back: %v", err)
		}
		synctest.Wait()

		got := rec.lines()
		if len(got) != 3 {
			t.Fatalf("got %d log lines, want 3 (WARN, ERROR, INFO):\n%v", len(got), got)
		}
		for _, l := range got {
			if l.attrs["seqshim.sequence"] != "s" || l.attrs["seqshim.store"] != "fake://store" {
				t.Errorf("line does not name the sequence and the store: %v", l)
			}
		}
		if w := got[0]; w.level != slog.LevelWarn || !strings.Contains(w.attrs["error"], errDown.Error()) || w.attrs["retrying"] != "true" {
			t.Errorf("first line = %v, want a WARN naming the store's error, retrying", w)
		}
		if e := got[1]; e.level != slog.LevelError || !strings.Contains(e.attrs["error"], ErrUnavailable.Error()) ||
			!strings.Contains(e.attrs["error"], errDown.Error()) || e.attrs["waited"] != "3s" {
			t.Errorf("second line = %v, want an ERROR naming ErrUnavailable and the store's error, waited 3s", e)
		}
		st := h.Stats()
		if i := got[2]; i.level != slog.LevelInfo || i.attrs["unserved_calls"] != "3" ||
			i.attrs["store_errors"] != fmt.Sprint(st.StoreErrors) {
			t.Errorf("third line = %v, want an INFO with 3 unserved calls and %d store errors", i, st.StoreErrors)
		}

		// A second outage logs again.
		store.setDown(true)
		for {
			if _, err := h.Next(ctx); err != nil {
				break
			}
		}
		store.setDown(false)
		if _, err := h.Next(ctx); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := rec.lines(); len(got) != 6 {
			t.Fatalf("after a second outage: %d lines, want 6:\n%v", len(got), got)
		}
	})
}

// Definitive answers of the store (the sequence does not exist, reached
// its limit), a caller's error of that kind and Close log nothing: the
// caller gets PostgreSQL's error, as from PostgreSQL.
func TestLogsQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.create("small", mustSpec(t, sequence.Clauses{MaxValue: sequence.Int64(3)}))
		rec := &recorder{}
		c := New(store, func(o *Options) { o.Logger = slog.New(rec) })
		ctx := context.Background()
		if _, err := c.Next(ctx, "nosuch"); !errors.Is(err, sequence.ErrNotFound) {
			t.Fatalf("Next of a missing sequence: %v", err)
		}
		var err error
		for err == nil {
			_, err = c.Next(ctx, "small")
		}
		if !errors.Is(err, sequence.ErrLimit) {
			t.Fatalf("Next past MAXVALUE: %v", err)
		}
		store.mu.Lock()
		store.latency = time.Hour // a refill in flight when Close cancels it
		store.mu.Unlock()
		store.create("slow", sequence.DefaultSpec())
		go c.Next(ctx, "slow")
		synctest.Wait()
		c.Close()
		synctest.Wait()
		if got := rec.lines(); len(got) != 0 {
			t.Errorf("logs: %v, want none", got)
		}
	})
}

func TestErrorType(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x: %w: %w", ErrUnavailable, context.DeadlineExceeded), "unavailable"},
		{fmt.Errorf("waiting: %w", context.DeadlineExceeded), "timeout"},
		{context.Canceled, "canceled"},
		{ErrClosed, "closed"},
		{sequence.Misconfigured(errors.New("no table")), "misconfigured"},
		{sequence.NotFoundError("s"), "not_found"},
		{sequence.LimitError("s", sequence.DefaultSpec()), "limit"},
		{&sequence.Error{Kind: sequence.ErrConflict, Code: sequence.CodeSerializationFailure}, "conflict"},
		{fmt.Errorf("dynamodb: %w", codedError("ThrottlingException")), "ThrottlingException"},
		{sequence.Throttled(fmt.Errorf("dynamodb: %w", codedError("ThrottlingException"))), "ThrottlingException"},
		{sequence.Throttled(errors.New("sqlite: database is locked (5) (SQLITE_BUSY)")), "throttled"},
		{&sequence.Error{Kind: sequence.ErrInvalid, Code: "22023"}, "22023"},
		{errDown, "_OTHER"},
	} {
		if got := errorType(tt.err); got != tt.want {
			t.Errorf("errorType(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// codedError is an error with an AWS-style code.
type codedError string

func (e codedError) Error() string     { return "api error " + string(e) }
func (e codedError) ErrorCode() string { return string(e) }

// limitedStore refuses reservations with the daily-limit error while
// limited is set.
type limitedStore struct {
	*fakeStore
	limited lockedFlag
}

type lockedFlag struct {
	mu sync.Mutex // protects v
	v  bool
}

func (b *lockedFlag) set(v bool) { b.mu.Lock(); b.v = v; b.mu.Unlock() }
func (b *lockedFlag) get() bool  { b.mu.Lock(); defer b.mu.Unlock(); return b.v }

func (s *limitedStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	if s.limited.get() {
		return sequence.Block{}, sequence.DailyLimitError(name, 100, sequence.DayOf(time.Now()))
	}
	return s.fakeStore.Reserve(ctx, name, n)
}

// The daily limit's refusals are answers, not failures, but an operator
// must see them: one WARN when they start (not one per caller), and the
// INFO of a recovery when blocks come again.
func TestLogsDailyLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &limitedStore{fakeStore: newFakeStore()}
		store.create("s", sequence.DefaultSpec())
		store.limited.set(true)
		rec := &recorder{}
		c := New(store, func(o *Options) { o.Logger = slog.New(rec) })
		defer c.Close()
		ctx := context.Background()
		for range 3 {
			if _, err := c.Next(ctx, "s"); !errors.Is(err, sequence.ErrDailyLimit) {
				t.Fatalf("Next at the daily limit: %v", err)
			}
		}
		store.limited.set(false)
		if _, err := c.Next(ctx, "s"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		// The refill that met the limit wakes its waiters before it logs,
		// so the refill after the limit lifted may log its INFO first:
		// the two lines, in either order.
		got := rec.lines()
		if len(got) == 2 && got[0].level == slog.LevelInfo {
			got[0], got[1] = got[1], got[0]
		}
		if len(got) != 2 || got[0].level != slog.LevelWarn || !strings.Contains(got[0].msg, "daily limit") ||
			!strings.Contains(got[0].attrs["error"], "daily limit of 100") || got[0].attrs["seqshim.sequence"] != "s" ||
			got[1].level != slog.LevelInfo || !strings.Contains(got[1].msg, "recovered") {
			t.Errorf("logs: %v, want one WARN naming the daily limit and one INFO", got)
		}
	})
}
