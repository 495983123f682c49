package rewrite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
)

// pgConn connects to the test PostgreSQL with a schema of its own first in
// the search path, dropped at the end of the test.
func pgConn(t *testing.T) *pgx.Conn {
	t.Helper()
	url := testenv.PG(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("rw_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema+"; SET search_path = "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Error(err)
		}
		conn.Close(ctx)
	})
	return conn
}

// TestDDLErrorsMatchPostgres checks the expected errors of TestDDLErrors
// against the server itself.
func TestDDLErrorsMatchPostgres(t *testing.T) {
	conn := pgConn(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE SEQUENCE rw_x"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range ddlErrors {
		t.Run(tc.sql, func(t *testing.T) {
			sql := tc.sql
			if strings.HasPrefix(sql, "CREATE") {
				sql = strings.Replace(sql, "rw_x", "rw_new", 1) // must not exist
			}
			_, err := conn.Exec(ctx, sql)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				t.Fatalf("PostgreSQL: %v, want an error", err)
			}
			if pe.Code != tc.code || pe.Message != tc.msg {
				t.Errorf("PostgreSQL says %s %q, test expects %s %q", pe.Code, pe.Message, tc.code, tc.msg)
			}
		})
	}
}

// TestRewritesRunOnPostgres sends rewritten statements to PostgreSQL: they
// must be valid, bind as planned, and store the values drawn.
func TestRewritesRunOnPostgres(t *testing.T) {
	conn := pgConn(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE t (id bigint, a text, n bigint)"); err != nil {
		t.Fatal(err)
	}
	next := int64(1000)
	for _, tc := range []struct {
		sql  string
		args []any
		rows int // rows the statement inserts into t, each with a drawn id
	}{
		{"INSERT INTO t (id, a) VALUES (nextval('s'), $1)", []any{"x"}, 1},
		{"INSERT INTO t (id, a) VALUES (nextval('s'), 'x')", nil, 1},
		{"INSERT INTO t (id, a) VALUES (nextval('s'), $1), (nextval('s'), $2) RETURNING id", []any{"x", "y"}, 2},
		{"INSERT INTO t (id, a) VALUES (nextval('s'), 'a'), (nextval('s'), 'b'), (NEXT VALUE FOR s, 'c')", nil, 3},
		{"INSERT INTO t (a, id) SELECT $1, nextval('s')", []any{"x"}, 1},
		{"INSERT INTO t (id, a) VALUES (nextval($1), 'named')", []any{"s"}, 1},
		{"INSERT INTO t (id, n) VALUES (s.nextval, setval($1, $2, $3))", []any{"s", int64(5), true}, 1},
		{"INSERT INTO t (id) VALUES (nextval('s')) ON CONFLICT DO NOTHING", nil, 1},
		{"WITH x AS (SELECT nextval('s') AS id) INSERT INTO t (id) SELECT id FROM x", nil, 1},
		{"INSERT INTO t (id) VALUES (nextval('s')); INSERT INTO t (id) VALUES (nextval('s'))", nil, 2},
		{"SELECT nextval('s'), now()", nil, 0},
		{"SELECT $1::int, nextval('s')", []any{1}, 0},
		{"SELECT setval('s', $1) + 0", []any{int64(7)}, 0},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			p := Build(Postgres, tc.sql)
			if p.Err != nil {
				t.Fatal(p.Err)
			}
			values := make([]int64, p.NumCalls())
			for i := range values {
				next++
				values[i] = next
			}
			b, _ := p.AppendSQL(nil, values, false)
			sql := string(b)
			args := tc.args
			if p.NumParams > 0 {
				for i := range values {
					args = append(args, values[i])
				}
			}
			if len(args) != p.NumParams+btoi(p.NumParams > 0)*len(values) {
				t.Fatalf("%d arguments for %d parameters", len(args), p.NumParams)
			}
			if _, err := conn.Exec(ctx, sql, args...); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			if tc.rows == 0 {
				return
			}
			var ids []int64
			rows, _ := conn.Query(ctx, "DELETE FROM t RETURNING id")
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(ids)
			if len(ids) != tc.rows || ids[0] != values[0] || !slices.IsSorted(ids) {
				t.Errorf("%s: stored ids %v, values %v", sql, ids, values)
			}
			for i := 1; i < len(ids); i++ {
				if ids[i] == ids[i-1] {
					t.Errorf("duplicate id %d", ids[i])
				}
			}
		})
	}
}

// TestColumnNamesMatchPostgres: Local statements report the column names
// PostgreSQL gives, and rewriting keeps the names of the original statement.
func TestColumnNamesMatchPostgres(t *testing.T) {
	conn := pgConn(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `CREATE SEQUENCE s; CREATE SEQUENCE "S"; SELECT nextval('s'), nextval('"S"')`); err != nil {
		t.Fatal(err)
	}
	names := func(sql string, args ...any) []string {
		t.Helper()
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		defer rows.Close()
		var out []string
		for _, f := range rows.FieldDescriptions() {
			out = append(out, f.Name)
		}
		return out
	}
	for _, sql := range []string{
		"SELECT nextval('s')",
		"SELECT currval('s'), lastval(), setval('s', 5), setval('s', 6, true)",
		`SELECT nextval('s') AS Id, nextval('"S"') "Named", pg_catalog.nextval('s') x`,
		"SELECT nextval('s')::bigint",
		"SELECT nextval('s') FROM generate_series(1, 3)",
		"SELECT nextval('s') AS id FROM generate_series(1, 3) AS g(i)",
	} {
		st := one(t, Postgres, sql)
		if st.Kind != Local {
			t.Fatalf("%s: Kind %v", sql, st.Kind)
		}
		if want := names(sql); !slices.Equal(st.Columns, want) {
			t.Errorf("%s: Columns %q, PostgreSQL %q", sql, st.Columns, want)
		}
	}
	for _, sql := range []string{
		"SELECT nextval('s'), now()",
		"SELECT currval('s'), 1 AS one, lastval()",
		"SELECT nextval('s') WHERE true",
		"SELECT DISTINCT nextval('s'), 2",
	} {
		st := one(t, Postgres, sql)
		if st.Kind != Rewrite {
			t.Fatalf("%s: Kind %v", sql, st.Kind)
		}
		got := names(string(st.AppendSQL(nil, make([]int64, len(st.Calls)))))
		if want := names(sql); !slices.Equal(got, want) {
			t.Errorf("%s: rewritten columns %q, PostgreSQL %q", sql, got, want)
		}
	}
}
