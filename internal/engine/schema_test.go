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
	db := &fakeConn{status: 'I'}
	s := newSession(t, db)
	spec, pos, _ := sequence.Clauses{}.Create()
	for _, n := range []string{"t7.a", "t7.b", "t8.c"} {
		if err := s.eng.store.Create(ctx, n, spec, pos); err != nil {
			t.Fatal(err)
		}
	}
	s.SetCatalog(&catalog{path: `"$user", public`, user: "app", schemas: []string{"public", "t7", "t8"}})
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
		if _, err := s.Plan(ctx, tc.sql); code(err) != tc.code {
			t.Errorf("%s (status %c): %v, want %s", tc.sql, tc.status, err, tc.code)
		}
	}
	db.status = 'I'

	// The database failed: nothing is dropped from the store.
	if _, err := s.Plan(ctx, "DROP SCHEMA t7 CASCADE"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Plan(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if err := s.AfterDatabase(ctx, "SELECT 1"); err != nil || !exists("t7.a") {
		t.Fatalf("after another statement: %v, t7.a exists %v", err, exists("t7.a"))
	}

	// The database dropped the schema: so does the store, only that one.
	if _, err := s.Plan(ctx, "DROP SCHEMA t7 CASCADE"); err != nil {
		t.Fatal(err)
	}
	if err := s.AfterDatabase(ctx, "DROP SCHEMA t7 CASCADE"); err != nil {
		t.Fatal(err)
	}
	if exists("t7.a") || exists("t7.b") || !exists("t8.c") || !exists("s") {
		t.Errorf("after DROP SCHEMA t7 CASCADE: t7.a %v, t7.b %v, t8.c %v, s %v; want only t8.c and s",
			exists("t7.a"), exists("t7.b"), exists("t8.c"), exists("s"))
	}
}
