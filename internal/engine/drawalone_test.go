package engine

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"sync/atomic"
	"testing"
)

// TestDrawAlone checks the texts Session.drawAlone serves (Statement.draws)
// and that it does what the whole lifecycle does for them, in every state
// it may meet: the same values, text and refusals, the same questions to
// the database in the same order, the same currval and lastval after.
func TestDrawAlone(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		sql   string
		draws bool
	}{
		{"INSERT INTO t VALUES (nextval('s'), $1)", true},
		{"INSERT INTO t (id, v) VALUES (nextval('s'), nextval('public.s'))", true},
		{"UPDATE t SET id = nextval('s') WHERE v = $1", false}, // refused: once per row
		{"INSERT INTO t VALUES (nextval($1))", false},          // the name is an argument's
		{"INSERT INTO t VALUES (currval('s'))", false},
		{"INSERT INTO t VALUES (nextval('s'), lastval())", false},
		{"INSERT INTO t VALUES (nextval('pg_temp.s'))", false},
		{"SELECT nextval('s')", false}, // answered here (alone)
		{"INSERT INTO t VALUES (nextval('s')); SELECT 1", false},
		{"SET search_path TO x; INSERT INTO t VALUES (nextval('s'))", false},
		{"CREATE TABLE u AS SELECT nextval('s')", false},
		{"INSERT INTO t VALUES (1)", false},
	} {
		s := newSession(t, &fakeDB{})
		p, err := s.statement(ctx, tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if p.draws != tc.draws {
			t.Errorf("%s: draws is %v, want %v", tc.sql, p.draws, tc.draws)
		}
	}

	none := []string{"false", "false", "false", "false", "false"}
	identity := []string{"false", "false", "false", "false", "true"}
	states := []struct {
		name string
		db   func() *fakeDB
	}{
		{"ordinary", func() *fakeDB { return &fakeDB{} }},
		{"aborted transaction", func() *fakeDB { return &fakeDB{status: 'E'} }},
		{"read-only default", func() *fakeDB {
			return &fakeDB{params: map[string]string{"default_transaction_read_only": "on"}}
		}},
		{"read-only transaction", func() *fakeDB { return &fakeDB{status: 'T', txRO: "on"} }},
		{"hot standby", func() *fakeDB { return &fakeDB{params: map[string]string{"in_hot_standby": "on"}} }},
		{"no privilege", func() *fakeDB {
			return &fakeDB{params: map[string]string{"is_superuser": "off"}, privs: map[string][]string{`"public"."s"`: none}}
		}},
		{"an identity's sequence", func() *fakeDB {
			return &fakeDB{params: map[string]string{"is_superuser": "off"}, privs: map[string][]string{`"public"."s"`: identity}}
		}},
	}
	texts := []string{
		"INSERT INTO t VALUES (nextval('s'), $1)",
		"INSERT INTO t (id, w, v) VALUES (nextval('s'), nextval('public.s'), $1)",
		"INSERT INTO t VALUES (nextval('missing'), $1)",
	}
	type outcome struct {
		SQL    string
		Bound  bool
		Values []int64
		Err    string
		Seq    state
	}
	do := func(s *Session[AnyArgs], sql string) outcome {
		step, err := s.Run(ctx, sql, AnyArgs{"x"}, Request{Extended: true})
		o := outcome{SQL: step.SQL, Bound: step.Bound, Values: append([]int64(nil), step.Values...)}
		if err == nil && step.SQL != "" {
			err = s.Finish(ctx, &step, nil)
		}
		o.Err, o.Seq = fmt.Sprint(err), s.seq
		return o
	}
	for _, st := range states {
		for _, sql := range texts {
			// counted: the connection counts the server's reports, as
			// pgxseq's do (CountReports), or not, as the database/sql
			// driver's (Session.drawAgain serves a text again on both);
			// on one that counts, a report arrives before the fourth
			// execution, making the default read-only.
			for _, counted := range []bool{false, true} {
				fast, whole := st.db(), st.db()
				a, b := newSession(t, fast), newSession(t, whole)
				if counted {
					a.reports, b.reports = new(atomic.Uint64), new(atomic.Uint64)
				}
				pa, _ := a.statement(ctx, sql)
				pb, _ := b.statement(ctx, sql)
				if !pa.draws {
					t.Fatalf("%s: not served by drawAlone", sql)
				}
				pb.draws = false   // the whole lifecycle
				for i := range 5 { // the first resolves the name, the others remember it
					if counted && i == 3 {
						for _, db := range []*fakeDB{fast, whole} {
							db.params = maps.Clone(db.params)
							if db.params == nil {
								db.params = map[string]string{}
							}
							db.params["default_transaction_read_only"] = "on"
						}
						a.reports.Add(1)
						b.reports.Add(1)
					}
					oa, ob := do(a, sql), do(b, sql)
					if !reflect.DeepEqual(oa, ob) {
						t.Errorf("%s, %s, counted %v, execution %d:\ndrawAlone      %+v\nthe lifecycle  %+v", st.name, sql, counted, i+1, oa, ob)
					}
				}
				if !reflect.DeepEqual(fast.queries, whole.queries) || fast.reads != whole.reads || fast.shows != whole.shows {
					t.Errorf("%s, %s, counted %v: drawAlone asked the database %q (%d reads of its reports), the lifecycle %q (%d)",
						st.name, sql, counted, fast.queries, fast.reads, whole.queries, whole.reads)
				}
			}
		}
	}
}

