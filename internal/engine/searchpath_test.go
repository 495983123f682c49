package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

func TestPathSchemas(t *testing.T) {
	for _, tc := range []struct {
		setting, user string
		want          []string
	}{
		{`"$user", public`, "app", []string{"app", "public"}},
		{`"$user", public`, "public", []string{"public"}},
		{"tenant_7, public", "app", []string{"tenant_7", "public"}},
		{`pg_catalog, "T7", pg_temp, public, t7`, "app", []string{"T7", "public", "t7"}},
		{`""`, "app", []string{}},
		{"", "app", []string{}},
		{"not a list", "app", []string{}},
	} {
		if got := pathSchemas(tc.setting, tc.user); !slices.Equal(got, tc.want) {
			t.Errorf("pathSchemas(%q, %q) = %q, want %q", tc.setting, tc.user, got, tc.want)
		}
	}
}

// pathSession is a session on db on a store holding s (public, 1, 2, …)
// and t7.s (from 100).
func pathSession(t *testing.T, db *fakeDB) *Session[AnyArgs] {
	t.Helper()
	s := newSession(t, db)
	spec, pos, _ := sequence.Clauses{Start: sequence.Int64(100)}.Create()
	if err := s.eng.store.Create(context.Background(), "t7.s", spec, pos); err != nil {
		t.Fatal(err)
	}
	return s
}

