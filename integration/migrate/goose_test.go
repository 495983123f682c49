package migrate_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pressly/goose/v3"

	_ "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sqlstore"
	_ "github.com/seqshim/seqshim/sqlstore/sqlite" // the sqlite: store
)

// migrations are goose SQL migrations; 00002 fails until fixed (a type that
// does not exist), after creating two sequences and drawing from one.
func migrations(fixed bool) fstest.MapFS {
	typ := "nosuchtype"
	if fixed {
		typ = "text"
	}
	return fstest.MapFS{
		"00001_orders.sql": {Data: []byte(`-- +goose Up
CREATE SEQUENCE orders_seq;
CREATE TABLE orders (id bigint PRIMARY KEY);
INSERT INTO orders VALUES (nextval('orders_seq'));

-- +goose Down
DROP TABLE orders;
DROP SEQUENCE orders_seq;
`)},
		"00002_invoices.sql": {Data: []byte(`-- +goose Up
CREATE SEQUENCE invoices_seq;
CREATE SEQUENCE lines_seq START 100;
CREATE TABLE invoices (id bigint PRIMARY KEY, note ` + typ + `);
INSERT INTO invoices VALUES (nextval('lines_seq'), 'first');

-- +goose Down
DROP TABLE invoices;
DROP SEQUENCE invoices_seq, lines_seq;
`)},
	}
}

// freshDB creates an empty database, dropped at the end of the test.
func freshDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	admin, err := sql.Open("pgx", testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := "goose_" + time.Now().Format("150405") + "_" + filepath.Base(t.TempDir())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+pgIdent(name)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pgIdent(name)+" WITH (FORCE)") })
	u, err := url.Parse(testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func pgIdent(s string) string { return `"` + s + `"` }

// storeNames lists the store's sequences.
func storeNames(t *testing.T, ctx context.Context, path string) []string {
	t.Helper()
	st, err := sqlstore.Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	infos, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range infos {
		names = append(names, in.Name)
	}
	return names
}

// TestGooseRetry: a migration that creates sequences and then fails leaves
// no sequence behind; fixed, it is retried and succeeds, and the store holds
// exactly what committed migrations created. Down migrations drop them.
func TestGooseRetry(t *testing.T) {
	ctx := context.Background()
	dbURL := freshDB(t)
	storePath := filepath.Join(t.TempDir(), "seq.db")
	u, _ := url.Parse(dbURL)
	q := u.Query()
	q.Set("seqshim.store", "sqlite:"+storePath)
	u.RawQuery = q.Encode()
	db, err := sql.Open("seqshim", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations(false))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Up(ctx)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42704" {
		t.Fatalf("Up with the broken migration: %v, want 42704 (type does not exist)", err)
	}
	// goose's own version table has an identity id: its sequence is a
	// store sequence too, created with the table by goose's first run.
	if got, want := storeNames(t, ctx, storePath), []string{"goose_db_version_id_seq", "orders_seq"}; !slices.Equal(got, want) {
		t.Fatalf("store after the failed migration: %v, want %v", got, want)
	}

	p, err = goose.NewProvider(goose.DialectPostgres, db, migrations(true))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		t.Fatalf("retry after the fix: %v", err)
	}
	if len(res) != 1 {
		t.Errorf("retry applied %d migrations, want 1", len(res))
	}
	want := []string{"goose_db_version_id_seq", "invoices_seq", "lines_seq", "orders_seq"}
	if got := storeNames(t, ctx, storePath); !slices.Equal(got, want) {
		t.Fatalf("store after the retry: %v, want %v", got, want)
	}
	var id, next int64
	if err := db.QueryRowContext(ctx, "SELECT id FROM invoices").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT nextval('lines_seq')").Scan(&next); err != nil {
		t.Fatal(err)
	}
	if id != 100 || next != 101 {
		t.Errorf("invoice id %d, then nextval %d; want 100, then 101 (the value drawn in the migration is used)", id, next)
	}

	if _, err := p.DownTo(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got, want := storeNames(t, ctx, storePath), []string{"goose_db_version_id_seq", "orders_seq"}; !slices.Equal(got, want) {
		t.Fatalf("store after Down: %v, want %v", got, want)
	}
}
