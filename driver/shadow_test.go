package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"testing"
	"time"

	seqdriver "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/faultstore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
)

// shadowDB opens the test PostgreSQL through seqshim in shadow mode with the
// memory store storeURL.
func shadowDB(t *testing.T, storeURL string) *sql.DB {
	t.Helper()
	u, err := url.Parse(testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("seqshim.mode", "shadow")
	q.Set("seqshim.store", storeURL)
	u.RawQuery = q.Encode()
	db, err := sql.Open("seqshim", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestShadow runs statements through seqshim in shadow mode: the database's
// sequence answers every one (the store never has it), and after each the
// shadow has drawn from shadow_NAME as many values as the statement's
// nextval calls took.
func TestShadow(t *testing.T) {
	storeURL := "memory:" + uniq(t, "shadow")
	db := shadowDB(t, storeURL)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	seq, tbl := uniq(t, "s"), uniq(t, "t")
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE "+seq+"; CREATE TABLE "+tbl+" (a bigint, b bigint)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nativeDB(t).Exec("DROP TABLE " + tbl + "; DROP SEQUENCE " + seq) })
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	prep, err := conn.PrepareContext(ctx, "SELECT nextval($1)")
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()

	sh, err := seqdriver.ShadowOf(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name      string
		run       func() error
		calls     int64 // values the statement took from the database's sequence
		uncounted int64 // statements shadow mode could not count
	}{
		{"SELECT nextval", func() error { return conn.QueryRowContext(ctx, "SELECT nextval('"+seq+"')").Scan(new(int64)) }, 1, 0},
		{"two calls in an INSERT", func() error {
			_, err := conn.ExecContext(ctx, "INSERT INTO "+tbl+" VALUES (nextval('"+seq+"'), nextval('"+seq+"'))")
			return err
		}, 2, 0},
		{"with bind arguments", func() error {
			_, err := conn.ExecContext(ctx, "INSERT INTO "+tbl+" VALUES (nextval($1), $2)", seq, 7)
			return err
		}, 1, 0},
		{"a prepared statement, twice", func() error {
			if err := prep.QueryRowContext(ctx, seq).Scan(new(int64)); err != nil {
				return err
			}
			return prep.QueryRowContext(ctx, seq).Scan(new(int64))
		}, 2, 0},
		{"generate_series", func() error {
			rows, err := conn.QueryContext(ctx, "SELECT nextval('"+seq+"') FROM generate_series(1, 5)")
			if err != nil {
				return err
			}
			for rows.Next() {
			}
			return rows.Close()
		}, 5, 0},
		{"in a transaction", func() error {
			tx, err := conn.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			if err := tx.QueryRowContext(ctx, "SELECT nextval('"+seq+"')").Scan(new(int64)); err != nil {
				return err
			}
			return tx.Rollback() // the value stays taken, as in PostgreSQL
		}, 1, 0},
		{"currval draws nothing", func() error {
			return conn.QueryRowContext(ctx, "SELECT currval('"+seq+"')").Scan(new(int64))
		}, 0, 0},
		{"a failed statement draws nothing", func() error {
			_, err := conn.ExecContext(ctx, "SELECT nextval('no_such_seq')")
			if err == nil {
				return errors.New("nextval of a missing sequence succeeded")
			}
			return nil
		}, 0, 0},
		{"per row: counted by the database only", func() error {
			_, err := conn.ExecContext(ctx, "INSERT INTO "+tbl+" SELECT nextval('"+seq+"'), g FROM generate_series(1, 3) g")
			return err
		}, 0, 1},
	}
	var calls, uncounted int64
	for _, st := range steps {
		if err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if err := sh.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		calls += st.calls
		uncounted += st.uncounted
		s := sh.Stats()
		if s.Calls != calls || s.Drawn != calls || s.Uncounted != uncounted || s.Failed != 0 || s.Dropped != 0 {
			t.Fatalf("after %s: calls %d, drawn %d, uncounted %d, failed %d, dropped %d; want %d, %d, %d, 0, 0",
				st.name, s.Calls, s.Drawn, s.Uncounted, s.Failed, s.Dropped, calls, calls, uncounted)
		}
	}

	// The database's sequence answered everything: 12 counted values and 3
	// taken per row.
	var last int64
	if err := conn.QueryRowContext(ctx, "SELECT last_value FROM "+seq).Scan(&last); err != nil || last != calls+3 {
		t.Fatalf("the database's sequence is at %d, %v; want %d", last, err, calls+3)
	}
	// The store has the shadow sequence only, created on first use, and
	// its cache served exactly the values counted.
	st, _ := memstore.Open(storeURL)
	if _, err := st.Describe(ctx, seq); !errors.Is(err, sequence.ErrNotFound) {
		t.Errorf("the store has %s itself: %v", seq, err)
	}
	info, err := st.Describe(ctx, seqdriver.ShadowName(seq))
	if err != nil {
		t.Fatalf("no shadow sequence: %v", err)
	}
	s := sh.Stats()
	if s.Created != 1 || len(s.Sequences) != 1 || s.Sequences[0].Name != "shadow_"+seq || s.Sequences[0].Served != calls {
		t.Errorf("shadow stats: %+v", s)
	}
	// One store error: the first reservation, before the shadow sequence
	// was created; every other call is a block the store counted.
	if s.StoreErrors != 1 || s.StoreCalls != info.Reservations+1 || info.Reservations < 1 || s.StoreLatency.Max <= 0 {
		t.Errorf("store calls %d (store counted %d), errors %d, latency %+v", s.StoreCalls, info.Reservations, s.StoreErrors, s.StoreLatency)
	}
}

// TestShadowStoreDown checks that a failing store changes nothing the
// application sees in shadow mode, and shows in the figures.
func TestShadowStoreDown(t *testing.T) {
	f := faultstore.New(memstore.New())
	f.SetDown(errors.New("store unreachable (injected)"))
	db := seqshimDB(t, f, func(o *seqdriver.Options) { o.Mode = seqdriver.ModeShadow; o.MaxWait = 100 * time.Millisecond })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	seq := uniq(t, "s")
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE "+seq+" START 40"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nativeDB(t).Exec("DROP SEQUENCE " + seq) })
	for want := int64(40); want < 43; want++ {
		var v int64
		if err := db.QueryRowContext(ctx, "SELECT nextval('"+seq+"')").Scan(&v); err != nil || v != want {
			t.Fatalf("nextval = %d, %v; want %d from the database", v, err, want)
		}
	}
	sh, err := seqdriver.ShadowOf(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if s := sh.Stats(); s.Calls != 3 || s.Drawn != 0 || s.Failed != 3 || s.StoreErrors == 0 {
		t.Errorf("with the store down: %+v", s)
	}
	// A serve-mode handle has no shadow.
	if _, err := seqdriver.ShadowOf(ctx, seqshimDB(t, memstore.New())); err == nil {
		t.Error("ShadowOf of a serve-mode handle succeeded")
	}
}

// TestModeOption checks seqshim.mode, SEQSHIM_MODE and their precedence.
func TestModeOption(t *testing.T) {
	tests := []struct {
		dsn, env string
		want     seqdriver.Mode
		wantErr  bool
	}{
		{"host=h seqshim.store=memory:", "", seqdriver.ModeServe, false},
		{"host=h seqshim.mode=shadow", "", seqdriver.ModeShadow, false},
		{"host=h seqshim.mode=serve", "", seqdriver.ModeServe, false},
		{"host=h", "shadow", seqdriver.ModeShadow, false},
		{"host=h seqshim.mode=serve", "shadow", seqdriver.ModeServe, false}, // explicit wins
		{"host=h seqshim.mode=mirror", "", "", true},
		{"host=h", "mirror", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.dsn+"|"+tt.env, func(t *testing.T) {
			t.Setenv("SEQSHIM_MODE", tt.env)
			c, err := (&seqdriver.Driver{}).OpenConnector(tt.dsn)
			if tt.wantErr {
				if err == nil {
					t.Fatal("OpenConnector succeeded")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.(*seqdriver.Connector).Options().Mode; got != tt.want {
				t.Errorf("Mode = %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := seqdriver.NewConnector(nopConnector{}, func(o *seqdriver.Options) { o.Mode = "bogus" }); err == nil {
		t.Error("NewConnector with Options.Mode bogus succeeded")
	}
}

// TestShadowStats checks that the statistics and ShadowOf find a shadow-mode
// handle's figures without a connection.
func TestShadowStats(t *testing.T) {
	storeURL := "memory:" + uniq(t, "shadowstats")
	db := shadowDB(t, storeURL)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	seq := uniq(t, "s")
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE "+seq); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nativeDB(t).Exec("DROP SEQUENCE " + seq) })
	for range 4 {
		if err := db.QueryRowContext(ctx, "SELECT nextval('"+seq+"')").Scan(new(int64)); err != nil {
			t.Fatal(err)
		}
	}
	sh, err := seqdriver.ShadowOf(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	stats, err := seqdriver.Stats(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 1 || stats[0].Name != seqdriver.ShadowName(seq) || stats[0].Served != 4 {
		t.Errorf("driver.Stats of a shadow-mode handle: %+v", stats)
	}
}
