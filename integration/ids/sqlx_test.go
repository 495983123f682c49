package ids_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

type account struct {
	ID   int64  `db:"id"`
	Name string `db:"name"`
}

type event struct {
	ID        int64  `db:"id"`
	AccountID int64  `db:"account_id"`
	Kind      string `db:"kind"`
}

type note struct {
	ID   int32          `db:"id"`
	Body sql.NullString `db:"body"`
}

// TestSqlx: plain DDL with bigserial, serial and GENERATED ALWAYS AS
// IDENTITY columns; named queries and named statements with RETURNING,
// batch named inserts, DEFAULT and DEFAULT VALUES, OVERRIDING SYSTEM VALUE
// and OVERRIDING USER VALUE, an explicit value refused by the ALWAYS column
// (428C9, on INSERT and on UPDATE), a rolled-back transaction (its value is
// not handed out again), currval and lastval.
func TestSqlx(t *testing.T) { compare(t, sqlxProgram) }

func sqlxProgram(ctx context.Context, driverName, dsn string, tr *transcript) error {
	// sqlx chooses $1 placeholders by driver name; it does not know seqshim.
	sqlx.BindDriver("seqshim", sqlx.DOLLAR)
	db, err := sqlx.Open(driverName, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one session: currval and lastval are this program's

	for _, ddl := range []string{
		"CREATE TABLE accounts (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE)",
		"CREATE TABLE events (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts, kind text NOT NULL)",
		"CREATE TABLE notes (id serial PRIMARY KEY, body text)",
	} {
		_, err := db.ExecContext(ctx, ddl)
		if !tr.step(ddl, err) {
			return nil
		}
	}
	acc := func(id int64) string { return tr.id("accounts_id_seq", id) }
	evt := func(id int64) string { return tr.id("events_id_seq", id) }
	nt := func(id int32) string { return tr.id("notes_id_seq", int64(id)) }
	rowsAffected := func(what string, res sql.Result, err error) {
		if !tr.step(what, err) {
			return
		}
		n, err := res.RowsAffected()
		tr.check("RowsAffected", err)
		tr.printf("rows affected %d", n)
	}

	// NamedExec without RETURNING: the application does not see the id.
	res, err := db.NamedExecContext(ctx, "INSERT INTO accounts (name) VALUES (:name)", account{Name: "acme"})
	rowsAffected("NamedExec acme", res, err)
	tr.draws("accounts_id_seq", 1)

	// NamedQuery with RETURNING.
	var globex account
	rows, err := db.NamedQueryContext(ctx, "INSERT INTO accounts (name) VALUES (:name) RETURNING id, name", account{Name: "globex"})
	if tr.step("NamedQuery globex", err) {
		for rows.Next() {
			tr.check("StructScan", rows.StructScan(&globex))
			tr.printf("returned %s %s", acc(globex.ID), globex.Name)
		}
		tr.check("rows", rows.Err())
		rows.Close()
	}
	tr.draws("accounts_id_seq", 1)

	// A batch named insert: sqlx writes one VALUES tuple per element.
	batch := []account{{Name: "initech"}, {Name: "umbrella"}, {Name: "hooli"}}
	rows, err = db.NamedQueryContext(ctx, "INSERT INTO accounts (name) VALUES (:name) RETURNING id, name", batch)
	if tr.step("NamedQuery batch", err) {
		for rows.Next() {
			var a account
			tr.check("StructScan", rows.StructScan(&a))
			tr.printf("returned %s %s", acc(a.ID), a.Name)
		}
		tr.check("rows", rows.Err())
		rows.Close()
	}
	tr.draws("accounts_id_seq", 3)
	res, err = db.NamedExecContext(ctx, "INSERT INTO accounts (name) VALUES (:name)", []account{{Name: "stark"}, {Name: "wayne"}})
	rowsAffected("NamedExec batch", res, err)
	tr.draws("accounts_id_seq", 2)

	// DEFAULT written for the column, an explicit id, and both in one
	// statement without parameters.
	var id int64
	if tr.step("DEFAULT", db.GetContext(ctx, &id, "INSERT INTO accounts (id, name) VALUES (DEFAULT, $1) RETURNING id", "soylent")) {
		tr.printf("returned %s", acc(id))
	}
	tr.draws("accounts_id_seq", 1)
	res, err = db.NamedExecContext(ctx, "INSERT INTO accounts (id, name) VALUES (:id, :name)", account{ID: explicitBase + 1, Name: "imported"})
	rowsAffected("NamedExec explicit id", res, err)
	var both []account
	if tr.step("DEFAULT and explicit", db.SelectContext(ctx, &both,
		"INSERT INTO accounts (id, name) VALUES (DEFAULT, 'tyrell'), (1000002, 'cyberdyne') RETURNING id, name")) {
		for _, a := range both {
			tr.printf("returned %s %s", acc(a.ID), a.Name)
		}
	}
	tr.draws("accounts_id_seq", 1)

	// A named statement draws a fresh id at every execution.
	insertEvent, err := db.PrepareNamedContext(ctx, "INSERT INTO events (account_id, kind) VALUES (:account_id, :kind) RETURNING id")
	if tr.step("PrepareNamed", err) {
		for _, kind := range []string{"signup", "login", "logout"} {
			var id int64
			if tr.step("named statement "+kind, insertEvent.GetContext(ctx, &id, event{AccountID: globex.ID, Kind: kind})) {
				tr.printf("returned %s", evt(id))
			}
		}
		insertEvent.Close()
	}
	tr.draws("events_id_seq", 3)

	// GENERATED ALWAYS: an explicit value is refused, and draws nothing...
	_, err = db.NamedExecContext(ctx, "INSERT INTO events (id, account_id, kind) VALUES (:id, :account_id, :kind)",
		event{ID: explicitBase + 1, AccountID: globex.ID, Kind: "forged"})
	tr.fails("explicit id into ALWAYS", err, "428C9")
	// ...unless OVERRIDING SYSTEM VALUE;
	res, err = db.NamedExecContext(ctx, "INSERT INTO events (id, account_id, kind) OVERRIDING SYSTEM VALUE VALUES (:id, :account_id, :kind)",
		event{ID: explicitBase + 1, AccountID: globex.ID, Kind: "migrated"})
	rowsAffected("OVERRIDING SYSTEM VALUE", res, err)
	// DEFAULT is allowed, and OVERRIDING USER VALUE draws in place of the
	// value written.
	if tr.step("DEFAULT into ALWAYS", db.GetContext(ctx, &id,
		"INSERT INTO events (id, account_id, kind) VALUES (DEFAULT, $1, 'ping') RETURNING id", globex.ID)) {
		tr.printf("returned %s", evt(id))
	}
	if tr.step("OVERRIDING USER VALUE", db.GetContext(ctx, &id,
		"INSERT INTO events (id, account_id, kind) OVERRIDING USER VALUE VALUES (5, $1, 'pong') RETURNING id", globex.ID)) {
		tr.printf("returned %s", evt(id))
	}
	tr.draws("events_id_seq", 2)

	// serial: DEFAULT VALUES, then two rows with a value for the other column.
	var n int32
	if tr.step("DEFAULT VALUES", db.GetContext(ctx, &n, "INSERT INTO notes DEFAULT VALUES RETURNING id")) {
		tr.printf("returned %s", nt(n))
	}
	var notes []note
	if tr.step("notes", db.SelectContext(ctx, &notes, "INSERT INTO notes (body) VALUES ($1), ($2) RETURNING id, body", "first", "second")) {
		for _, x := range notes {
			tr.printf("returned %s %s", nt(x.ID), x.Body.String)
		}
	}
	tr.draws("notes_id_seq", 3)

	// currval and lastval in this session.
	for _, q := range []struct{ sql, seq string }{
		{"SELECT currval('accounts_id_seq')", "accounts_id_seq"},
		{"SELECT currval('events_id_seq')", "events_id_seq"},
		{"SELECT currval('notes_id_seq')", "notes_id_seq"},
		{"SELECT lastval()", "notes_id_seq"},
	} {
		var v int64
		if tr.step(q.sql, db.GetContext(ctx, &v, q.sql)) {
			tr.printf("%s = %s", q.sql, tr.id(q.seq, v))
		}
	}

	// A rolled-back transaction does not give its id back: the next
	// insert gets the value after it.
	tx, err := db.BeginTxx(ctx, nil)
	if tr.step("begin", err) {
		var id int64
		if tr.step("insert in tx", tx.GetContext(ctx, &id, "INSERT INTO accounts (name) VALUES ($1) RETURNING id", "rolled back")) {
			tr.printf("returned %s", acc(id))
		}
		tr.step("rollback", tx.Rollback())
	}
	if tr.step("insert after rollback", db.GetContext(ctx, &id, "INSERT INTO accounts (name) VALUES ($1) RETURNING id", "after")) {
		tr.printf("returned %s", acc(id))
	}
	tr.draws("accounts_id_seq", 2)

	// An ALWAYS column cannot be updated to a value either.
	_, err = db.ExecContext(ctx, "UPDATE events SET id = $1 WHERE kind = 'signup'", explicitBase+2)
	tr.fails("UPDATE of ALWAYS", err, "428C9")

	// What the database holds.
	var accounts []account
	tr.step("select accounts", db.SelectContext(ctx, &accounts, "SELECT id, name FROM accounts ORDER BY id"))
	var s []string
	for _, a := range accounts {
		s = append(s, acc(a.ID)+" "+a.Name)
	}
	tr.printf("accounts: [%s]", strings.Join(s, ", "))
	var events []event
	tr.step("select events", db.SelectContext(ctx, &events, "SELECT id, account_id, kind FROM events ORDER BY id"))
	s = nil
	for _, e := range events {
		s = append(s, fmt.Sprintf("%s account %s %s", evt(e.ID), acc(e.AccountID), e.Kind))
	}
	tr.printf("events: [%s]", strings.Join(s, ", "))
	tr.step("select notes", db.SelectContext(ctx, &notes, "SELECT id, body FROM notes ORDER BY id"))
	s = nil
	for _, x := range notes {
		s = append(s, fmt.Sprintf("%s %q", nt(x.ID), x.Body.String))
	}
	tr.printf("notes: [%s]", strings.Join(s, ", "))
	return nil
}