// TestDrawAgain checks that Session.drawAgain serves an INSERT drawing its
// id again in an ordinary session, on a connection that counts reports or
// not, and does nothing where it does not apply (TestDrawAlone compares
// what it serves with the whole lifecycle).
func TestDrawAgain(t *testing.T) {
	ctx := context.Background()
	const sql = "INSERT INTO t VALUES (nextval('s'), $1)"
	again := func(s *Session[AnyArgs]) (Step, bool) {
		t.Helper()
		var step Step
		ok, err := s.drawAgain(ctx, sql, s.lastPlan, Request{Extended: true}, &step)
		if err != nil {
			t.Fatal(err)
		}
		return step, ok
	}
	run := func(s *Session[AnyArgs]) {
		t.Helper()
		step, err := s.Run(ctx, sql, AnyArgs{"x"}, Request{Extended: true})
		if err == nil {
			err = s.Finish(ctx, &step, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
	}

	for _, counted := range []bool{true, false} {
		s := newSession(t, &fakeDB{})
		if counted {
			s.reports = new(atomic.Uint64)
		}
		run(s)
		run(s)
		step, ok := again(s)
		if !ok || step.SQL != s.lastPlan.bound || !step.Bound || !step.hot || len(step.Values) != 1 {
			t.Fatalf("counted %v: drawAgain: %v, %+v", counted, ok, step)
		}
		if err := s.Finish(ctx, &step, nil); err != nil {
			t.Fatal(err)
		}
		if e, ok := s.seq.currval(s.fast.name); !ok || e.v != step.Values[0] {
			t.Errorf("counted %v: currval of %s is %d (%v) after drawAgain drew %d", counted, s.fast.name, e.v, ok, step.Values[0])
		}
	}

	for name, prep := range map[string]func(s *Session[AnyArgs]){
		"read-only by default": func(s *Session[AnyArgs]) {
			s.db.(*fakeDB).params = map[string]string{"default_transaction_read_only": "on"}
			s.reports.Add(1)
		},
		"sequence DDL":          func(s *Session[AnyArgs]) { s.eng.ddlGen.Add(1) },
		"search_path changed":   func(s *Session[AnyArgs]) { s.path.changes++ },
		"in a transaction":      func(s *Session[AnyArgs]) { s.db.(*fakeDB).status = 'T' },
		"aborted transaction":   func(s *Session[AnyArgs]) { s.db.(*fakeDB).status = 'E' },
		"temporary relations":   func(s *Session[AnyArgs]) { s.temps.maybe = true },
		"another text last":     func(s *Session[AnyArgs]) { s.fast.call = nil },
		"relations redefined":   func(s *Session[AnyArgs]) { s.eng.relGen.Add(1) },
		"membership not proved": func(s *Session[AnyArgs]) { s.hereHandle = nil },
	} {
		s := newSession(t, &fakeDB{db: "db1"})
		s.reports = new(atomic.Uint64)
		run(s)
		run(s)
		prep(s)
		if step, ok := again(s); ok {
			t.Errorf("%s: drawAgain served %+v", name, step)
		}
	}
}
