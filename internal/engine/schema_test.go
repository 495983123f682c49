package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/sequence"
)

func TestSchemaDrop(t *testing.T) {
	ctx := context.Background()
	db := &fakeDB{path: `"$user", public`, user: "app", schemas: []string{"public", "t7", "t8"}}
	s := newSession(t, db)
	spec, pos, _ := sequence.Clauses{}.Create()
	for _, n := range []string{"t7.a", "t7.b", "t8.c"} {
		if err := s.eng.store.Create(ctx, n, spec, pos); err != nil {
			t.Fatal(err)
		}
	}
	code := func(err error) string {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code
		}
		return ""
	}
	exists := func(name string) bool {
		_, err := s.eng.store.Describe(ctx, name)
		return err == nil
	}

	for _, tc := range []struct {
		sql    string
		status byte
		code   string
	}{
		{"DROP SCHEMA t7", 'I', "2BP01"},
		{"DROP SCHEMA t7 CASCADE; SELECT 1", 'I', "0A000"},
		{"DROP SCHEMA t7 CASCADE", 'T', "0A000"},
		{"DROP SCHEMA other", 'I', ""},
		{"ALTER SCHEMA t7 RENAME TO t9", 'I', "0A000"},
		{"ALTER SCHEMA other RENAME TO t9", 'I', ""},
	} {
		db.status = tc.status
		if _, _, err := run(t, s, tc.sql); code(err) != tc.code {
			t.Errorf("%s (status %c): %v, want %s", tc.sql, tc.status, err, tc.code)
		}
	}
	db.status = 'I'

	// The database failed: nothing is dropped from the store.
	db.fail = map[string]error{"DROP SCHEMA t7 CASCADE": &pgconn.PgError{Code: "42501", Message: "must be owner of schema t7"}}
	if _, _, err := run(t, s, "DROP SCHEMA t7 CASCADE"); code(err) != "42501" || !exists("t7.a") {
		t.Fatalf("the database failed: %v, t7.a exists %v, sent %q", err, exists("t7.a"), db.sent)
	}
	db.fail = nil

	// The database dropped the schema (sent once, by the session itself):
	// so does the store, only that one.
	sent := len(db.sent)
	if r, sql, err := run(t, s, "DROP SCHEMA t7 CASCADE"); err != nil || r.Send || sql != "" {
		t.Fatalf("%+v, %q, %v; want it run by the session", r, sql, err)
	}
	if len(db.sent) != sent+1 || db.sent[sent] != "DROP SCHEMA t7 CASCADE" {
		t.Errorf("sent %q", db.sent[sent:])
	}
	if exists("t7.a") || exists("t7.b") || !exists("t8.c") || !exists("s") {
		t.Errorf("after DROP SCHEMA t7 CASCADE: t7.a %v, t7.b %v, t8.c %v, s %v; want only t8.c and s",
			exists("t7.a"), exists("t7.b"), exists("t8.c"), exists("s"))
	}
}
