package engine

import (
	"context"
	"strings"
	"testing"
)

// TestAnswerShapes: what a statement seqshim answers itself, wholly or in
// part, returns as PostgreSQL's answer would be returned through the front
// end's API (Request): a Query's result is the string's first
// statement's (no columns for a command), an Exec's rows affected its last
// statement's, and the extended protocol takes one statement.
func TestAnswerShapes(t *testing.T) {
	query, simpleQuery := Request{Rows: true, Extended: true}, Request{Rows: true}
	exec := Request{}
	for _, tc := range []struct {
		name  string
		sql   string
		req   Request
		send  string // the text sent, "" for none
		cols  string // the Query's columns, comma-separated; "-" for the database's rows (Rows nil)
		rows  int64  // the Exec's rows affected, when it is seqshim's
		code  string // the error's SQLSTATE
		later bool
	}{
		{name: "DDL by Query", sql: "CREATE SEQUENCE a", req: query, cols: ""},
		{name: "DDL by Exec", sql: "CREATE SEQUENCE b", req: exec, cols: "-"},
		{name: "local by Query", sql: "SELECT nextval('s') AS n", req: query, cols: "n", rows: 1},
		{name: "series by Exec", sql: "SELECT nextval('s') FROM generate_series(1, 3)", req: exec, cols: "-", rows: 3},
		{name: "the last statement's rows", sql: "SELECT nextval('s') FROM generate_series(1, 3); SELECT nextval('s')", req: exec, cols: "-", rows: 1},
		{name: "DDL last", sql: "SELECT nextval('s'); CREATE SEQUENCE c", req: exec, cols: "-", rows: 0},
		{name: "answered last, sent first", sql: "UPDATE t SET x = 1; SELECT nextval('s')", req: exec, send: "UPDATE t SET x = 1", cols: "-", rows: 1},
		{name: "sent last", sql: "SELECT nextval('s'); UPDATE t SET x = 1", req: exec, send: " UPDATE t SET x = 1", cols: "-", rows: -1},
		{name: "DDL first by Query", sql: "CREATE SEQUENCE d; SELECT 1 AS x", req: simpleQuery, send: " SELECT 1 AS x", cols: "", rows: -1},
		{name: "local first by Query", sql: "SELECT nextval('s') AS n; SELECT 1 AS x", req: simpleQuery, send: " SELECT 1 AS x", cols: "n", rows: -1},
		{name: "sent first by Query", sql: "SELECT 1 AS x; SELECT nextval('s')", req: simpleQuery, send: "SELECT 1 AS x", cols: "-", rows: 1},
		{name: "extended Query of two", sql: "SELECT nextval('s'); SELECT 1", req: query, code: "42601"},
		{name: "extended Exec of two", sql: "CREATE SEQUENCE e; SELECT 1", req: Request{Extended: true}, code: "42601"},
		{name: "extended Query of one", sql: "SELECT nextval('s');", req: query, cols: "nextval", rows: 1},
		{name: "the plan's syntax error first", sql: "SELECT nextval('s'); SELECT 1 AS", req: query, code: "42601"},
		{name: "drop by Query, a command", sql: "DROP TABLE t", req: query, send: "DROP TABLE t", cols: "", rows: -1},
		{name: "drop by Exec", sql: "DROP TABLE t", req: exec, send: "DROP TABLE t", cols: "-", rows: -1},
		{name: "rows before table DDL by Query", sql: "SELECT 1 AS x; CREATE TABLE w (id serial)", req: simpleQuery, code: "0A000"},
		{name: "drop after rows", sql: "SELECT 1; DROP TABLE t", req: simpleQuery, send: "SELECT 1; DROP TABLE t", cols: "-", rows: -1, later: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, nil)
			ctx := context.Background()
			step, err := s.Run(ctx, tc.sql, nil, tc.req)
			if tc.code != "" {
				if code(err) != tc.code {
					t.Fatalf("err %v, want %s", err, tc.code)
				}
				// Nothing of the text ran: no value was drawn.
				if _, _, err := run(t, s, "SELECT currval('s')"); code(err) != "55000" {
					t.Errorf("currval after the refused text: %v, want 55000 (nothing drawn)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if step.SQL != tc.send {
				t.Errorf("sent %q, want %q", step.SQL, tc.send)
			}
			cols := "-"
			if step.Rows != nil {
				cols = strings.Join(step.Rows.Columns(), ",")
			}
			if cols != tc.cols {
				t.Errorf("columns %q, want %q", cols, tc.cols)
			}
			affected := step.SQL == "" || step.Affected
			switch {
			case tc.rows < 0 && affected:
				t.Errorf("rows affected %d are seqshim's, want the database's", step.RowsAffected)
			case tc.rows >= 0 && (!affected || step.RowsAffected != tc.rows):
				t.Errorf("rows affected %d (seqshim's: %v), want %d", step.RowsAffected, affected, tc.rows)
			}
			if step.SQL == "" {
				return
			}
			if err := s.Finish(ctx, &step, nil); err != nil {
				t.Fatal(err)
			}
			if s.orphansPending != tc.later {
				t.Errorf("drop of orphans left for later: %v, want %v", s.orphansPending, tc.later)
			}
		})
	}
}
