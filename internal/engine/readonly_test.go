package engine

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func code(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func TestReadOnly(t *testing.T) {
	db := &fakeDB{params: map[string]string{"default_transaction_read_only": "off", "in_hot_standby": "off"}, txRO: "off"}
	s := newSession(t, db)
	if _, _, err := run(t, s, "SELECT nextval('s')"); err != nil || db.shows != 0 {
		t.Fatalf("outside a transaction: %v, %d SHOWs", err, db.shows)
	}
	// The server reports a change only in answer to a statement: between
	// statements answered in process, the session reads its reports once.
	reads := db.reads
	if _, _, err := run(t, s, "SELECT nextval('s')"); err != nil || db.reads != reads {
		t.Fatalf("a second statement answered in process: %v, %d more reads of the reports", err, db.reads-reads)
	}
	// A server that reported it is no hot standby is never one while the
	// session lasts: after a round trip, one report is read, not two.
	run(t, s, "SELECT 1")
	if _, _, err := run(t, s, "SELECT nextval('s')"); err != nil || db.reads != reads+1 {
		t.Fatalf("after a round trip: %v, %d reads of the reports, want 1 (default_transaction_read_only)", err, db.reads-reads)
	}
	// The session of a standby (made here by hand: a primary is never
	// demoted under a session).
	db.params["in_hot_standby"] = "on"
	s.primary = false
	run(t, s, "SELECT 1") // whose answer brought the report
	for _, q := range []string{"SELECT nextval('s')", "SELECT setval('s', 5)", "INSERT INTO t VALUES (nextval('s'))", "CREATE SEQUENCE u", "DROP SEQUENCE s"} {
		if _, _, err := run(t, s, q); code(err) != codeReadOnly {
			t.Errorf("on a hot standby, %s: %v, want 25006", q, err)
		}
	}
	if _, _, err := run(t, s, "SELECT nextval('missing')"); code(err) != "42P01" {
		t.Errorf("a missing sequence on a hot standby: %v, want 42P01", err)
	}
	if ev, _, err := run(t, s, "SELECT currval('s'), lastval(), setval('s', NULL)"); err != nil || rowsOf(ev.First) != "[3,3,<nil>]" {
		t.Errorf("currval, lastval and a NULL setval on a hot standby: %v, %v", ev.First, err)
	}
	db.params["in_hot_standby"] = "off"

	// In a transaction block: one SHOW, until a statement may change it.
	db.status = 'T'
	for range 3 {
		if _, _, err := run(t, s, "SELECT nextval('s')"); err != nil {
			t.Fatal(err)
		}
	}
	if db.shows != 1 {
		t.Errorf("%d SHOWs for three statements in one transaction, want 1", db.shows)
	}
	db.txRO = "on"
	run(t, s, "SET TRANSACTION READ ONLY")
	if _, _, err := run(t, s, "SELECT nextval('s')"); code(err) != codeReadOnly || db.shows != 2 {
		t.Errorf("after SET TRANSACTION READ ONLY: %v, %d SHOWs", err, db.shows)
	}
	db.status, db.txRO = 'I', "off"

	// BeginTx tells the mode: no SHOW.
	db.status = 'T'
	s.Begin(true)
	if _, _, err := run(t, s, "SELECT setval('s', 9)"); code(err) != codeReadOnly || db.shows != 2 {
		t.Errorf("after Began(true): %v, %d SHOWs", err, db.shows)
	}
	db.status = 'I'

	// A mode change earlier in the same string cannot be known.
	if _, _, err := run(t, s, "BEGIN READ ONLY; SELECT nextval('s')"); code(err) != "0A000" {
		t.Errorf("BEGIN READ ONLY; nextval: %v, want 0A000", err)
	}
	if _, _, err := run(t, s, "BEGIN; INSERT INTO t VALUES (nextval('s')); COMMIT"); err != nil {
		t.Errorf("BEGIN; INSERT …; COMMIT: %v", err)
	}
}
