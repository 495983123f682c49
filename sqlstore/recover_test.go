package sqlstore_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

// lossy is a database/sql connector around a driver that, when told to,
// commits a transaction and then reports the connection lost (the
// ambiguous COMMIT), or fails queries without sending them.
type lossy struct {
	drv driver.Driver
	dsn string

	mu         sync.Mutex // guards the fields below
	loseCommit bool       // the next successful COMMIT reports an error
	failQuery  bool       // every query fails
}

var (
	errCommitLost = errors.New("test: connection lost during COMMIT")
	errQuery      = errors.New("test: connection refused")
)

func (l *lossy) Connect(context.Context) (driver.Conn, error) {
	c, err := l.drv.Open(l.dsn)
	if err != nil {
		return nil, err
	}
	return lossyConn{c, l}, nil
}

func (l *lossy) Driver() driver.Driver { return l.drv }

func (l *lossy) set(loseCommit, failQuery bool) {
	l.mu.Lock()
	l.loseCommit, l.failQuery = loseCommit, failQuery
	l.mu.Unlock()
}

type lossyConn struct {
	driver.Conn
	l *lossy
}

func (c lossyConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return lossyTx{tx, c.l}, nil
}

func (c lossyConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c lossyConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (c lossyConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.l.mu.Lock()
	fail := c.l.failQuery
	c.l.mu.Unlock()
	if fail {
		return nil, errQuery
	}
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

type lossyTx struct {
	driver.Tx
	l *lossy
}

func (t lossyTx) Commit() error {
	err := t.Tx.Commit()
	t.l.mu.Lock()
	lose := err == nil && t.l.loseCommit
	if lose {
		t.l.loseCommit = false
	}
	t.l.mu.Unlock()
	if lose {
		return errCommitLost
	}
	return err
}

// recoverStores returns, per dialect, a Store whose COMMITs and queries
// lossy controls and a plain Store on the same table (another process).
func recoverStores(t *testing.T) map[string]func(t *testing.T) (*sqlstore.Store, *sqlstore.Store, *lossy) {
	open := func(t *testing.T, drvName, dsn string, dialect sqlstore.Dialect, table string) (*sqlstore.Store, *lossy) {
		plain, err := sql.Open(drvName, dsn)
		if err != nil {
			t.Fatal(err)
		}
		l := &lossy{drv: plain.Driver(), dsn: dsn}
		plain.Close()
		db := sql.OpenDB(l)
		t.Cleanup(func() { db.Close() })
		st, err := sqlstore.New(db, dialect, func(o *sqlstore.Options) { o.Table = table })
		if err != nil {
			t.Fatal(err)
		}
		return st, l
	}
	return map[string]func(t *testing.T) (*sqlstore.Store, *sqlstore.Store, *lossy){
		"sqlite": func(t *testing.T) (*sqlstore.Store, *sqlstore.Store, *lossy) {
			path := filepath.Join(t.TempDir(), "seq.db")
			st, l := open(t, "sqlite", path+"?_txlock=immediate&_pragma=busy_timeout(10000)", sqlstore.SQLite, sqlstore.DefaultTable)
			return st, openT(t, "sqlite:"+path), l
		},
		"postgres": func(t *testing.T) (*sqlstore.Store, *sqlstore.Store, *lossy) {
			pg := testenv.PG(t)
			table := "seqshim_test_" + randomSuffix(t)
			other := openT(t, pg, func(o *sqlstore.Options) { o.Table = table })
			t.Cleanup(func() {
				if _, err := other.DB().ExecContext(context.Background(), "DROP TABLE IF EXISTS "+table); err != nil {
					t.Error(err)
				}
			})
			st, l := open(t, "pgx", pg, sqlstore.Postgres, table)
			return st, other, l
		},
	}
}

// TestRecover: a reservation committed whose COMMIT reported an error is
// recovered exactly, by its own token only, until another reservation or a
// release commits; a read-back that fails is an error (the block a gap).
func TestRecover(t *testing.T) {
	for dialect, stores := range recoverStores(t) {
		t.Run(dialect, func(t *testing.T) {
			t.Run("lost commit recovered", func(t *testing.T) {
				ctx := t.Context()
				st, other, l := stores(t)
				spec, pos, _ := sequence.Clauses{Increment: sequence.Int64(3), DailyLimit: sequence.Int64(1000)}.Create()
				if err := other.Create(ctx, "s", spec, pos); err != nil {
					t.Fatal(err)
				}
				if _, err := st.Reserve(ctx, "s", 5); err != nil {
					t.Fatal(err)
				}
				before, err := other.Describe(ctx, "s")
				if err != nil {
					t.Fatal(err)
				}
				want, wantPos, err := before.Spec.Reserve("s", before.Position, 10)
				if err != nil {
					t.Fatal(err)
				}
				tok := sequence.NewToken()
				l.set(true, false)
				if b, err := st.ReserveToken(ctx, "s", 10, tok); !errors.Is(err, errCommitLost) {
					t.Fatalf("ReserveToken with the COMMIT lost = %+v, %v; want the lost commit", b, err)
				}
				after, err := other.Describe(ctx, "s")
				if err != nil || after.Position != wantPos {
					t.Fatalf("position after the lost commit %+v, %v; want %+v", after.Position, err, wantPos)
				}
				want.Gen = after.Gen // a recovered block carries its incarnation, as a reserved one does
				if b, ok, err := st.Recover(ctx, "s", sequence.NewToken()); ok || err != nil {
					t.Fatalf("Recover with another token = %+v, %v, %v; want false, nil", b, ok, err)
				}
				got, ok, err := st.Recover(ctx, "s", tok)
				if err != nil || !ok || got != want {
					t.Fatalf("Recover = %+v, %v, %v; want %+v, true, nil", got, ok, err, want)
				}
				if ok, err := st.Release(ctx, "s", got.Tail(4)); err != nil || !ok {
					t.Fatalf("Release of the recovered tail = %v, %v; want true", ok, err)
				}
				if b, ok, err := st.Recover(ctx, "s", tok); ok || err != nil {
					t.Fatalf("Recover after a release = %+v, %v, %v; want false, nil", b, ok, err)
				}
			})
			for _, after := range []struct {
				name string
				do   func(ctx context.Context, st *sqlstore.Store) error
			}{
				{"no proof after another reservation", func(ctx context.Context, st *sqlstore.Store) error {
					_, err := st.Reserve(ctx, "s", 1)
					return err
				}},
				{"no proof after another reservation with a token", func(ctx context.Context, st *sqlstore.Store) error {
					_, err := st.ReserveToken(ctx, "s", 1, sequence.NewToken())
					return err
				}},
				{"no proof after drop", func(ctx context.Context, st *sqlstore.Store) error {
					return st.Drop(ctx, "s")
				}},
			} {
				t.Run(after.name, func(t *testing.T) {
					ctx := t.Context()
					st, other, l := stores(t)
					if err := other.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
						t.Fatal(err)
					}
					tok := sequence.NewToken()
					l.set(true, false)
					if _, err := st.ReserveToken(ctx, "s", 10, tok); err == nil {
						t.Fatal("ReserveToken succeeded with its COMMIT lost")
					}
					if err := after.do(ctx, other); err != nil {
						t.Fatal(err)
					}
					if b, ok, err := st.Recover(ctx, "s", tok); ok || err != nil {
						t.Fatalf("Recover = %+v, %v, %v; want false, nil", b, ok, err)
					}
				})
			}
			t.Run("read-back fails", func(t *testing.T) {
				ctx := t.Context()
				st, other, l := stores(t)
				if err := other.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
					t.Fatal(err)
				}
				tok := sequence.NewToken()
				l.set(true, false)
				if _, err := st.ReserveToken(ctx, "s", 10, tok); err == nil {
					t.Fatal("ReserveToken succeeded with its COMMIT lost")
				}
				l.set(false, true)
				if b, ok, err := st.Recover(ctx, "s", tok); ok || !errors.Is(err, errQuery) {
					t.Fatalf("Recover with the read failing = %+v, %v, %v; want false and the error", b, ok, err)
				}
				if next, err := other.Reserve(ctx, "s", 1); err != nil || next.First != 11 {
					t.Fatalf("Reserve after the gap = %+v, %v; want first value 11", next, err)
				}
			})
		})
	}
}
