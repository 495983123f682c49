package rewrite

import (
	"testing"
)

// The effects of a text, as the engine reads them from its plan.

func discardsOf(d Dialect, sql string) bool { return Build(d, sql).Discards() }

func pathEffectsOf(d Dialect, sql string) PathEffect { return Build(d, sql).Path }

func mayInjectOf(d Dialect, sql string) bool { return Build(d, sql).Inserts }

// txControlsOf is each statement's transaction control, nil when no
// statement controls the transaction.
func txControlsOf(d Dialect, sql string) []TxControl {
	pl := Build(d, sql)
	if c, _ := pl.Control(); c.Op == TxNone {
		return nil
	}
	out := make([]TxControl, len(pl.Statements))
	for i := range pl.Statements {
		out[i] = pl.Statements[i].Tx
	}
	return out
}

// schemaDropsOf is the text's DROP SCHEMA statements and its number of
// statements.
func schemaDropsOf(d Dialect, sql string) ([]SchemaDrop, int) {
	pl := Build(d, sql)
	return pl.SchemaDrops(), len(pl.Statements)
}

func TestModeEffect(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want ModeEffect
	}{
		{"SELECT 1", ModeNone},
		{"UPDATE t SET end_date = now()", ModeNone},
		{"SET search_path = x", ModeNone},
		{"SET application_name = 'read only'", ModeNone},
		{"BEGIN", ModeDefault},
		{"start transaction isolation level serializable", ModeDefault},
		{"BEGIN READ ONLY", ModeUnclear},
		{"BEGIN READ WRITE", ModeUnclear},
		{"COMMIT", ModeDefault},
		{"ROLLBACK", ModeDefault},
		{"ROLLBACK TO a", ModeUnclear},
		{"ROLLBACK TRANSACTION TO SAVEPOINT a", ModeUnclear},
		{"COMMIT AND CHAIN", ModeUnclear},
		{"COMMIT PREPARED 'x'", ModeNone},
		{"SET TRANSACTION READ ONLY", ModeUnclear},
		{"SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", ModeUnclear},
		{"set local transaction_read_only = on", ModeUnclear},
		{"SET default_transaction_read_only TO on", ModeUnclear},
		{"RESET ALL", ModeUnclear},
		{"SELECT set_config('transaction_read_only', 'on', true)", ModeUnclear},
		{"PREPARE TRANSACTION 'x'", ModeDefault},
	} {
		pl := Build(Postgres, tc.sql)
		got := ModeNone
		for _, st := range pl.Statements {
			got = max(got, st.Mode)
		}
		if got != tc.want {
			t.Errorf("mode effect of %q = %d, want %d", tc.sql, got, tc.want)
		}
	}
}

func TestVerb(t *testing.T) {
	for sql, want := range map[string]string{
		"INSERT INTO t VALUES (nextval('s'))":                                                  "INSERT",
		"(SELECT nextval('s'))":                                                                "",
		"update t set a = 1 where b = currval('s')":                                            "UPDATE",
		"WITH x AS (SELECT nextval('s')) INSERT INTO t SELECT * FROM x":                        "INSERT",
		"WITH x AS (INSERT INTO u VALUES (1) RETURNING 1) SELECT nextval('s') FROM x":          "",
		"WITH RECURSIVE x(n) AS (SELECT 1 UNION SELECT n+1 FROM x) DELETE FROM t":              "DELETE",
		"MERGE INTO t USING u ON t.a = u.a WHEN NOT MATCHED THEN INSERT VALUES (nextval('s'))": "MERGE",
		"SELECT nextval('s')":                                                          "",
		"DELETE FROM t WHERE id = (SELECT nextval('s'))":                               "DELETE",
		"WITH x AS (SELECT 1), y AS (SELECT 2) UPDATE t SET a = (SELECT currval('s'))": "UPDATE",
	} {
		pl := Build(Postgres, sql)
		if len(pl.Statements) != 1 || pl.Statements[0].Verb != want {
			t.Errorf("verb of %q: %+v, want %q", sql, pl.Statements, want)
		}
	}
}

