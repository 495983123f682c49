package engine

import (
	"context"
	"fmt"
	"reflect"
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
			fast, whole := st.db(), st.db()
			a, b := newSession(t, fast), newSession(t, whole)
			pa, _ := a.statement(ctx, sql)
			pb, _ := b.statement(ctx, sql)
			if !pa.draws {
				t.Fatalf("%s: not served by drawAlone", sql)
			}
			pb.draws = false   // the whole lifecycle
			for i := range 3 { // the first resolves the name, the others remember it
				oa, ob := do(a, sql), do(b, sql)
				if !reflect.DeepEqual(oa, ob) {
					t.Errorf("%s, %s, execution %d:\ndrawAlone      %+v\nthe lifecycle  %+v", st.name, sql, i+1, oa, ob)
				}
			}
			if !reflect.DeepEqual(fast.queries, whole.queries) || fast.reads != whole.reads || fast.shows != whole.shows {
				t.Errorf("%s, %s: drawAlone asked the database %q (%d reads of its reports), the lifecycle %q (%d)",
					st.name, sql, fast.queries, fast.reads, whole.queries, whole.reads)
			}
		}
	}
}
