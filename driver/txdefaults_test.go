package driver_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
)

// listGate is a store whose List, once armed, hands its answer back only
// when released: a load of the store's column defaults that read the store
// before something changed it, and publishes what it read after.
type listGate struct {
	sequence.Store
	armed   atomic.Bool
	listed  chan struct{} // closed when the armed List has read the store
	release chan struct{} // closed to let it return
}

func (g *listGate) List(ctx context.Context) ([]sequence.Info, error) {
	infos, err := g.Store.List(ctx)
	if g.armed.CompareAndSwap(true, false) {
		close(g.listed)
		<-g.release
	}
	return infos, err
}

// TestTxControlDefaultsAfterCommit: once the COMMIT of a bigserial table
// (in a transaction, or of the one seqshim wraps a table statement in) has
// returned, an INSERT leaving the id out gets one from the store, in the
// session that committed, even when another session of the process was
// loading the column defaults meanwhile — here one that read the store
// before the commit and finishes after it. Found as an intermittent 23502
// (the INSERT sent without the id) in TestTxControl's bigserial cases under
// -race.
func TestTxControlDefaultsAfterCommit(t *testing.T) {
	for _, tt := range []struct {
		name  string
		steps []string // TABLE stands for the CREATE TABLE
	}{
		{"transaction", []string{"BEGIN", "TABLE", "COMMIT"}},
		{"alone", []string{"TABLE"}},
	} {
		t.Run(tt.name, func(t *testing.T) { testDefaultsAfterCommit(t, tt.steps) })
	}
}

func testDefaultsAfterCommit(t *testing.T, steps []string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang fails, it does not block the run
	defer cancel()
	native := nativeDB(t)
	gate := &listGate{Store: memstore.New(), listed: make(chan struct{}), release: make(chan struct{})}
	release := sync.OnceFunc(func() { close(gate.release) })
	defer release()
	db := seqshimDB(t, gate)
	before, table := uniq(t, "dflt"), uniq(t, "dflt")
	t.Cleanup(func() {
		native.Exec("DROP TABLE IF EXISTS " + before)
		native.Exec("DROP TABLE IF EXISTS " + table)
	})
	mustExec(t, db, "CREATE TABLE "+before+" (id bigserial, v text)")

	other, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// The other session's INSERT loads the column defaults: its List reads
	// the store, then waits.
	gate.armed.Store(true)
	otherDone := make(chan error, 1)
	go func() {
		_, err := other.ExecContext(ctx, "INSERT INTO "+before+" (v) VALUES ('other')")
		otherDone <- err
	}()
	select {
	case <-gate.listed:
	case err := <-otherDone:
		t.Skipf("the other session's INSERT (%v) did not list the store to load the column defaults: this interleaving cannot be arranged", err)
	}

	// Meanwhile the session creates a table and commits.
	for _, q := range steps {
		if q == "TABLE" {
			q = "CREATE TABLE " + table + " (id bigserial, v text)"
		}
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := gate.Describe(ctx, table+"_id_seq"); err != nil {
		t.Fatalf("the store after COMMIT: %v", err)
	}

	// The other session's load finishes with what it read before the commit.
	release()
	if err := <-otherDone; err != nil {
		t.Fatalf("the other session's INSERT: %v", err)
	}

	var id int64
	err = c.QueryRowContext(ctx, "INSERT INTO "+table+" (v) VALUES ('x') RETURNING id").Scan(&id)
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "23502":
		t.Fatalf("INSERT after the COMMIT that created the table: %v: sent without an id (the column defaults loaded before the commit were kept)", err)
	case err != nil:
		t.Fatalf("INSERT after the COMMIT that created the table: %v", err)
	case id < 1:
		t.Errorf("INSERT after the COMMIT that created the table: id %d", id)
	}
}
