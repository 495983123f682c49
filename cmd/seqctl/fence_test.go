package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// drain calls the native nextval until it fails (at most limit times) and
// returns the values it gave and the SQLSTATE of the failure.
func drain(t *testing.T, conn *pgx.Conn, seq string, limit int) ([]int64, string) {
	t.Helper()
	var vals []int64
	for range limit {
		var v int64
		err := conn.QueryRow(context.Background(), "SELECT nextval('"+seq+"')").Scan(&v)
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return vals, pe.Code
		}
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	return vals, ""
}

func nativeBounds(t *testing.T, conn *pgx.Conn, schema, seq string) (lo, hi int64, cycle bool) {
	t.Helper()
	err := conn.QueryRow(context.Background(), "SELECT min_value, max_value, cycle FROM pg_sequences WHERE schemaname = $1 AND sequencename = $2",
		schema, seq).Scan(&lo, &hi, &cycle)
	if err != nil {
		t.Fatal(err)
	}
	return lo, hi, cycle
}

func TestFence(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		conn, pgURL, sch := pgSchema(t)
		pgExec(t, conn,
			"CREATE SEQUENCE "+sch+".up CACHE 5",
			"SELECT setval('"+sch+".up', 100)",
			"CREATE SEQUENCE "+sch+".down INCREMENT -1",
			"SELECT setval('"+sch+".down', -100)",
			"CREATE SEQUENCE "+sch+".ring MAXVALUE 1000 CYCLE",
			"SELECT setval('"+sch+".ring', 10)",
			"CREATE SEQUENCE "+sch+".native_only",
		)
		ts.ok("import", "--from", pgURL, "--schema", sch, "--sample", "0", "--margin", "10",
			sch+".up", sch+".down", sch+".ring")
		fence := []string{"fence", "--from", pgURL, "--schema", sch}

		out := ts.ok(append(fence, "--dry-run")...)
		for _, want := range []string{
			`fence: ALTER SEQUENCE "` + sch + `"."up" MAXVALUE 110 NO CYCLE`,
			`fence: ALTER SEQUENCE "` + sch + `"."down" MINVALUE -110 NO CYCLE`,
			`fence: ALTER SEQUENCE "` + sch + `"."ring" MAXVALUE 20 NO CYCLE`,
			"skip: no counter in the store",
			"dry run: nothing altered",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("fence --dry-run does not contain %q:\n%s", want, out)
			}
		}
		if _, hi, _ := nativeBounds(t, conn, sch, "up"); hi != 9223372036854775807 {
			t.Fatalf("dry run altered the native sequence: MAXVALUE %d", hi)
		}

		var plan []fenceItem
		decode(t, ts.ok(append(fence, "-o", "json")...), &plan)
		fenced := 0
		for _, it := range plan {
			if it.Action == "fenced" {
				fenced++
			}
		}
		if fenced != 3 {
			t.Errorf("fence: %+v", plan)
		}

		// After fencing, no native value lies inside the store's range:
		// nextval fails with 2200H before reaching it.
		for _, seq := range []string{"up", "down", "ring"} {
			c := ts.describe(sch + "." + seq)
			start := *c.NextValue
			vals, code := drain(t, conn, sch+"."+seq, 100)
			if code != "2200H" {
				t.Errorf("%s: native nextval did not fail with 2200H at the fence (got %q after %v)", seq, code, vals)
			}
			if len(vals) != 10 {
				t.Errorf("%s: %d native values before the fence, want the margin of 10: %v", seq, len(vals), vals)
			}
			for _, v := range vals {
				if c.IncrementBy > 0 && v >= start || c.IncrementBy < 0 && v <= start {
					t.Errorf("%s: native value %d inside the store's range (from %d)", seq, v, start)
				}
			}
		}
		if _, _, cycle := nativeBounds(t, conn, sch, "ring"); cycle {
			t.Errorf("fence left CYCLE on ring")
		}

		// Again: nothing to do.
		out = ts.ok(fence...)
		if strings.Count(out, "skip: already fenced") != 3 {
			t.Errorf("second fence:\n%s", out)
		}

		// A native sequence already inside the store's range: nothing altered.
		pgExec(t, conn, "CREATE SEQUENCE "+sch+".late", "SELECT setval('"+sch+".late', 500)")
		ts.ok("create", sch+".late", "--start", "300")
		r := ts.fails(exitFailed, fence...)
		if !strings.Contains(r.stdout, "the native sequence is at 500, inside the store's range (from 300)") {
			t.Errorf("fence of a sequence inside the store's range:\n%s\n%s", r.stdout, r.stderr)
		}
		if _, hi, _ := nativeBounds(t, conn, sch, "late"); hi != 9223372036854775807 {
			t.Errorf("a failed fence altered the native sequence: MAXVALUE %d", hi)
		}
		ts.fails(exitUsage, "fence", "--schema", sch)
	})
}

