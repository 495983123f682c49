package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

// What PostgreSQL accepts on a sequence but seqshim cannot do on a store
// sequence fails with a 0A000 that says so; names of the database's own
// relations get PostgreSQL's answers. (The forms PostgreSQL and seqshim
// answer alike are conformance scenarios 90-94.)
func TestPGCatalog(t *testing.T) {
	ctx := context.Background()
	pc, err := pgx.Connect(ctx, testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	// Temporary relations, private to this connection, made around the
	// session (which does not know them as its own: see temp.go), found
	// by to_regclass as PostgreSQL finds a name without a schema; and a
	// table of the database, for a name to create in public.
	perm := fmt.Sprintf("catalog_%d", time.Now().UnixNano())
	// public.tt, made below, is the fenced twin of a store sequence of the
	// test's own store: none of an earlier run's may be left.
	for _, q := range []string{"DROP SEQUENCE IF EXISTS public.tt", "CREATE TEMP TABLE tt (a int)", "CREATE TEMP SEQUENCE dbseq", "CREATE TABLE " + perm + " (a int)"} {
		if _, err := pc.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { _, _ = pc.Exec(context.Background(), "DROP TABLE "+perm+"; DROP SEQUENCE IF EXISTS public.tt") }()
	s := newSession(t, PgConn(pc.PgConn()))
	tests := []struct {
		query, code, prefix string
	}{
		{"ALTER TABLE s OWNER TO CURRENT_USER", "0A000", "seqshim: ALTER TABLE … OWNER TO is not supported"},
		{"ALTER TABLE IF EXISTS s SET SCHEMA other", "3F000", `schema "other" does not exist`},
		{"ALTER SEQUENCE s SET SCHEMA pg_catalog", "0A000", "seqshim: a store sequence cannot move into pg_catalog"},
		{"ALTER SEQUENCE s SET LOGGED, SET UNLOGGED", "0A000", "seqshim: ALTER SEQUENCE with several subcommands is not supported"},
		{"COMMENT ON SEQUENCE s IS 'x'", "0A000", `seqshim: COMMENT on "s" is not supported`},
		{"GRANT USAGE, SELECT ON SEQUENCE public.s TO PUBLIC", "0A000", `seqshim: GRANT on "s" is not supported`},
		{"REVOKE ALL ON SEQUENCE s FROM PUBLIC", "0A000", `seqshim: REVOKE on "s" is not supported`},
		{"SELECT nextval('dbseq')", "0A000", `seqshim: "dbseq" is a sequence of the database`},
		{"SELECT nextval('tt')", "42809", `"tt" is not a sequence`},
		{"ALTER SEQUENCE IF EXISTS tt RESTART", "42809", `"tt" is not a sequence`},
		{"CREATE SEQUENCE " + perm, "42P07", `relation "` + perm + `" already exists`},
		{"CREATE SEQUENCE o OWNED BY tt.a", "55000", "sequence must be in same schema as table it is linked to"},
	}
	for _, tt := range tests {
		_, _, err := run(t, s, tt.query)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tt.code || !strings.HasPrefix(pe.Message, tt.prefix) {
			t.Errorf("%s: %v; want %s %q…", tt.query, err, tt.code, tt.prefix)
		}
	}

	// RENAME TO of a store sequence is served: nothing goes to the database.
	ev, sql, err := run(t, s, "ALTER TABLE s RENAME TO s2")
	if err != nil || ev.Send || sql != "" {
		t.Fatalf("ALTER TABLE s RENAME TO s2: send %v %q, %v; want served", ev.Send, sql, err)
	}
	if _, err := s.eng.store.Describe(ctx, "s2"); err != nil {
		t.Errorf("after the rename: %v", err)
	}
	// So is SET UNLOGGED: the store is durable, nothing changes.
	ev, sql, err = run(t, s, "ALTER TABLE s2 SET UNLOGGED")
	if err != nil || ev.Send || sql != "" {
		t.Fatalf("ALTER TABLE s2 SET UNLOGGED: send %v %q, %v; want served", ev.Send, sql, err)
	}
	// CREATE SEQUENCE creates in public, where a temporary relation of the
	// name is not.
	if _, _, err := run(t, s, "CREATE SEQUENCE tt"); err != nil {
		t.Errorf("CREATE SEQUENCE tt beside a temporary tt: %v", err)
	}
	// A table's ALTER TABLE goes to the database as written.
	ev, sql, err = run(t, s, "ALTER TABLE tt RENAME TO tt2")
	if err != nil || !ev.Send || sql != "ALTER TABLE tt RENAME TO tt2" {
		t.Errorf("ALTER TABLE tt RENAME TO tt2: send %v %q, %v; want it sent as is", ev.Send, sql, err)
	}
}

func TestOwnerRef(t *testing.T) {
	ref := ownerRef("my/db", "5", "16384", "-3")
	db, rel, att, ok := parseOwnerRef(ref)
	if !ok || db != "my/db/5" || rel != 16384 || att != -3 {
		t.Errorf("parseOwnerRef(%q) = %q %d %d %v", ref, db, rel, att, ok)
	}
	for _, bad := range []string{"", "public.t.c", "pg:db/1/x/2", "pg:16384"} {
		if _, _, _, ok := parseOwnerRef(bad); ok {
			t.Errorf("parseOwnerRef(%q) accepted", bad)
		}
	}
}

func TestSplitQuoted(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"t.c", []string{"t", "c"}},
		{`public."T"."a.b"`, []string{"public", "T", "a.b"}},
		{`"x""y".c`, []string{`x"y`, "c"}},
		{`"open.c`, nil},
		{`"a"b.c`, nil},
	}
	for _, tt := range tests {
		got, ok := splitQuoted(tt.in)
		if ok != (tt.want != nil) || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("splitQuoted(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	// What the rewrite package writes reads back.
	parts := []string{"Sch ema", `ta"ble`, "col"}
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = sequence.QuoteIdent(p)
	}
	if got, ok := splitQuoted(strings.Join(quoted, ".")); !ok || strings.Join(got, "|") != strings.Join(parts, "|") {
		t.Errorf("round trip of %q: %q", parts, got)
	}
}

// TestDatabaseErrorSees: the database's 42P01 about a store sequence
// becomes a 0A000 saying why, but not when this session does not see the
// sequence: its transaction dropped it, and PostgreSQL is right.
func TestDatabaseErrorSees(t *testing.T) {
	ctx := context.Background()
	db := &fakeDB{}
	s := newSession(t, db)
	missing := &pgconn.PgError{Code: "42P01", Message: `relation "s" does not exist`}
	if err := s.DatabaseError(ctx, missing); code(err) != "0A000" {
		t.Errorf("store sequence s: %v, want 0A000", err)
	}
	db.status = 'T'
	s.Begin(false)
	if _, _, err := run(t, s, "DROP SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	if err := s.DatabaseError(ctx, missing); err != missing {
		t.Errorf("s dropped in the transaction: %v, want the database's 42P01", err)
	}
	other := &pgconn.PgError{Code: "42P01", Message: `relation "t" does not exist`}
	if err := s.DatabaseError(ctx, other); err != other {
		t.Errorf("no store sequence t: %v, want the database's 42P01", err)
	}
}