func TestMayReturnRows(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT 1":                              true,
		"(SELECT 1) UNION (SELECT 2)":           true,
		"VALUES (1)":                            true,
		"TABLE t":                               true,
		"WITH x AS (SELECT 1) SELECT *":         true,
		"SHOW search_path":                      true,
		"EXPLAIN DROP TABLE t":                  true,
		"FETCH ALL FROM c":                      true,
		"EXECUTE q(1)":                          true,
		"CALL p()":                              true,
		"COPY t TO STDOUT":                      true,
		"INSERT INTO t VALUES (1) RETURNING id": true,
		"WITH x AS (SELECT 1) DELETE FROM t RETURNING *":     true,
		"UPDATE t SET a = 1":                                 false,
		"WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x": false,
		"DELETE FROM t":                                      false,
		"DROP TABLE t":                                       false,
		"DROP TYPE ty CASCADE":                               false,
		"ALTER TABLE t DROP COLUMN c":                        false,
		"CREATE TABLE t AS SELECT 1":                         false,
		"CREATE SEQUENCE s":                                  false,
		"BEGIN":                                              false,
		"DO $$BEGIN PERFORM 1; END$$":                        false,
		"PREPARE q AS SELECT 1":                              false,
		"DISCARD ALL":                                        false,
		"SET search_path = a":                                false,
	} {
		l := lex(Postgres, sql)
		if got := mayReturnRows(l, l.toks, dmlVerb(l, l.toks)); got != want {
			t.Errorf("mayReturnRows(%q) = %v, want %v", sql, got, want)
		}
	}
	// The plan carries it for every statement of a string.
	pl := Build(Postgres, "SELECT nextval('s'); DROP TABLE t; INSERT INTO t VALUES (1) RETURNING 1")
	if len(pl.Statements) != 3 || !pl.Statements[0].Rows || pl.Statements[1].Rows || !pl.Statements[2].Rows {
		t.Errorf("Rows of the statements: %+v", pl.Statements)
	}
}

// TestPassThroughGate: a text without a trigger word nor a statement with
// an effect gets the shared plan after scans that do not allocate.
func TestPassThroughGate(t *testing.T) {
	for _, sql := range []string{"SELECT * FROM settings", "DELETE FROM t WHERE a = $1", "SELECT discarded_at FROM t"} {
		if mayPlan(Postgres, sql) {
			t.Errorf("mayPlan(%q) = true", sql)
		}
		if n := testing.AllocsPerRun(100, func() { Build(Postgres, sql) }); n != 0 {
			t.Errorf("Build(%q) allocates %v times", sql, n)
		}
	}
}

// BenchmarkPassThroughChecks is what a pass-through statement pays before
// the lexer, the first time its session sees it.
func BenchmarkPassThroughChecks(b *testing.B) {
	q := "SELECT id, name, created_at, discarded_at FROM accounts WHERE id = $1 AND status = 'active'"
	b.ReportAllocs()
	for b.Loop() {
		if mayPlan(Postgres, q) {
			b.Fatal("planned")
		}
	}
}

// FuzzEffects checks that the cheap tests before the lexer never hide a
// statement's effect, nor an INSERT, that planning the text finds.
func FuzzEffects(f *testing.F) {
	for _, s := range []string{
		"DISCARD ALL", "/* x */ discard sequences", "SELECT 1; -- c\n DISCARD ALL",
		"/* a /* b */ c */ DISCARD ALL", "SELECT 'a;b' ; discard all", "E'\\';' DISCARD ALL",
		"$tag$ ; $tag$; DISCARD ALL", "U&\"d\" ; discard ALL", "SELECT set_config('search_path', 'x', false)",
		"begin read only", "ROLLBACK TO SAVEPOINT a", "WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x",
		"(INSERT INTO t VALUES (1))", "SELECT (NEXT VALUE FOR\"0\" ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pl := build(Postgres, s)
		if (pl.Effects() || pl.Inserts) && !mayPlan(Postgres, s) {
			t.Errorf("planning %q finds effects (inserts %v), the cheap tests do not", s, pl.Inserts)
		}
	})
}
func TestDiscardsSequences(t *testing.T) {
	for _, tt := range []struct {
		sql  string
		want bool
	}{
		{"DISCARD ALL", true},
		{"discard sequences;", true},
		{"  Discard\n\tAll", true},
		{"/* pool reset */ DISCARD ALL", true},
		{"/* a /* nested */ comment */ DISCARD ALL", true},
		{"-- reset\nDISCARD SEQUENCES", true},
		{"SET search_path = public; DISCARD ALL", true},
		{"DISCARD ALL; SELECT 1", true},
		{";;DISCARD ALL", true},
		{"DISCARD PLANS", false},
		{"DISCARD TEMP", false},
		{"DISCARD", false},
		{"SELECT 'DISCARD ALL'", false},
		{"SELECT 1 /* DISCARD ALL */", false},
		{"SELECT \"discard\" FROM t", false},
		{"SELECT discarded_at FROM t", false},
		{"UPDATE t SET discard = true", false},
		{"SELECT $$; DISCARD ALL$$", false},
		{"DISCARD ALL '", false}, // unterminated: the database refuses it
		{"", false},
	} {
		if got := discardsOf(Postgres, tt.sql); got != tt.want {
			t.Errorf("DiscardsSequences(%q) = %v, want %v", tt.sql, got, tt.want)
		}
	}
	if discardsOf(MySQL, "DISCARD ALL") {
		t.Error("DiscardsSequences(MySQL, DISCARD ALL) = true: MySQL has no DISCARD")
	}
}
