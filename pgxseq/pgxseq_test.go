package pgxseq_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/pgxseq"
)

// createDatabase creates a database for the test, dropped at its end, and
// returns its URL.
func createDatabase(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	name := "pgxseq_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" STRATEGY FILE_COPY"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		admin, err := pgx.Connect(ctx, testenv.PG(t))
		if err != nil {
			t.Error(err)
			return
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// withStore adds seqshim.store to a postgres:// URL.
func withStore(t *testing.T, dbURL, store string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("seqshim.store", store)
	u.RawQuery = q.Encode()
	return u.String()
}

func newPool(t *testing.T) (*pgxseq.Pool, string) {
	t.Helper()
	db := createDatabase(t)
	pool, err := pgxseq.New(context.Background(), withStore(t, db, "memory:"+t.Name()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, db
}

func mustExec(t *testing.T, q interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, sql string, args ...any) pgconn.CommandTag {
	t.Helper()
	tag, err := q.Exec(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	pool, _ := newPool(t)
	if tag := mustExec(t, pool, "CREATE SEQUENCE s"); tag.String() != "CREATE SEQUENCE" {
		t.Errorf("tag %q", tag)
	}
	var v int64
	if err := pool.QueryRow(ctx, "SELECT nextval('s')").Scan(&v); err != nil || v != 1 {
		t.Fatalf("nextval: %d, %v", v, err)
	}
	mustExec(t, pool, "CREATE TABLE t (id bigserial PRIMARY KEY, v text)")
	var id int64
	if err := pool.QueryRow(ctx, "INSERT INTO t (v) VALUES ($1) RETURNING id", "a").Scan(&id); err != nil || id != 1 {
		t.Fatalf("insert: %d, %v", id, err)
	}
	rows, _ := pool.Query(ctx, "SELECT id, v FROM t ORDER BY id")
	type T struct {
		ID int64
		V  string
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[T])
	if err != nil || len(got) != 1 || got[0] != (T{1, "a"}) {
		t.Fatalf("rows %v, %v", got, err)
	}
	_, err = pool.Exec(ctx, "SELECT nextval('nope')")
	if pgCode(err) != "42P01" {
		t.Fatalf("missing sequence: %v", err)
	}
	// Named arguments and modes.
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec, pgx.QueryExecModeDescribeExec, pgx.QueryExecModeCacheDescribe} {
		if err := pool.QueryRow(ctx, "INSERT INTO t (v) VALUES (@v) RETURNING id", mode, pgx.NamedArgs{"v": "b"}).Scan(&id); err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
	}
	var n int64
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 6 || id != 6 {
		t.Fatalf("count %d, last id %d, %v", n, id, err)
	}
	// COPY with the id left out.
	var ids pgxseq.Assigned
	cnt, err := pool.CopyFrom(pgxseq.WithAssigned(ctx, &ids), pgx.Identifier{"t"}, []string{"v"}, pgx.CopyFromRows([][]any{{"x"}, {"y"}}))
	if err != nil || cnt != 2 || len(ids.Values) != 2 || ids.Values[0] != 7 || ids.Values[1] != 8 {
		t.Fatalf("copy: %d %v %v", cnt, ids, err)
	}
	// A batch.
	b := &pgx.Batch{}
	b.Queue("INSERT INTO t (v) VALUES ($1)", "z")
	b.Queue("SELECT nextval('s')")
	b.Queue("SELECT currval('t_id_seq')")
	br := pool.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		t.Fatal(err)
	}
	if err := br.QueryRow().Scan(&v); err != nil || v != 2 {
		t.Fatalf("batch nextval %d %v", v, err)
	}
	if err := br.QueryRow().Scan(&v); err != nil || v != 9 {
		t.Fatalf("batch currval %d %v", v, err)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
	// A transaction with DDL, rolled back.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "CREATE SEQUENCE s2")
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "SELECT nextval('s2')"); pgCode(err) != "42P01" {
		t.Fatalf("rolled back sequence: %v", err)
	}
}

// TestNoStore: without a store, the first use fails with the error that
// says how to configure one, never a silent counter.
func TestNoStore(t *testing.T) {
	t.Setenv("SEQSHIM_STORE", "")
	ctx := context.Background()
	pool, err := pgxseq.New(ctx, createDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	_, err = pool.Exec(ctx, "SELECT 1")
	if !errors.Is(err, pgxseq.ErrNoStore) {
		t.Fatalf("first use without a store: %v, want ErrNoStore", err)
	}
	if _, err := pgxseq.Connect(ctx, createDatabase(t)); !errors.Is(err, pgxseq.ErrNoStore) {
		t.Fatalf("Connect without a store: %v, want ErrNoStore", err)
	}
	if _, err := pgxseq.New(ctx, "postgres://h/db?seqshim.nope=1"); err == nil || !strings.Contains(err.Error(), "seqshim.nope") {
		t.Fatalf("an unknown parameter: %v", err)
	}
	if _, err := pgxseq.New(ctx, "postgres://h/db?seqshim.store=memory:&seqshim.dialect=mysql"); err == nil || !strings.Contains(err.Error(), "PostgreSQL only") {
		t.Fatalf("another dialect: %v", err)
	}
}
