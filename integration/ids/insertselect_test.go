package ids_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// TestInsertSelect: INSERT … SELECT into a table with a bigserial key, as
// a backfill or a hand-written data migration does: every row draws its own
// id (PostgreSQL evaluates the default once per row), also when the rows
// come from another table; RETURNING gives them back.
func TestInsertSelect(t *testing.T) { compare(t, insertSelectProgram) }

func insertSelectProgram(ctx context.Context, driverName, dsn string, tr *transcript) error {
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	for _, ddl := range []string{
		"CREATE TABLE legacy_users (login text PRIMARY KEY)",
		"INSERT INTO legacy_users VALUES ('ann'), ('bob'), ('cy')",
		"CREATE TABLE users (id bigserial PRIMARY KEY, login text NOT NULL)",
	} {
		_, err := db.ExecContext(ctx, ddl)
		if !tr.step(ddl, err) {
			return nil
		}
	}
	returning := func(what, query string, args ...any) {
		rows, err := db.QueryContext(ctx, query, args...)
		if !tr.step(what, err) {
			return
		}
		defer rows.Close()
		var s []string
		for rows.Next() {
			var id int64
			var login string
			tr.check("scan", rows.Scan(&id, &login))
			s = append(s, fmt.Sprintf("%s %s", tr.id("users_id_seq", id), login))
		}
		tr.check("rows", rows.Err())
		tr.printf("returned [%s]", strings.Join(s, ", "))
	}
	returning("INSERT SELECT FROM a table",
		"INSERT INTO users (login) SELECT login FROM legacy_users ORDER BY login RETURNING id, login")
	tr.draws("users_id_seq", 3)
	returning("INSERT SELECT FROM generate_series",
		"INSERT INTO users (login) SELECT 'gen' || g FROM generate_series(1, $1::int) g RETURNING id, login", 4)
	tr.draws("users_id_seq", 4)
	returning("select", "SELECT id, login FROM users ORDER BY id")
	return nil
}
