package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestOtherSessionDDL: sequence DDL of one session of the process changes
// what currval and lastval mean in another, as PostgreSQL's OID-keyed state
// does.
func TestOtherSessionDDL(t *testing.T) {
	a := newSession(t, nil)
	b, err := NewSession[AnyArgs](context.Background(), a.Engine(), &fakeDB{})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		s          *Session[AnyArgs]
		query      string
		rows, code string
	}{
		{a, "SELECT nextval('s')", "[1]", ""},
		{b, "DROP SEQUENCE s", "", ""},
		{a, "SELECT currval('s')", "", "42P01"},
		{a, "SELECT lastval()", "", "55000"},
		{b, "CREATE SEQUENCE s", "", ""},
		{a, "SELECT currval('s')", "", "55000"},
		{a, "SELECT nextval('s'), currval('s'), lastval()", "[1,1,1]", ""},
		{b, "ALTER SEQUENCE s RENAME TO r", "", ""},
		{a, "SELECT currval('s')", "", "42P01"},
		{a, "SELECT currval('r'), lastval()", "[1,1]", ""},
		{b, "ALTER SEQUENCE r RENAME TO q", "", ""},
		{a, "SELECT lastval()", "[1]", ""},
		{a, "SELECT currval('q')", "[1]", ""},
	}
	for i, st := range steps {
		ev, _, err := run(t, st.s, st.query)
		var pe *pgconn.PgError
		switch {
		case st.code != "" && (!errors.As(err, &pe) || pe.Code != st.code):
			t.Fatalf("step %d %s: %v, want %s", i, st.query, err, st.code)
		case st.code == "" && err != nil:
			t.Fatalf("step %d %s: %v", i, st.query, err)
		case st.rows != "" && rowsOf(ev.First) != st.rows:
			t.Fatalf("step %d %s: rows %s, want %s", i, st.query, rowsOf(ev.First), st.rows)
		}
	}
}
