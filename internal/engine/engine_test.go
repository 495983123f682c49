package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// newSession returns a session of a new engine on a memory store holding
// sequence s (1, 2, 3, …), on db (nil: a fakeDB outside a transaction).
func newSession(t testing.TB, db DB, optFns ...func(*Config)) *Session[AnyArgs] {
	t.Helper()
	ctx := context.Background()
	st := memstore.New()
	spec, pos, _ := sequence.Clauses{}.Create()
	if err := st.Create(ctx, "s", spec, pos); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Store: st, Dialect: rewrite.Postgres}
	for _, fn := range optFns {
		fn(&cfg)
	}
	e, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if db == nil {
		db = &fakeDB{}
	}
	s, err := NewSession[AnyArgs](ctx, e, db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// result is what a statement's lifecycle gave: its rows when answered
// here, whether it was sent, the values of its calls.
type result struct {
	First        *Rows
	Send         bool
	RowsAffected int64
	Values       []int64
}

// run runs query's lifecycle as a front end's Query by the simple
// protocol would, the database answering every statement sent with
// success, and returns the text sent.
func run(t testing.TB, s *Session[AnyArgs], query string, args ...any) (result, string, error) {
	t.Helper()
	ctx := context.Background()
	step, err := s.Run(ctx, query, args, Request{Rows: true})
	r := result{First: step.Rows, Send: step.SQL != "", RowsAffected: step.RowsAffected, Values: step.Values}
	if err != nil || step.SQL == "" {
		return r, "", err
	}
	return r, step.SQL, s.Finish(ctx, &step, nil)
}

// rowsOf reads rows as text, NULL as <nil>.
func rowsOf(r *Rows) string {
	var out []string
	for {
		values, nulls, ok := r.Next()
		if !ok {
			return strings.Join(out, " ")
		}
		row := make([]string, len(values))
		for i, v := range values {
			row[i] = fmt.Sprint(v)
			if nulls != nil && nulls[i] {
				row[i] = "<nil>"
			}
		}
		out = append(out, "["+strings.Join(row, ",")+"]")
	}
}

func TestLocal(t *testing.T) {
	s := newSession(t, nil)
	ev, sql, err := run(t, s, "SELECT nextval('s') AS a, nextval($1) AS b, currval('s')", nil)
	if err != nil || ev.Send || ev.First == nil || sql != "" {
		t.Fatalf("ev %+v, sql %q, err %v", ev, sql, err)
	}
	if got := strings.Join(ev.First.Columns(), ","); got != "a,b,currval" {
		t.Errorf("columns %s", got)
	}
	if got := rowsOf(ev.First); got != "[1,<nil>,1]" || ev.RowsAffected != 1 || ev.First.TypeName(0) != "INT8" {
		t.Errorf("rows %s, RowsAffected %d, type %s", got, ev.RowsAffected, ev.First.TypeName(0))
	}
	ev, _, _ = run(t, s, "SELECT nextval('s') FROM generate_series(1, $1)", int64(3))
	if got := rowsOf(ev.First); got != "[2] [3] [4]" {
		t.Errorf("series rows %s", got)
	}
}

func TestRender(t *testing.T) {
	s := newSession(t, nil, func(c *Config) { c.DDLToDatabase = true })
	ctx := context.Background()
	q := "INSERT INTO t VALUES (nextval('s'), $1)"
	for want := int64(1); want <= 2; want++ {
		step, err := s.Run(ctx, q, AnyArgs{"x"}, Request{Extended: true})
		if err != nil || len(step.Values) != 1 || step.Values[0] != want {
			t.Fatalf("step %+v, err %v; want value %d", step, err, want)
		}
		if step.SQL != "INSERT INTO t VALUES (($2::int8), $1)" || !step.Bound || step.AsIs || step.NumParams() != 1 {
			t.Errorf("SQL %q, bound %v, as is %v, %d parameters", step.SQL, step.Bound, step.AsIs, step.NumParams())
		}
		if err := s.Finish(ctx, &step, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Without parameters, values are inlined; with seqshim.ddl=both, the
	// DDL is sent too.
	_, sql, err := run(t, s, "CREATE SEQUENCE u; INSERT INTO t VALUES (nextval('u'))")
	if err != nil || sql != "CREATE SEQUENCE u; INSERT INTO t VALUES ((1::int8))" {
		t.Errorf("sql %q, err %v", sql, err)
	}
}

func TestErrors(t *testing.T) {
	s := newSession(t, nil)
	for _, tc := range []struct{ query, code string }{
		{"SELECT nextval('missing')", "42P01"},
		{"SELECT currval('s')", "55000"},
		{"UPDATE t SET a = nextval('s')", "0A000"},
		{"SELECT setval('s', 0)", "22003"},
		{"CREATE SEQUENCE s", "42P07"},
		{"SELECT nextval('s'), lastval()", ""},
	} {
		query, code := tc.query, tc.code
		_, _, err := run(t, s, query)
		var pe *pgconn.PgError
		if code == "" && err != nil || code != "" && (!errors.As(err, &pe) || pe.Code != code) {
			t.Errorf("%s: %v, want %q", query, err, code)
		}
	}
}

func TestFailAbortsTransaction(t *testing.T) {
	db := &fakeDB{}
	s := newSession(t, db)
	if _, _, err := run(t, s, "SELECT currval('s')"); err == nil || len(db.sent) != 0 {
		t.Fatalf("outside a transaction: err %v, sent %q", err, db.sent)
	}
	db.status = 'T'
	_, _, err := run(t, s, "SELECT currval('s')")
	if len(db.sent) != 1 || !strings.Contains(db.sent[0], "ERRCODE = '55000'") || !strings.Contains(db.sent[0], "is not yet defined in this session") {
		t.Fatalf("err %v, sent %q", err, db.sent)
	}
	// The transaction has failed: nothing is drawn, 25P02.
	_, _, err = run(t, s, "SELECT nextval('s')")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != codeInFailedTransaction || len(db.sent) != 1 {
		t.Fatalf("in a failed transaction: %v, sent %q", err, db.sent)
	}
	db.status = 'I'
	if ev, _, _ := run(t, s, "SELECT nextval('s')"); rowsOf(ev.First) != "[1]" {
		t.Errorf("after the failed transaction: %+v", ev)
	}
}

func TestDiscard(t *testing.T) {
	s := newSession(t, nil)
	run(t, s, "SELECT nextval('s')")
	_, _, err := run(t, s, "SELECT 1; DISCARD SEQUENCES; SELECT nextval('s')")
	if err != nil {
		t.Fatal(err)
	}
	// The Local first statement drew 2 before DISCARD ran in the database.
	if _, _, err := run(t, s, "SELECT lastval()"); err == nil {
		t.Errorf("lastval after DISCARD SEQUENCES: no error")
	}
}

// TestHotPathAllocations: drawing a value for a statement seen before and
// rendering it with bound values allocates nothing.
func TestHotPathAllocations(t *testing.T) {
	s := newSession(t, nil)
	ctx := context.Background()
	q := "INSERT INTO t VALUES (nextval('s'), $1)"
	args := AnyArgs{"x"}
	run(t, s, q, args...)
	allocs := testing.AllocsPerRun(100, func() {
		step, err := s.Run(ctx, q, args, Request{Extended: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(ctx, &step, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per statement, want 0", allocs)
	}
}

func BenchmarkRunRewrite(b *testing.B) {
	s := newSession(b, nil)
	ctx := context.Background()
	q := "INSERT INTO t VALUES (nextval('s'), $1)"
	args := AnyArgs{"x"}
	b.ReportAllocs()
	for b.Loop() {
		step, err := s.Run(ctx, q, args, Request{Extended: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Finish(ctx, &step, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// A session's memo of texts stays bounded whatever texts it sees: texts
// seen once (values written in) are dropped in bulk past maxPlanBytes, and
// a text longer than maxPlanText is not kept, yet served as any other.
func TestPlanMemoBounded(t *testing.T) {
	s := newSession(t, nil)
	filler := strings.Repeat("x", 10<<10)
	for i := range 300 { // 3 MB of distinct pass-through texts
		if _, _, err := run(t, s, fmt.Sprintf("SELECT %d, '%s'", i, filler)); err != nil {
			t.Fatal(err)
		}
		kept := 0
		for q := range s.plans {
			kept += len(q)
		}
		if kept > maxPlanBytes || len(s.plans) > maxPlans {
			t.Fatalf("after %d texts: %d texts of %d bytes kept, want at most %d of %d", i+1, len(s.plans), kept, maxPlans, maxPlanBytes)
		}
	}
	long := "SELECT nextval('s') /* " + strings.Repeat("y", maxPlanText) + " */"
	for want := int64(1); want <= 2; want++ {
		ev, sql, err := run(t, s, long)
		if err != nil || ev.Send || rowsOf(ev.First) != fmt.Sprintf("[%d]", want) {
			t.Fatalf("a long text: %v, %d bytes to send, %v; want [%d] answered here", rowsOf(ev.First), len(sql), err, want)
		}
		if _, kept := s.plans[long]; kept {
			t.Fatal("a text longer than maxPlanText was kept")
		}
	}
	if v, err := s.eng.cache.Next(context.Background(), "s"); err != nil || v != 3 {
		t.Errorf("next value after the long texts: %d, %v; want 3 (each drew one)", v, err)
	}
}