// TestFenceFinal: fence --final makes each imported native sequence its
// store counter's fenced twin — the store's options, standing at its end,
// NO CYCLE — the state the driver keeps for the sequences it creates; the
// driver then keeps it in step with the DDL it serves.
func TestFenceFinal(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		conn, pgURL, sch := pgSchema(t)
		pgExec(t, conn,
			"CREATE SEQUENCE "+sch+".up CACHE 5",
			"SELECT setval('"+sch+".up', 100)",
			"CREATE SEQUENCE "+sch+".ring MAXVALUE 1000 CYCLE",
			"SELECT setval('"+sch+".ring', 10)",
		)
		ts.ok("import", "--from", pgURL, "--schema", sch, "--sample", "0", "--margin", "10")
		// The rollout's fence first (a margin below the store's range),
		// then the final one, which gives the options back.
		ts.ok("fence", "--from", pgURL, "--schema", sch)
		final := []string{"fence", "--final", "--from", pgURL, "--schema", sch}
		out := ts.ok(append(final, "--dry-run")...)
		if !strings.Contains(out, `fence: ALTER SEQUENCE "`+sch+`"."up" AS bigint INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807`) {
			t.Errorf("fence --final --dry-run:\n%s", out)
		}
		ts.ok(final...)
		for _, seq := range []string{"up", "ring"} {
			c := ts.describe(sch + "." + seq)
			var last, max int64
			var called, cycle bool
			if err := conn.QueryRow(context.Background(), "SELECT s.last_value, s.is_called, p.max_value, p.cycle FROM "+sch+"."+seq+
				" s, pg_sequences p WHERE p.schemaname = $1 AND p.sequencename = $2", sch, seq).Scan(&last, &called, &max, &cycle); err != nil {
				t.Fatal(err)
			}
			if max != c.MaxValue || last != max || !called || cycle {
				t.Errorf("%s after fence --final: last_value %d called %v, MAXVALUE %d (store's %d), cycle %v; want at the store's MAXVALUE, called, NO CYCLE",
					seq, last, called, max, c.MaxValue, cycle)
			}
			if vals, code := drain(t, conn, sch+"."+seq, 5); code != "2200H" || len(vals) != 0 {
				t.Errorf("%s: native nextval after fence --final gave %v, %q; want 2200H at once", seq, vals, code)
			}
		}
		if out := ts.ok(final...); strings.Count(out, "skip: already the store's fenced twin") != 2 {
			t.Errorf("second fence --final:\n%s", out)
		}

		// Through the driver, the twin follows the sequence's DDL.
		db := seqshimDB(t, pgURL, ts.store)
		if _, err := db.Exec("ALTER SEQUENCE " + sch + ".up INCREMENT BY 3 MAXVALUE 1000000"); err != nil {
			t.Fatal(err)
		}
		var inc, max, last int64
		if err := conn.QueryRow(context.Background(), "SELECT p.increment_by, p.max_value, s.last_value FROM "+sch+".up s, pg_sequences p WHERE p.schemaname = $1 AND p.sequencename = 'up'",
			sch).Scan(&inc, &max, &last); err != nil || inc != 3 || max != 1000000 || last != max {
			t.Errorf("the twin after ALTER through seqshim: increment %d, MAXVALUE %d, last_value %d, %v; want 3, 1000000 and at its end", inc, max, last, err)
		}
		var v int64
		if err := db.QueryRow("SELECT nextval('" + sch + ".up')").Scan(&v); err != nil || v <= 110 {
			t.Errorf("nextval through seqshim: %d, %v; want a store value past the native range", v, err)
		}
	})
}