func nextval(t *testing.T, s *Session[AnyArgs], query string) (int64, error) {
	t.Helper()
	ev, _, err := run(t, s, query)
	if err != nil {
		return 0, err
	}
	v, _, _ := ev.First.Next()
	return v[0], nil
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	cat := &fakeDB{path: "t7, public", user: "app", schemas: []string{"t7", "public"}}
	s := pathSession(t, cat)

	if v, err := nextval(t, s, "SELECT nextval('s')"); err != nil || v != 100 {
		t.Fatalf("nextval('s') on t7, public: %d, %v; want 100", v, err)
	}
	if v, err := nextval(t, s, "SELECT nextval('public.s')"); err != nil || v != 1 {
		t.Fatalf("nextval('public.s'): %d, %v; want 1", v, err)
	}
	if v, err := nextval(t, s, "SELECT currval('s')"); err != nil || v != 100 {
		t.Fatalf("currval('s'): %d, %v; want 100 (t7.s)", v, err)
	}
	if got := len(cat.queries); got != 1 {
		t.Errorf("%d catalog queries, want 1 (the path, once, when the session opened)", got)
	}

	// Resolving costs no allocation once resolved: as many as a qualified
	// name.
	allocs := func(query string) float64 {
		return testing.AllocsPerRun(100, func() {
			if _, err := s.Run(ctx, query, nil, Request{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	if q, u := allocs("SELECT nextval('t7.s')"), allocs("SELECT nextval('s')"); u != q {
		t.Errorf("nextval('s') allocates %v times, nextval('t7.s') %v", u, q)
	}

	// Another session of the engine creates public.u, then this one t7.u:
	// DDL makes resolutions stale.
	if _, _, err := run(t, s, "CREATE SEQUENCE public.u START 5"); err != nil {
		t.Fatal(err)
	}
	if v, err := nextval(t, s, "SELECT nextval('u')"); err != nil || v != 5 {
		t.Fatalf("nextval('u'): %d, %v; want 5 (public.u)", v, err)
	}
	if _, _, err := run(t, s, "CREATE SEQUENCE t7.u START 50"); err != nil {
		t.Fatal(err)
	}
	if v, err := nextval(t, s, "SELECT nextval('u')"); err != nil || v != 50 {
		t.Fatalf("nextval('u') after CREATE SEQUENCE t7.u: %d, %v; want 50", v, err)
	}

	// Dropped behind the session's back (another process): resolved again.
	if err := s.eng.cache.Change(ctx, "t7.u", func(ctx context.Context) error { return s.eng.store.Drop(ctx, "t7.u") }); err != nil {
		t.Fatal(err)
	}
	if v, err := nextval(t, s, "SELECT nextval('u')"); err != nil || v != 6 {
		t.Fatalf("nextval('u') after t7.u was dropped elsewhere: %d, %v; want 6 (public.u)", v, err)
	}

	// A name no schema of the path has: 42P01 as written.
	_, err := nextval(t, s, "SELECT nextval('nope')")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42P01" || pe.Message != `relation "nope" does not exist` {
		t.Errorf("nextval('nope'): %v", err)
	}

	// SET search_path: read again before the next resolution.
	cat.path = "public"
	if _, _, err := run(t, s, "SET search_path TO public"); err != nil {
		t.Fatal(err)
	}
	if v, err := nextval(t, s, "SELECT nextval('s')"); err != nil || v != 2 {
		t.Fatalf("nextval('s') on public: %d, %v; want 2", v, err)
	}
}

// TestNextvalRemembered follows the resolution Session.nextval keeps
// between executions of a call: used while nothing it depends on
// changed, made again after a change, and never the cause of a value
// from the wrong sequence.
func TestNextvalRemembered(t *testing.T) {
	ctx := context.Background()
	cat := &fakeDB{path: "t7, public", user: "app", schemas: []string{"t7", "public"}}
	s := pathSession(t, cat)
	want := func(query string, v int64, seq string) {
		t.Helper()
		got, err := nextval(t, s, query)
		if err != nil || got != v {
			t.Fatalf("%s: %d, %v; want %d", query, got, err, v)
		}
		if seq == "" && s.fast.call != nil || seq != "" && (s.fast.call == nil || s.fast.name != seq) {
			t.Fatalf("%s: remembered %q (%v), want %q", query, s.fast.name, s.fast.call != nil, seq)
		}
	}
	want("SELECT nextval('s')", 100, "t7.s")
	want("SELECT nextval('s')", 101, "t7.s")
	want("SELECT nextval('public.s')", 1, "s") // another call: remembered in its stead
	want("SELECT nextval('s')", 102, "t7.s")

	// DDL of another session of the engine: resolved again.
	other, err := NewSession[AnyArgs](ctx, s.eng, &fakeDB{path: "public", user: "app", schemas: []string{"t7", "public"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, other, "CREATE SEQUENCE t7.x"); err != nil {
		t.Fatal(err)
	}
	gen := s.eng.ddlGen.Load()
	want("SELECT nextval('s')", 103, "t7.s")
	if s.fast.ddlGen != gen {
		t.Errorf("remembered at DDL generation %d, want %d", s.fast.ddlGen, gen)
	}

	// Dropped by another process, which the engine's DDL generation does
	// not see: the draw finds it gone and resolves the name again, and
	// the next execution remembers that.
	if err := s.eng.cache.Change(ctx, "t7.s", func(ctx context.Context) error { return s.eng.store.Drop(ctx, "t7.s") }); err != nil {
		t.Fatal(err)
	}
	want("SELECT nextval('s')", 2, "")
	want("SELECT nextval('s')", 3, "s")
}

func TestResolveTransactionEnd(t *testing.T) {
	cat := &fakeDB{path: "public", user: "app", schemas: []string{"t7", "public"}}
	s := pathSession(t, cat)
	steps := []struct {
		sql  string
		path string // the database's path after sql
		want int64  // nextval('s') after
	}{
		{"BEGIN", "public", 1},
		{"SET search_path TO t7", "t7", 100},
		{"SAVEPOINT a", "t7", 101},
		{"SET search_path TO public", "public", 2},
		{"ROLLBACK TO SAVEPOINT a", "t7", 102},
		{"COMMIT", "t7", 103},
		{"BEGIN", "t7", 104},
		{"SET LOCAL search_path TO public", "public", 3},
		{"COMMIT", "t7", 105},
		{"BEGIN; SET search_path TO public; ROLLBACK", "t7", 106},
		{"SELECT set_config('search_path', 'public', false)", "public", 4},
		{"SET ROLE t7", "public", 5}, // "$user" would change
		{"RESET ALL", "t7", 107},
		{"DISCARD ALL", "public", 6},
	}
	for _, st := range steps {
		if _, _, err := run(t, s, st.sql); err != nil {
			t.Fatalf("%s: %v", st.sql, err)
		}
		cat.path = st.path
		if v, err := nextval(t, s, "SELECT nextval('s')"); err != nil || v != st.want {
			t.Fatalf("after %s: nextval('s') = %d, %v; want %d", st.sql, v, err, st.want)
		}
	}
	if reads := cat.pathReads(); reads > len(steps)+1 {
		t.Errorf("%d reads of the path for %d statements (and the first, when the session opened)", reads, len(steps))
	}
}

func TestCreationSchema(t *testing.T) {
	cat := &fakeDB{path: "nosuch, t7, public", user: "app", schemas: []string{"t7", "public", "pg_catalog"}}
	s := pathSession(t, cat)
	ctx := context.Background()
	for _, tc := range []struct {
		path, sql, want, err string
	}{
		{"nosuch, t7, public", "CREATE SEQUENCE a", "t7.a", ""},
		{"nosuch, t7, public", "CREATE SEQUENCE public.b", "b", ""},
		{"nosuch", "CREATE SEQUENCE c", "", "3F000: no schema has been selected to create in"},
		{"public", "CREATE SEQUENCE nosuch.d", "", `3F000: schema "nosuch" does not exist`},
		{"pg_catalog", "CREATE SEQUENCE pg_catalog.e", "", `42501: permission denied to create "pg_catalog.e"`},
	} {
		cat.path = tc.path
		if _, _, err := run(t, s, "SET search_path TO "+tc.path); err != nil {
			t.Fatal(err)
		}
		_, _, err := run(t, s, tc.sql)
		var pe *pgconn.PgError
		switch {
		case tc.err != "":
			if !errors.As(err, &pe) || !strings.HasPrefix(pe.Code+": "+pe.Message, tc.err) {
				t.Errorf("%s on %s: %v, want %s", tc.sql, tc.path, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s on %s: %v", tc.sql, tc.path, err)
		default:
			if _, err := s.eng.store.Describe(ctx, tc.want); err != nil {
				t.Errorf("%s on %s: %s not created: %v", tc.sql, tc.path, tc.want, err)
			}
		}
	}
}

// TestResolveNoCatalog: the other dialects have no search_path: an
// unqualified name is in public.
func TestResolveNoCatalog(t *testing.T) {
	s := newSession(t, nil, func(c *Config) { c.Dialect = rewrite.SQLite })
	if v, err := nextval(t, s, "SELECT nextval('s')"); err != nil || v != 1 {
		t.Fatalf("nextval('s'): %d, %v", v, err)
	}
}
