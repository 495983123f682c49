package driver_test

import (
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	seqdriver "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	_ "github.com/seqshim/seqshim/sqlstore/sqlite" // sqlite: stores
)

// createDatabase creates a database for the test, dropped at its end, and
// returns its URL.
func createDatabase(t *testing.T) string {
	t.Helper()
	admin := nativeDB(t)
	name := uniq(t, "scope")
	mustExec(t, admin, "CREATE DATABASE "+name)
	t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	u, err := url.Parse(testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// TestPGDatabasePlaceholder: databases sharing a store share its counters;
// {database} in the store URL gives each database a store of its own, and
// PostgreSQL's independence: the same migration counts from 1 in each.
func TestPGDatabasePlaceholder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, tt := range []struct {
		store string
		want  []int64 // nextval on the first database, then the second
	}{
		{"sqlite:" + filepath.Join(dir, "shared.db"), []int64{1, 2}},
		{"sqlite:" + filepath.Join(dir, "{database}.db"), []int64{1, 1}},
	} {
		t.Run(tt.store, func(t *testing.T) {
			var got []int64
			for range 2 {
				dsn := withStore(t, createDatabase(t), tt.store)
				db, err := sql.Open("seqshim", dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				mustExec(t, db, "CREATE SEQUENCE s")
				mustExec(t, db, "CREATE TABLE t (id bigserial PRIMARY KEY, v text)")
				got = append(got, queryInt64(t, db, "SELECT nextval('s')"))
				var id int64
				if err := db.QueryRowContext(ctx, "INSERT INTO t (v) VALUES ('x') RETURNING id").Scan(&id); err != nil {
					t.Fatal(err)
				}
				if id != got[len(got)-1] {
					t.Errorf("the table's id %d, want the same as the sequence's %d (both count alike here)", id, got[len(got)-1])
				}
			}
			if got[0] != tt.want[0] || got[1] != tt.want[1] {
				t.Errorf("nextval on two databases: %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPGSharedNotice: ALTER SEQUENCE and setval of a counter other
// databases share tell the client so, in a NOTICE (PostgreSQL's own
// message type, which pgx hands to OnNotice); a sequence of one database
// alone gets none.
func TestPGSharedNotice(t *testing.T) {
	st := memstore.New()
	var notices []string
	open := func(dbURL string) *sql.DB {
		cfg, err := pgx.ParseConfig(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
		c, err := seqdriver.NewConnector(stdlib.GetConnector(*cfg), func(o *seqdriver.Options) { o.Store = st })
		if err != nil {
			t.Fatal(err)
		}
		db := sql.OpenDB(c)
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	a, b := open(createDatabase(t)), open(createDatabase(t))
	mustExec(t, a, "CREATE SEQUENCE own")
	mustExec(t, a, "SELECT setval('own', 5)")
	mustExec(t, a, "ALTER SEQUENCE own INCREMENT 2")
	if len(notices) != 0 {
		t.Fatalf("notices for a sequence of one database: %q", notices)
	}
	mustExec(t, a, "CREATE SEQUENCE shared")
	mustExec(t, b, "CREATE SEQUENCE shared")
	mustExec(t, a, "SELECT setval('shared', 100)")
	mustExec(t, b, "ALTER SEQUENCE shared INCREMENT 10")
	if len(notices) != 2 || !strings.Contains(notices[0], "setval changed the counter") || !strings.Contains(notices[1], "ALTER SEQUENCE changed the counter") {
		t.Fatalf("notices %q, want one for setval and one for ALTER SEQUENCE", notices)
	}
	if v := queryInt64(t, b, "SELECT nextval('shared')"); v != 110 {
		t.Errorf("nextval on the other database: %d, want 110 (the one counter)", v)
	}
}
