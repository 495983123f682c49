package pgxseq_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/pgxseq"
)

// connect opens a pgxseq.Conn on dbURL with a memory store of the test's,
// its configuration changed by configure first.
func connect(t *testing.T, dbURL string, configure func(*pgx.ConnConfig)) *pgxseq.Conn {
	t.Helper()
	cfg, _, err := pgxseq.ParseConnConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	configure(cfg)
	c, err := pgxseq.ConnectConfig(context.Background(), cfg, func(o *pgxseq.Options) { o.StoreURL = "memory:" + t.Name() })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// connectNative opens a plain *pgx.Conn on dbURL, its configuration
// changed by configure first, closed at the test's end.
func connectNative(t *testing.T, dbURL string, configure func(*pgx.ConnConfig)) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	configure(cfg)
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// ownStatements are the texts of the statements seqshim prepared itself on
// the session of q.
func ownStatements(t *testing.T, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) []string {
	t.Helper()
	rows, err := q.Query(context.Background(), "SELECT statement FROM pg_prepared_statements WHERE name LIKE 'seqshim\\_%' ORDER BY statement")
	if err != nil {
		t.Fatal(err)
	}
	texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// statementName matches the name of a prepared statement in an error
// message: pgx's and seqshim's are digests of different texts.
var statementName = regexp.MustCompile(`"(stmtcache|seqshim)_[0-9a-f]+"`)

// TestCachedStatements: an INSERT leaving its id to a store default, sent
// with a statement seqshim prepared itself in pgx's default
// QueryExecModeCacheStatement, behaves as pgx's cached statements do,
// step by step against native pgx on a twin table: prepared once, again
// after an error (a column's type changed under it, an argument that does
// not encode), failing once after DEALLOCATE ALL, and forgotten by
// DeallocateAll.
func TestCachedStatements(t *testing.T) {
	ctx := context.Background()
	db := createDatabase(t)
	shim := connect(t, db, func(*pgx.ConnConfig) {})
	native := connectNative(t, db, func(*pgx.ConnConfig) {})
	mustExec(t, shim, "CREATE TABLE t (id bigserial PRIMARY KEY, v text)")
	mustExec(t, native, "CREATE TABLE n (id bigserial PRIMARY KEY, v text)")

	insert := "INSERT INTO %s (v) VALUES ($1)"
	steps := []struct {
		sql  string
		args []any
	}{
		{insert, []any{"a"}},
		{insert, []any{"b"}},
		{"ALTER TABLE %s ALTER COLUMN v TYPE int USING 0", nil},
		{insert, []any{"c"}}, // 42804: the statement's $1 is text
		{insert, []any{"5"}}, // prepared again: $1 is int
		{insert, []any{make(chan int)}},
		{insert, []any{"6"}},
		{"DEALLOCATE ALL", nil},
		{insert, []any{"7"}}, // 26000, once
		{insert, []any{"8"}},
		{"BEGIN", nil},
		{insert, []any{"9"}},
		{"DEALLOCATE ALL", nil},
		{insert, []any{"10"}}, // 26000: the transaction is aborted
		{"ROLLBACK", nil},
		{insert, []any{"11"}},
		{"deallocateAll", nil}, // Conn.DeallocateAll
		{insert, []any{"12"}},
		{insert, []any{"13"}},
	}
	failed := 0
	for i, s := range steps {
		var got, want error
		if s.sql == "deallocateAll" {
			got, want = shim.DeallocateAll(ctx), native.DeallocateAll(ctx)
		} else {
			shimSQL, nativeSQL := s.sql, s.sql
			if strings.Contains(s.sql, "%s") {
				shimSQL, nativeSQL = fmt.Sprintf(s.sql, "t"), fmt.Sprintf(s.sql, "n")
			}
			_, got = shim.Exec(ctx, shimSQL, s.args...)
			_, want = native.Exec(ctx, nativeSQL, s.args...)
		}
		if want != nil {
			failed++
		}
		g, w := statementName.ReplaceAllString(fmt.Sprint(got), `"…"`), statementName.ReplaceAllString(fmt.Sprint(want), `"…"`)
		if g != w || pgCode(got) != pgCode(want) {
			t.Errorf("step %d, %s %v: %v, natively %v", i, s.sql, s.args, got, want)
		}
	}
	if failed != 4 {
		t.Errorf("%d steps failed natively, want 4: the test no longer tests what it says", failed)
	}
	var rows, nativeRows int
	if err := shim.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if err := native.QueryRow(ctx, "SELECT count(*) FROM n").Scan(&nativeRows); err != nil {
		t.Fatal(err)
	}
	if rows != nativeRows {
		t.Errorf("%d rows, natively %d", rows, nativeRows)
	}
	if got := ownStatements(t, shim); len(got) != 1 || got[0] == fmt.Sprintf(insert, "t") {
		t.Errorf("seqshim's statements: %q, want the INSERT as rewritten, once", got)
	}
}

// TestCachedStatementsBounded: seqshim's statements are no more than pgx's
// statement cache holds, and one more until the next statement; every
// INSERT still gets its id.
func TestCachedStatementsBounded(t *testing.T) {
	ctx := context.Background()
	shim := connect(t, createDatabase(t), func(c *pgx.ConnConfig) { c.StatementCacheCapacity = 2 })
	tables := []string{"a", "b", "c", "d"}
	for _, name := range tables {
		mustExec(t, shim, "CREATE TABLE "+name+" (id bigserial PRIMARY KEY, v text)")
	}
	most := 0
	for round := range 3 {
		for _, name := range tables {
			mustExec(t, shim, "INSERT INTO "+name+" (v) VALUES ($1)", "x")
			var id int64
			if err := shim.QueryRow(ctx, "SELECT max(id) FROM "+name).Scan(&id); err != nil || id != int64(round+1) {
				t.Fatalf("round %d, table %s: id %d %v", round, name, id, err)
			}
			most = max(most, len(ownStatements(t, shim)))
		}
	}
	if most == 0 || most > 3 {
		t.Errorf("at most %d of seqshim's statements at once, want 1 to 3", most)
	}
}

// tracer records the queries pgx traces.
type tracer struct{ sql []string }

func (tr *tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	tr.sql = append(tr.sql, data.SQL)
	return ctx
}

func (*tracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestCachedStatementsByPgx: where pgx's Exec would do more than bind and
// execute a cached statement (a tracer observes the connection, another
// exec mode is the default, the statement cache is off), the rewritten
// INSERT goes through pgx's Exec, and seqshim prepares nothing itself.
func TestCachedStatementsByPgx(t *testing.T) {
	ctx := context.Background()
	db := createDatabase(t)
	for i, c := range []struct {
		name      string
		configure func(*pgx.ConnConfig)
	}{
		{"tracer", func(c *pgx.ConnConfig) { c.Tracer = &tracer{} }},
		{"exec mode", func(c *pgx.ConnConfig) { c.DefaultQueryExecMode = pgx.QueryExecModeExec }},
		{"no statement cache", func(c *pgx.ConnConfig) {
			c.StatementCacheCapacity = 0
			c.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cfg *pgx.ConnConfig
			shim := connect(t, db, func(cc *pgx.ConnConfig) { c.configure(cc); cfg = cc })
			table := fmt.Sprintf("t%d", i)
			mustExec(t, shim, "CREATE TABLE "+table+" (id bigserial PRIMARY KEY, v text)")
			for range 3 {
				mustExec(t, shim, "INSERT INTO "+table+" (v) VALUES ($1)", "x")
			}
			if got := ownStatements(t, shim); len(got) != 0 {
				t.Errorf("seqshim's statements: %q, want none", got)
			}
			if tr, ok := cfg.Tracer.(*tracer); ok {
				inserts := 0
				for _, sql := range tr.sql {
					if len(sql) > 6 && sql[:6] == "INSERT" {
						inserts++
					}
				}
				if inserts != 3 {
					t.Errorf("the tracer saw %d INSERTs, want 3: %q", inserts, tr.sql)
				}
			}
		})
	}
	// And pgx's own error when its default mode needs the statement cache
	// it does not have.
	shim := connect(t, db, func(c *pgx.ConnConfig) { c.StatementCacheCapacity = 0 })
	mustExec(t, shim, "CREATE TABLE t (id bigserial PRIMARY KEY, v text)")
	_, err := shim.Exec(ctx, "INSERT INTO t (v) VALUES ($1)", "x")
	native := connectNative(t, db, func(c *pgx.ConnConfig) { c.StatementCacheCapacity = 0 })
	_, want := native.Exec(ctx, "INSERT INTO t (v) VALUES ($1)", "x")
	if want == nil || fmt.Sprint(err) != fmt.Sprint(want) {
		t.Errorf("without a statement cache: %v, natively %v", err, want)
	}
}
