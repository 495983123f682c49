package driver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/memstore"
)

// TestPGTempRefusals: what seqshim refuses about temporary objects, where
// it cannot give PostgreSQL's answer, refuses with 0A000 saying what to do,
// and runs nothing of the string.
func TestPGTempRefusals(t *testing.T) {
	ctx := context.Background()
	db := seqshimDB(t, memstore.New())
	s := uniq(t, "s")
	mustExec(t, db, "CREATE SEQUENCE "+s)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	refused := func(what, query, msg string, args ...any) {
		t.Helper()
		_, err := c.ExecContext(ctx, query, args...)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, msg) {
			t.Errorf("%s: %v, want 0A000 saying %q", what, err, msg)
		}
	}

	mustExec(t, c, "CREATE TEMP SEQUENCE "+s+" START 100")
	refused("DROP of a temporary and a store sequence", "DROP SEQUENCE "+s+", public."+s,
		"names temporary sequences, which the database serves, and sequences of seqshim's store: run it once for each")
	if v := queryInt64(t, c, "SELECT nextval('"+s+"') + nextval('public."+s+"')"); v != 101 {
		t.Errorf("after the refused DROP: nextval of both = %d, want 100 + 1", v)
	}

	refused("CREATE TEMP then a call in one string", "CREATE TEMP SEQUENCE x; SELECT nextval('x')",
		"send them as separate statements, or qualify the names")
	if _, err := c.ExecContext(ctx, "SELECT nextval('pg_temp.x')"); err == nil {
		t.Error("the refused string created its temporary sequence")
	}

	mustExec(t, c, "CREATE TEMP TABLE tt (id serial, v bigint)")
	queryInt64(t, c, "SELECT nextval('public."+s+"')")
	refused("lastval in the INSERT that draws a temporary default, after a store nextval",
		"INSERT INTO tt (v) VALUES (lastval())", "seqshim cannot tell which was last")
	mustExec(t, c, "INSERT INTO tt (v) VALUES (nextval('public."+s+"'))")
	refused("lastval after it", "SELECT lastval()", "seqshim cannot tell which was last")
	if v := queryInt64(t, c, "SELECT currval('tt_id_seq')"); v != 1 {
		t.Errorf("currval of the temporary table's sequence: %d, want 1", v)
	}

	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "SET TRANSACTION READ ONLY")
	_, err = tx.ExecContext(ctx, "INSERT INTO tt (v) VALUES (nextval('public."+s+"'))")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "25006" || pe.Message != "cannot execute nextval() in a read-only transaction" {
		t.Errorf("a store nextval into a temporary table in a read-only transaction: %v, want PostgreSQL's 25006 for nextval()", err)
	}
	_ = tx.Rollback()
}
