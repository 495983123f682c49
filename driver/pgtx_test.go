package driver_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	seqdriver "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// downStore is a memory store whose reservations fail.
type downStore struct{ *memstore.Store }

var errStoreDown = errors.New("store down")

func (downStore) Reserve(context.Context, string, int64) (sequence.Block, error) {
	return sequence.Block{}, errStoreDown
}

// TestPGFailedStatementAbortsTransaction: a statement seqshim fails without
// the database (refused, or with the store down) aborts the transaction it
// ran in, as PostgreSQL's own failures do: the next statement fails with
// 25P02 and COMMIT rolls back the work done before it. Outside a
// transaction the session goes on.
func TestPGFailedStatementAbortsTransaction(t *testing.T) {
	ctx := context.Background()
	native := nativeDB(t)
	db := seqshimDB(t, downStore{memstore.New()}, func(o *seqdriver.Options) { o.MaxWait = 50 * time.Millisecond })
	seq, tbl := uniq(t, "s"), uniq(t, "t")
	mustExec(t, db, "CREATE SEQUENCE "+seq)
	mustExec(t, native, "CREATE TABLE "+tbl+" (id bigint)")
	t.Cleanup(func() { native.Exec("DROP TABLE " + tbl) })

	tests := []struct {
		name, query string
		check       func(error) bool
	}{
		{"refused per-row call", fmt.Sprintf("UPDATE %s SET id = nextval('%s')", tbl, seq), func(err error) bool {
			var pe *pgconn.PgError
			return errors.As(err, &pe) && pe.Code == "0A000"
		}},
		{"store down", fmt.Sprintf("SELECT nextval('%s')", seq), func(err error) bool {
			return errors.Is(err, seqcache.ErrUnavailable) && errors.Is(err, errStoreDown)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := db.ExecContext(ctx, tt.query); !tt.check(err) {
				t.Fatalf("outside a transaction: %v", err)
			}
			mustExec(t, db, "SELECT 1") // the session goes on

			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			mustExec(t, tx, "INSERT INTO "+tbl+" VALUES (1)")
			if _, err := tx.ExecContext(ctx, tt.query); !tt.check(err) {
				t.Fatalf("in a transaction: %v", err)
			}
			var pe *pgconn.PgError
			if _, err := tx.ExecContext(ctx, "SELECT 1"); !errors.As(err, &pe) || pe.Code != "25P02" {
				t.Errorf("the next statement: %v, want 25P02", err)
			}
			if err := tx.Commit(); !errors.Is(err, pgx.ErrTxCommitRollback) {
				t.Errorf("Commit: %v, want %v", err, pgx.ErrTxCommitRollback)
			}
			if n := queryInt64(t, native, "SELECT count(*) FROM "+tbl); n != 0 {
				t.Errorf("%d rows committed around the failed statement", n)
			}
		})
	}
}
