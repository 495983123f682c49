package ids_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/storeurl"
)

// backfillDDL: a legacy table and the table a backfill copies it into.
var backfillDDL = []string{
	"CREATE TABLE legacy_users (login text PRIMARY KEY)",
	"INSERT INTO legacy_users VALUES ('ann'), ('bob'), ('cy')",
	"CREATE TABLE users (id bigserial PRIMARY KEY, login text NOT NULL)",
}

// TestInsertSelectRefused: INSERT … SELECT that leaves a store-backed id to
// its default needs a value per row, which seqshim does not serve: it fails
// with 0A000 (natively it inserts the rows), inserts nothing and draws
// nothing from the store.
func TestInsertSelectRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	dbURL := freshDB(t)
	store := "memory:ids-" + t.Name() + "-" + randomHex()
	db, err := sql.Open("seqshim", withParam(dbURL, "seqshim.store", store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, ddl := range backfillDDL {
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
	}
	for _, q := range []string{
		"INSERT INTO users (login) SELECT login FROM legacy_users",
		"INSERT INTO users (login) SELECT 'gen' || g FROM generate_series(1, 4) g RETURNING id",
	} {
		_, err := db.ExecContext(ctx, q)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" {
			t.Errorf("%s: %v; want SQLSTATE 0A000", q, err)
		}
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM users").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("users has %d rows after the refused statements, want 0", n)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := storeurl.Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := st.(io.Closer); ok {
		defer c.Close()
	}
	info, err := st.Describe(ctx, "users_id_seq")
	if err != nil {
		t.Fatal(err)
	}
	if info.Position.Called || info.Position.Last != info.Spec.Start {
		t.Errorf("users_id_seq stands at %+v after the refused statements; want nothing drawn", info.Position)
	}
}

// TestInsertSelectWorkaround: what the 0A000 says to do, natively and
// through seqshim alike: draw the ids first with SELECT nextval(…) FROM
// generate_series(1, n), then insert the rows with VALUES.
func TestInsertSelectWorkaround(t *testing.T) { compare(t, backfillProgram) }

func backfillProgram(ctx context.Context, driverName, dsn string, tr *transcript) error {
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, ddl := range backfillDDL {
		_, err := db.ExecContext(ctx, ddl)
		if !tr.step(ddl, err) {
			return nil
		}
	}
	var logins []string
	rows, err := db.QueryContext(ctx, "SELECT login FROM legacy_users ORDER BY login")
	if !tr.step("legacy users", err) {
		return nil
	}
	for rows.Next() {
		var l string
		tr.check("scan", rows.Scan(&l))
		logins = append(logins, l)
	}
	tr.check("rows", rows.Err())
	rows.Close()

	var ids []int64
	rows, err = db.QueryContext(ctx, "SELECT nextval('users_id_seq') FROM generate_series(1, $1::int)", len(logins))
	if !tr.step("draw ids", err) {
		return nil
	}
	for rows.Next() {
		var id int64
		tr.check("scan", rows.Scan(&id))
		ids = append(ids, id)
	}
	tr.check("rows", rows.Err())
	rows.Close()
	tr.draws("users_id_seq", int64(len(ids)))
	if len(ids) != len(logins) {
		tr.printf("drew %d ids for %d rows", len(ids), len(logins))
		return nil
	}

	var values []string
	var args []any
	for i := range logins {
		values = append(values, fmt.Sprintf("($%d, $%d)", 2*i+1, 2*i+2))
		args = append(args, ids[i], logins[i])
	}
	rows, err = db.QueryContext(ctx, "INSERT INTO users (id, login) VALUES "+strings.Join(values, ", ")+" RETURNING id, login", args...)
	if !tr.step("insert", err) {
		return nil
	}
	var s []string
	for rows.Next() {
		var id int64
		var login string
		tr.check("scan", rows.Scan(&id, &login))
		s = append(s, tr.id("users_id_seq", id)+" "+login)
	}
	tr.check("rows", rows.Err())
	rows.Close()
	tr.printf("returned [%s]", strings.Join(s, ", "))

	// And the next row the usual way.
	var id int64
	if tr.step("insert dan", db.QueryRowContext(ctx, "INSERT INTO users (login) VALUES ('dan') RETURNING id").Scan(&id)) {
		tr.printf("returned %s", tr.id("users_id_seq", id))
	}
	tr.draws("users_id_seq", 1)
	return nil
}
