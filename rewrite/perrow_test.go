package rewrite

import (
	"errors"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

func TestPerRow(t *testing.T) {
	for _, tc := range []struct {
		d    Dialect
		sql  string
		want Kind
	}{
		{Postgres, "UPDATE t SET a = nextval('s')", Reject},
		{Postgres, "UPDATE t SET a = (SELECT nextval('s') + 1) WHERE id = 1", Reject},
		{Postgres, "UPDATE t SET a = (SELECT nextval('s') FROM u)", Reject},
		{Postgres, "UPDATE t SET a = abs(nextval('s'))", Reject},
		{Postgres, "DELETE FROM t WHERE id IN (SELECT nextval('s'))", Reject},
		{Postgres, "SELECT id FROM t WHERE EXISTS (SELECT nextval('s'))", Reject},
		{Postgres, "DELETE FROM t WHERE id = nextval('s')", Reject},
		{Postgres, "MERGE INTO t USING u ON t.id = u.id WHEN NOT MATCHED THEN INSERT VALUES (nextval('s'))", Reject},
		{Postgres, "MERGE INTO t USING (VALUES (1)) u(id) ON t.id = u.id WHEN NOT MATCHED THEN INSERT VALUES (nextval('s'))", Rewrite},
		{Postgres, "MERGE INTO t USING (SELECT $1 AS id) u ON t.id = u.id WHEN NOT MATCHED THEN INSERT (id, v) OVERRIDING SYSTEM VALUE VALUES (nextval('s'), 'x')", Rewrite},
		{Postgres, "MERGE INTO t USING (VALUES (1), (2)) u(id) ON t.id = u.id WHEN NOT MATCHED THEN INSERT VALUES (nextval('s'))", Reject},
		{Postgres, "MERGE INTO t USING (SELECT id FROM u) u ON t.id = u.id WHEN NOT MATCHED THEN INSERT VALUES (nextval('s'))", Reject},
		{Postgres, "MERGE INTO t USING (SELECT generate_series(1, 3) AS id) u ON t.id = u.id WHEN NOT MATCHED THEN INSERT VALUES (nextval('s'))", Reject},
		{Postgres, "MERGE INTO t USING (VALUES (1)) u(id) ON t.id = u.id WHEN MATCHED THEN UPDATE SET id = nextval('s')", Reject},
		{Postgres, "MERGE INTO t USING (VALUES (1)) u(id) ON t.id = nextval('s') WHEN NOT MATCHED THEN INSERT VALUES (1)", Reject},
		{Postgres, "INSERT INTO t SELECT nextval('s') FROM u", Reject},
		{Postgres, "INSERT INTO t (id, a) SELECT nextval('s'), a FROM u WHERE a > 0", Reject},
		{Postgres, "INSERT INTO t (SELECT nextval('s') FROM u)", Reject},
		{Postgres, "SELECT nextval('s') FROM t", Reject},
		{Postgres, "SELECT a, nextval('s') FROM t", Reject},
		{Postgres, "SELECT * FROM t WHERE id = nextval('s')", Reject},
		{Postgres, "SELECT nextval('s'), generate_series(1, 3)", Reject},
		{Postgres, "SELECT nextval('s'), 1 + unnest(ARRAY[1, 2])", Reject},
		{Postgres, "SELECT nextval('s') FROM generate_series(1, 3) WHERE true", Reject},
		{Postgres, "SELECT nextval('s') FROM generate_series(1, 3) CROSS JOIN t", Reject},
		{Postgres, "SELECT nextval('s') FROM generate_series(1, 3), t", Reject},
		{Postgres, "SELECT nextval('s') + 1 FROM generate_series(1, 3)", Reject},
		{Postgres, "SELECT nextval('s') FROM generate_series(1, 3, 2)", Reject},
		{Postgres, "SELECT (SELECT nextval('s') WHERE t.id > 0) FROM t", Reject},
		// An uncorrelated scalar subquery is an InitPlan: once per statement.
		{Postgres, "SELECT (SELECT nextval('s')) FROM t", Rewrite},
		{Postgres, "UPDATE t SET a = (SELECT nextval('s')) WHERE id > 1", Rewrite},
		{Postgres, "UPDATE t SET a = ((SELECT nextval($1)::int AS v)) RETURNING a", Rewrite},
		{Postgres, "DELETE FROM t WHERE id = (SELECT currval('s'))", Rewrite},
		{Postgres, "SELECT (SELECT (SELECT nextval('s'))), generate_series(1, 3)", Rewrite},
		{Postgres, "INSERT INTO t SELECT (SELECT nextval('s')) FROM u", Rewrite},
		// A subquery that is the only item of FROM is scanned once.
		{Postgres, "SELECT q.x FROM (SELECT nextval('s') AS x) AS q", Rewrite},
		{Postgres, "SELECT * FROM (SELECT nextval('s')) q(x) WHERE x > 0 ORDER BY 1", Rewrite},
		{Postgres, "SELECT q.x, generate_series(1, 3) FROM (SELECT nextval('s') AS x) q", Rewrite},
		{Postgres, "SELECT x FROM (SELECT nextval('s') AS x UNION ALL SELECT nextval('s')) q", Rewrite},
		{Postgres, "SELECT x FROM (VALUES (nextval('s'))) v(x)", Rewrite},
		{Postgres, "INSERT INTO t SELECT q.x FROM (SELECT nextval('s') AS x) q", Rewrite},
		{Postgres, "SELECT 1 UNION SELECT q.x FROM (SELECT nextval('s') AS x) q", Rewrite},
		{Postgres, "SELECT x FROM (SELECT nextval('s') AS x)", Rewrite}, // PostgreSQL 15's 42601: no alias
		{Postgres, "SELECT q.x FROM (SELECT nextval('s') AS x FROM t) q", Reject},
		{Postgres, "SELECT q.x FROM (SELECT nextval('s') AS x, generate_series(1, 3)) q", Reject},
		{Postgres, "SELECT q.x FROM t, (SELECT nextval('s') AS x) q", Reject},
		{Postgres, "SELECT q.x FROM (SELECT nextval('s') AS x) q, t", Reject},
		{Postgres, "SELECT 1, (SELECT nextval('s')) FROM t, u WHERE t.a = u.a", Rewrite},
		{Postgres, "SELECT 1 FROM t JOIN u ON t.a = u.a, v WHERE v.a = (SELECT nextval('s'))", Rewrite},
		{Postgres, "SELECT 1 FROM t JOIN u ON t.a = u.a, (SELECT nextval('s')) q", Reject},
		{Postgres, "SELECT q.x FROM (SELECT nextval('s') AS x) q CROSS JOIN t", Reject},
		{Postgres, "SELECT q.x FROM (SELECT nextval('s') AS x) JOIN t ON true", Reject},
		{Postgres, "SELECT q.x FROM t JOIN (SELECT nextval('s') AS x) q ON true", Reject},
		{Postgres, "SELECT q.x FROM LATERAL (SELECT nextval('s') AS x) q", Reject},
		{Postgres, "SELECT t.a FROM t WHERE t.a IN (SELECT q.x FROM (SELECT nextval('s') AS x) q)", Reject},
		{Postgres, "SELECT nextval('s') FROM (SELECT 1) q", Reject},
		{Postgres, "SELECT q.x FROM (SELECT nextval('s') AS x) q WHERE q.x = nextval('s')", Reject},
		{Postgres, "UPDATE t SET a = (SELECT x FROM (SELECT nextval('s') AS x) q)", Reject},
		{Postgres, "SELECT 1 UNION SELECT nextval('s') FROM t", Reject},
		{Postgres, "INSERT INTO t VALUES (1), (2) RETURNING nextval('s')", Reject},
		{Postgres, "INSERT INTO t SELECT 1 RETURNING nextval('s')", Reject},
		{Postgres, "INSERT INTO t VALUES (1), (2) ON CONFLICT (id) DO UPDATE SET a = nextval('s')", Reject},
		{Postgres, "WITH x AS (UPDATE t SET a = nextval('s') RETURNING *) SELECT * FROM x", Reject},
		{Postgres, "WITH x AS (SELECT 1) SELECT nextval('s') FROM x", Reject},
		{Postgres, "WITH x AS (SELECT 1) UPDATE t SET a = nextval('s')", Reject},
		{Postgres, "EXPLAIN ANALYZE SELECT nextval('s')", Reject},
		{Postgres, "PREPARE p AS SELECT nextval('s')", Reject},
		{Postgres, "DECLARE c CURSOR FOR SELECT nextval('s') FROM t", Reject},
		{MySQL, "SELECT NEXTVAL(s) FROM t", Reject},
		{MySQL, "UPDATE t SET a = NEXTVAL(s)", Reject},
		{MySQL, "DELETE FROM t WHERE a = NEXTVAL(s)", Reject},
		{MySQL, "INSERT INTO t SELECT NEXTVAL(s), a FROM u", Reject},
		{MySQL, "REPLACE INTO t SELECT NEXTVAL(s) FROM u", Reject},
		{MySQL, "INSERT INTO t VALUES (1), (2) ON DUPLICATE KEY UPDATE a = NEXTVAL(s)", Reject},
		{SQLite, "UPDATE t SET a = nextval('s')", Reject},
		{SQLite, "INSERT INTO t SELECT nextval('s') FROM u", Reject},

		{Postgres, "SELECT nextval('s') WHERE EXISTS (SELECT 1 FROM t)", Rewrite},
		{Postgres, "INSERT INTO t VALUES (nextval('s'), (SELECT max(a) FROM u))", Rewrite},
		{Postgres, "SELECT nextval('s'), extract(year FROM now())", Rewrite},
		{Postgres, "SELECT nextval('s'), substring('abc' FROM 2)", Rewrite},
		{Postgres, "INSERT INTO t (a) VALUES (nextval('s')) RETURNING (SELECT count(*) FROM u)", Rewrite},
		{Postgres, "INSERT INTO t VALUES (nextval('s')) RETURNING currval('s')", Rewrite},
		{Postgres, "INSERT INTO t DEFAULT VALUES RETURNING nextval('s')", Rewrite},
		{Postgres, "SELECT nextval('s'), (SELECT count(*) FROM generate_series(1, 3))", Rewrite},
		{Postgres, "WITH x AS (SELECT nextval('s') AS id) SELECT id FROM x", Rewrite},
		{Postgres, "WITH x AS (INSERT INTO t VALUES (nextval('s')) RETURNING id) SELECT id FROM x", Rewrite},
		{Postgres, "(SELECT nextval('s')) UNION ALL (SELECT 1)", Rewrite},
		{MySQL, "INSERT INTO t VALUES (NEXTVAL(s)) ON DUPLICATE KEY UPDATE a = NEXTVAL(s)", Rewrite},
		{MySQL, "DO NEXTVAL(s)", Rewrite},

		{Postgres, "CREATE TABLE t (id bigint DEFAULT nextval('s') + 1 PRIMARY KEY)", Reject},
		{Postgres, "CREATE TABLE t (id bigint DEFAULT nextval('s'), n int CHECK (n < currval('s')))", Reject},
		{Postgres, "ALTER TABLE t ALTER COLUMN id SET DEFAULT nextval('s')::int", Reject},
		{Postgres, "CREATE TABLE t (id bigint DEFAULT nextval('s') PRIMARY KEY)", CatalogDDL}, // a column default served from the store: table.go
		{Postgres, "ALTER TABLE t ALTER COLUMN id SET DEFAULT nextval('s')", CatalogDDL},
		{Postgres, "CREATE VIEW v AS SELECT nextval('s') FROM t", Reject},
		{Postgres, "CREATE FUNCTION f() RETURNS bigint AS $$ SELECT nextval('s') $$ LANGUAGE sql", PassThrough},
		{Postgres, "DO $$ BEGIN PERFORM nextval('s'); END $$", PassThrough},
		{Postgres, "SELECT nextval()", PassThrough},
		{Postgres, "SELECT nextval('a', 'b')", PassThrough},
		{Postgres, "SELECT setval('s')", PassThrough},
		{Postgres, "SELECT nextval(NULL)", Local},
		{Postgres, "SELECT myschema.nextval('s')", PassThrough},
		{Postgres, "SELECT nextval FROM t", PassThrough},
		{Postgres, "SELECT next_value FROM sequences", PassThrough},
		{Postgres, "FETCH NEXT FROM c", PassThrough},
	} {
		t.Run(tc.d.String()+"/"+tc.sql, func(t *testing.T) {
			p := Build(tc.d, tc.sql)
			if tc.want == PassThrough {
				if !p.PassThrough() {
					t.Errorf("not a pass-through plan: %+v", p.Statements)
				}
				return
			}
			st := one(t, tc.d, tc.sql)
			if st.Kind != tc.want {
				t.Fatalf("Kind %v (err %v), want %v", st.Kind, st.Err, tc.want)
			}
			if tc.want != Reject {
				return
			}
			var se *sequence.Error
			if !errors.As(st.Err, &se) || se.Code != sequence.CodeFeatureNotSupported || !errors.Is(st.Err, ErrUnsupported) {
				t.Fatalf("Err = %#v, want 0A000 wrapping ErrUnsupported", st.Err)
			}
			// The message names the call and says what to do.
			if !strings.Contains(strings.ToLower(se.Message), "val") || !strings.Contains(se.Message, "seqshim") {
				t.Errorf("message %q", se.Message)
			}
			if st.Calls != nil {
				t.Errorf("a rejected statement has calls: %+v", st.Calls)
			}
		})
	}
}
