package engine

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// panicStore is a memory store whose List panics, as a bug would: the
// engine lists the store's column defaults while it reads an INSERT.
type panicStore struct{ *memstore.Store }

func (panicStore) List(context.Context) ([]sequence.Info, error) {
	panic("index out of range [6] with length 6")
}

// TestGuard: a panic while the session reads or runs a statement is an
// error naming the statement (XX000), logged with its stack; the database's
// transaction is aborted as for any failed statement, and the session goes
// on.
func TestGuard(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	spec, pos, _ := sequence.Clauses{}.Create()
	if err := st.Create(ctx, "s", spec, pos); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cfg := Config{Store: panicStore{st}}
	cfg.Cache.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	e, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	db := &fakeDB{}
	s, err := NewSession[AnyArgs](ctx, e, db)
	if err != nil {
		t.Fatal(err)
	}
	const q = "INSERT INTO orders (note) VALUES ('a panic')"
	for _, status := range []byte{'I', 'T'} {
		db.status, db.sent = status, nil
		_, err := s.Run(ctx, q, nil, Request{})
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != codeInternalError || !strings.Contains(pe.Message, q) || !strings.Contains(pe.Message, "index out of range") {
			t.Fatalf("status %c: %v, want XX000 naming the statement and the panic", status, err)
		}
		if raised := len(db.sent) == 1 && strings.Contains(db.sent[0], "XX000"); raised != (status == 'T') {
			t.Errorf("status %c: sent %q; the transaction is aborted only inside one", status, db.sent)
		}
		if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "a panic") || !strings.Contains(logs.String(), "guard_test.go") {
			t.Errorf("status %c: log %q, want an error naming the statement, with the stack", status, logs.String())
		}
		logs.Reset()
	}
	db.status = 'I'
	step, err := s.Run(ctx, "SELECT nextval('s')", nil, Request{Rows: true})
	if err != nil || rowsOf(step.Rows) != "[1]" {
		t.Fatalf("the session after the panics: %v, %v", rowsOf(step.Rows), err)
	}
}

// describePanicStore is a memory store whose Describe panics.
type describePanicStore struct{ *memstore.Store }

func (describePanicStore) Describe(context.Context, string) (sequence.Info, error) {
	panic("a bug in Describe")
}

// TestGuardWrapped: a panic in table DDL that the session wraps in a
// transaction block of its own rolls that block back: the front end never
// opened it, and the session goes on outside one.
func TestGuardWrapped(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Store: describePanicStore{memstore.New()}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	db := &fakeDB{}
	s, err := NewSession[AnyArgs](ctx, e, db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Run(ctx, "CREATE TABLE t (id serial)", nil, Request{})
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != codeInternalError {
		t.Fatalf("%v, want XX000", err)
	}
	if db.TxStatus() != 'I' || !slices.Contains(db.sent, "ROLLBACK") {
		t.Fatalf("status %c, sent %q: the session's own transaction block is left open", db.TxStatus(), db.sent)
	}
	if s.tx != nil {
		t.Error("DDL is still held")
	}
}

// switchedPanicStore is a memory store whose List panics while on is set.
type switchedPanicStore struct {
	*memstore.Store
	on atomic.Bool
}

func (s *switchedPanicStore) List(ctx context.Context) ([]sequence.Info, error) {
	if s.on.Load() {
		panic("index out of range [6] with length 6")
	}
	return s.Store.List(ctx)
}

// TestGuardDrawAgain: a panic on Session.drawAgain's path (the store's
// column defaults read again for an INSERT that draws its id, repeated) is
// one error, XX000, logged once, not a second try through the whole
// lifecycle; and the session goes on.
func TestGuardDrawAgain(t *testing.T) {
	ctx := context.Background()
	st := &switchedPanicStore{Store: memstore.New()}
	defs := []sequence.ColumnDefault{{Table: "orders", Column: "id"}}
	spec, pos, _ := sequence.Clauses{Defaults: &defs}.Create()
	if err := st.Create(ctx, "orders_id_seq", spec, pos); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cfg := Config{Store: st, Dialect: rewrite.Postgres}
	cfg.Cache.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	e, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := NewSession[AnyArgs](ctx, e, &fakeDB{})
	if err != nil {
		t.Fatal(err)
	}
	s.reports = new(atomic.Uint64) // a connection counting reports, as pgxseq's
	const q = "INSERT INTO orders (v) VALUES ($1)"
	insert := func() (Step, error) {
		step, err := s.Run(ctx, q, AnyArgs{"x"}, Request{Extended: true})
		if err == nil {
			err = s.Finish(ctx, &step, nil)
		}
		return step, err
	}
	for range 2 {
		if _, err := insert(); err != nil {
			t.Fatal(err)
		}
	}
	if !s.lastPlan.draws || !s.lastPlan.injects {
		t.Fatalf("%s: draws %v, injects %v; the test needs both", q, s.lastPlan.draws, s.lastPlan.injects)
	}
	e.forgetDefaults() // column DDL elsewhere: the next INSERT reads the store
	st.on.Store(true)
	_, err = insert()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != codeInternalError || !strings.Contains(pe.Message, q) {
		t.Fatalf("%v, want XX000 naming the statement", err)
	}
	if n := strings.Count(logs.String(), "level=ERROR"); n != 1 {
		t.Errorf("the panic was logged %d times, want once: %q", n, logs.String())
	}
	st.on.Store(false)
	step, err := insert()
	if err != nil || !strings.Contains(step.SQL, "id") {
		t.Fatalf("the session after the panic: %q, %v", step.SQL, err)
	}
}
