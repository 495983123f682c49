// Package sqlc runs sqlc's generated pgx/v5 code (package db, generated
// once from schema.sql and query.sql and committed) through the pgx-native
// front end, pgxseq: the queries a sqlc program runs, :one, :many, :exec,
// :copyfrom and :batchexec, with ids from the store.
package sqlc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/seqshim/seqshim/integration/sqlc/db"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/pgxseq"
)

// freshDB creates an empty database, dropped when the test ends, and
// returns its URL.
func freshDB(t *testing.T) string {
	t.Helper()
	pg := testenv.PG(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	name := "sqlc_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if admin, err := pgx.Connect(ctx, pg); err == nil {
			admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			admin.Close(ctx)
		}
	})
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// TestSqlc: the schema is created through the wrapper (its serial and
// identity columns and its sequence are the store's), then every kind of
// generated query runs through it: ids come from the store, with the
// values PostgreSQL would give, and COPY fills them in.
func TestSqlc(t *testing.T) {
	ctx := context.Background()
	dbURL := freshDB(t)
	schema, err := os.ReadFile("schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxseq.New(ctx, dbURL, func(o *pgxseq.Options) { o.StoreURL = "memory:" + t.Name() })
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, string(schema)); err != nil {
		t.Fatal(err)
	}
	q := db.New(pool)

	// :one with RETURNING *, the id left to its bigserial default.
	a1, err := q.CreateAuthor(ctx, db.CreateAuthorParams{Name: "Ursula", Bio: pgtype.Text{String: "Earthsea", Valid: true}})
	if err != nil || a1.ID != 1 {
		t.Fatalf("CreateAuthor: %+v, %v", a1, err)
	}
	// :copyfrom: the ids are filled from the store, and reported.
	var assigned pgxseq.Assigned
	n, err := q.CreateAuthors(pgxseq.WithAssigned(ctx, &assigned), []db.CreateAuthorsParams{{Name: "Iain"}, {Name: "Octavia"}, {Name: "Stanisław"}})
	if err != nil || n != 3 {
		t.Fatalf("CreateAuthors: %d, %v", n, err)
	}
	if !slices.Equal(assigned.Columns, []string{"id"}) || !slices.Equal(assigned.Values, []int64{2, 3, 4}) {
		t.Fatalf("CreateAuthors assigned %+v, want id 2, 3, 4", assigned)
	}
	// :batchexec: every queued INSERT draws its own id.
	var batchErrs []error
	q.AddAuthors(ctx, []db.AddAuthorsParams{{Name: "Jo"}, {Name: "Ted"}}).Exec(func(_ int, err error) {
		batchErrs = append(batchErrs, err)
	})
	if len(batchErrs) != 2 || errors.Join(batchErrs...) != nil {
		t.Fatalf("AddAuthors: %v", batchErrs)
	}
	authors, err := q.ListAuthors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, a := range authors {
		ids = append(ids, a.ID)
	}
	if !slices.Equal(ids, []int64{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("author ids %v", ids)
	}
	got, err := q.GetAuthor(ctx, 3)
	if err != nil || got.Name != "Octavia" {
		t.Fatalf("GetAuthor(3): %+v, %v", got, err)
	}
	// :batchexec UPDATE.
	q.RenameAuthors(ctx, []db.RenameAuthorsParams{{ID: 5, Name: "Joanna"}}).Exec(func(_ int, err error) {
		if err != nil {
			t.Errorf("RenameAuthors: %v", err)
		}
	})
	// Identity column, :one RETURNING id, and :copyfrom into it.
	b1, err := q.CreateBook(ctx, db.CreateBookParams{AuthorID: 1, Title: "A Wizard of Earthsea"})
	if err != nil || b1 != 1 {
		t.Fatalf("CreateBook: %d, %v", b1, err)
	}
	if n, err := q.CreateBooks(ctx, []db.CreateBooksParams{{AuthorID: 2, Title: "Excession"}, {AuthorID: 3, Title: "Kindred"}}); err != nil || n != 2 {
		t.Fatalf("CreateBooks: %d, %v", n, err)
	}
	if c, err := q.CountBooks(ctx); err != nil || c != 3 {
		t.Fatalf("CountBooks: %d, %v", c, err)
	}
	// :one on a sequence of its own, START 1000.
	for want := int64(1000); want < 1003; want++ {
		if v, err := q.NextInvoiceNo(ctx); err != nil || v != want {
			t.Fatalf("NextInvoiceNo: %d, %v; want %d", v, err, want)
		}
	}
	// In a transaction (sqlc's WithTx takes the wrapper's pgx.Tx): rolled
	// back, the rows go, the ids drawn do not come back, as in PostgreSQL.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a7, err := q.WithTx(tx).CreateAuthor(ctx, db.CreateAuthorParams{Name: "Rolled back"})
	if err != nil || a7.ID != 7 {
		t.Fatalf("CreateAuthor in a transaction: %+v, %v", a7, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	a8, err := q.CreateAuthor(ctx, db.CreateAuthorParams{Name: "After"})
	if err != nil || a8.ID != 8 {
		t.Fatalf("CreateAuthor after the rollback: %+v, %v", a8, err)
	}
	// :exec, and a foreign key error as PostgreSQL's.
	err = q.DeleteAuthor(ctx, 1)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23503" {
		t.Fatalf("DeleteAuthor(1) with a book: %v, want 23503", err)
	}
	if err := q.DeleteAuthor(ctx, 8); err != nil {
		t.Fatal(err)
	}
	// The native default draws from the fenced twin: a writer bypassing
	// seqshim fails rather than collide.
	_, err = pool.Pool().Exec(ctx, "INSERT INTO authors (name) VALUES ('bypass')")
	if !errors.As(err, &pe) || pe.Code != "2200H" {
		t.Fatalf("native INSERT: %v, want 2200H", err)
	}
}
