package rewrite

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// show writes a value's exported fields that are not zero, pointers
// followed, byte offsets (Start, End) left out, errors as SQLSTATE and
// message: a compact and complete picture for table-driven tests.
func show(v reflect.Value) string {
	if v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "nil"
		}
		if err, ok := v.Interface().(error); ok {
			var se *sequence.Error
			if errors.As(err, &se) {
				return se.Code + " " + se.Message
			}
			return err.Error()
		}
		return show(v.Elem())
	}
	if s, ok := v.Interface().(fmt.Stringer); ok && v.Kind() != reflect.Struct {
		return s.String()
	}
	switch v.Kind() {
	case reflect.Struct:
		var parts []string
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			offset := (f.Name == "Start" || f.Name == "End") && f.Type.Kind() == reflect.Int
			if !f.IsExported() || offset || v.Field(i).IsZero() {
				continue
			}
			parts = append(parts, f.Name+":"+show(v.Field(i)))
		}
		return "{" + strings.Join(parts, " ") + "}"
	case reflect.Slice:
		var parts []string
		for i := 0; i < v.Len(); i++ {
			parts = append(parts, show(v.Index(i)))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v.Interface())
}

// describe is show for a table statement.
func describe(t *TableDDL) string { return show(reflect.ValueOf(t)) }

// tableCases are table statements with their parse (as describe writes
// it) and the text the database receives (AppendSQL with Strip).
var tableCases = []struct {
	sql, want, render string
}{
	// CREATE TABLE: serial types, in any case and quoted as PostgreSQL reads them.
	{"CREATE TABLE t (id serial)",
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:id TypeText:serial Default:{Serial:true Type:integer Clauses:{Type:integer}}}]}",
		"CREATE TABLE t (id integer NOT NULL)"},
	{`create table T (ID SERIAL primary key, b smallserial, c serial2, d serial4, e bigserial, f serial8, g "serial", h text)`,
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:id TypeText:SERIAL Default:{Serial:true Type:integer Clauses:{Type:integer}}} " +
			"{Name:b TypeText:smallserial Default:{Serial:true Type:smallint Clauses:{Type:smallint}}} {Name:c TypeText:serial2 Default:{Serial:true Type:smallint Clauses:{Type:smallint}}} " +
			"{Name:d TypeText:serial4 Default:{Serial:true Type:integer Clauses:{Type:integer}}} {Name:e TypeText:bigserial Default:{Serial:true Clauses:{Type:bigint}}} " +
			`{Name:f TypeText:serial8 Default:{Serial:true Clauses:{Type:bigint}}} {Name:g TypeText:"serial" Default:{Serial:true Type:integer Clauses:{Type:integer}}} {Name:h TypeText:text}]}`,
		"create table T (ID integer NOT NULL primary key, b smallint NOT NULL, c smallint NOT NULL, d integer NOT NULL, e bigint NOT NULL, f bigint NOT NULL, g integer NOT NULL, h text)"},
	{`CREATE UNLOGGED TABLE IF NOT EXISTS app."Orders" ("Id" bigserial NOT NULL, v text)`,
		`{Op:CREATE TABLE Names:[app."Orders"] Unqualified:[false] IfNotExists:true Unlogged:true Columns:[{Name:Id TypeText:bigserial NotNull:true Default:{Serial:true Clauses:{Type:bigint}}} {Name:v TypeText:text}]}`,
		`CREATE UNLOGGED TABLE IF NOT EXISTS app."Orders" ("Id" bigint NOT NULL, v text)`},
	{`CREATE TABLE t (id serial CONSTRAINT pk PRIMARY KEY COLLATE "C")`,
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:id TypeText:serial Default:{Serial:true Type:integer Clauses:{Type:integer}}}]}",
		`CREATE TABLE t (id integer NOT NULL CONSTRAINT pk PRIMARY KEY COLLATE "C")`},
	{"CREATE TABLE t (id serial COMPRESSION pglz, v int)", // NOT NULL after COMPRESSION, where the grammar wants it
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:id TypeText:serial Default:{Serial:true Type:integer Clauses:{Type:integer}}} {Name:v TypeText:int}]}",
		"CREATE TABLE t (id integer COMPRESSION pglz NOT NULL, v int)"},
	{"CREATE TABLE t (-- the id\n  id /* serial */ bigserial, -- comment\n  name text)",
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:id TypeText:bigserial Default:{Serial:true Clauses:{Type:bigint}}} {Name:name TypeText:text}]}",
		"CREATE TABLE t (-- the id\n  id /* serial */ bigint NOT NULL, -- comment\n  name text)"},
	{`CREATE TABLE t (id serial, "id" int)`, // PostgreSQL reports the duplicate
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:id TypeText:serial Default:{Serial:true Type:integer Clauses:{Type:integer}}} {Name:id TypeText:int}]}",
		`CREATE TABLE t (id integer NOT NULL, "id" int)`},

	// Identity columns: the type gives the sequence's, the options its clauses.
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY)",
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:id TypeText:int Default:{Kind:GENERATED ALWAYS AS IDENTITY Type:integer Clauses:{Type:integer}}}]}",
		"CREATE TABLE t (id int NOT NULL)"},
	{"CREATE TABLE t (id bigint NOT NULL GENERATED BY DEFAULT AS IDENTITY (START WITH 100 INCREMENT BY 10 MINVALUE 1 MAXVALUE 1000000 CACHE 20 NO CYCLE SEQUENCE NAME app.t_ids))",
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:id TypeText:bigint NotNull:true Default:{Kind:GENERATED BY DEFAULT AS IDENTITY Seq:app.t_ids " +
			"Clauses:{Type:bigint Increment:10 MinValue:1 MaxValue:1000000 Start:100 Cache:20 Cycle:false}}}]}",
		"CREATE TABLE t (id bigint NOT NULL)"},
	{"CREATE TABLE app.t (id int2 CONSTRAINT g GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME ids RESTART 5 LOGGED), b pg_catalog.int8 GENERATED BY DEFAULT AS IDENTITY (CYCLE))",
		"{Op:CREATE TABLE Names:[app.t] Unqualified:[false] Columns:[{Name:id TypeText:int2 Default:{Kind:GENERATED ALWAYS AS IDENTITY Type:smallint Seq:ids SeqUnqualified:true " +
			"Clauses:{Type:smallint Restart:true RestartAt:5}}} {Name:b TypeText:pg_catalog.int8 Default:{Kind:GENERATED BY DEFAULT AS IDENTITY Clauses:{Type:bigint Cycle:true}}}]}",
		"CREATE TABLE app.t (id int2 CONSTRAINT g NOT NULL, b pg_catalog.int8 NOT NULL)"},
	{`CREATE TABLE t (id "int4" GENERATED ALWAYS AS IDENTITY NOT NULL, v text)`,
		`{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:id TypeText:"int4" NotNull:true Default:{Kind:GENERATED ALWAYS AS IDENTITY Type:integer Clauses:{Type:integer}}} {Name:v TypeText:text}]}`,
		`CREATE TABLE t (id "int4" NOT NULL, v text)`},

	// DEFAULT nextval('s'): the name as regclass reads it.
	{`CREATE TABLE t (id int DEFAULT nextval('s'), b int DEFAULT nextval('App.S'::regclass) NOT NULL, c bigint CONSTRAINT d DEFAULT (pg_catalog.nextval('"X"'::pg_catalog.regclass)) UNIQUE)`,
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:id TypeText:int Default:{Type:integer Seq:s SeqUnqualified:true}} " +
			`{Name:b TypeText:int NotNull:true Default:{Type:integer Seq:app.s}} {Name:c TypeText:bigint Default:{Seq:"X" SeqUnqualified:true}}]}`,
		"CREATE TABLE t (id int, b int NOT NULL, c bigint UNIQUE)"},

	// Other constraints and expressions are read, and left as they are.
	{"CREATE TABLE t (a int DEFAULT 1 + NULL NOT NULL, id serial, b bool DEFAULT NULL IS DISTINCT FROM NULL NOT NULL, c int DEFAULT CASE WHEN true THEN NULL ELSE 1 END NULL, " +
		"d int[] DEFAULT ARRAY[NULL, 1]::int[] NOT NULL, e int[] DEFAULT '{}' NOT NULL, f int DEFAULT - 1 CONSTRAINT x NOT NULL)",
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:a TypeText:int NotNull:true} {Name:id TypeText:serial Default:{Serial:true Type:integer Clauses:{Type:integer}}} " +
			"{Name:b TypeText:bool NotNull:true} {Name:c TypeText:int} {Name:d TypeText:int[] NotNull:true} {Name:e TypeText:int[] NotNull:true} {Name:f TypeText:int NotNull:true}]}",
		"CREATE TABLE t (a int DEFAULT 1 + NULL NOT NULL, id integer NOT NULL, b bool DEFAULT NULL IS DISTINCT FROM NULL NOT NULL, c int DEFAULT CASE WHEN true THEN NULL ELSE 1 END NULL, " +
			"d int[] DEFAULT ARRAY[NULL, 1]::int[] NOT NULL, e int[] DEFAULT '{}' NOT NULL, f int DEFAULT - 1 CONSTRAINT x NOT NULL)"},
	{"CREATE TABLE t (a int, id serial REFERENCES u (id) MATCH FULL ON DELETE SET NULL (a) ON UPDATE NO ACTION DEFERRABLE INITIALLY DEFERRED, CONSTRAINT k UNIQUE (a), " +
		"CHECK (a > 0), exclude int, EXCLUDE USING gist (a WITH =), PRIMARY KEY (id), FOREIGN KEY (a) REFERENCES u)",
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:a TypeText:int} {Name:id TypeText:serial Default:{Serial:true Type:integer Clauses:{Type:integer}}} {Name:exclude TypeText:int}]}",
		"CREATE TABLE t (a int, id integer NOT NULL REFERENCES u (id) MATCH FULL ON DELETE SET NULL (a) ON UPDATE NO ACTION DEFERRABLE INITIALLY DEFERRED, CONSTRAINT k UNIQUE (a), " +
			"CHECK (a > 0), exclude int, EXCLUDE USING gist (a WITH =), PRIMARY KEY (id), FOREIGN KEY (a) REFERENCES u)"},
	{"CREATE TABLE t (v text UNIQUE NULLS NOT DISTINCT WITH (fillfactor = 70) USING INDEX TABLESPACE x, id bigserial, g int GENERATED ALWAYS AS (1) STORED, " +
		"n numeric(10, 2) CHECK (n > 0) NO INHERIT) PARTITION BY RANGE (id) WITH (fillfactor = 80) TABLESPACE ts",
		"{Op:CREATE TABLE Names:[t] Unqualified:[true] Columns:[{Name:v TypeText:text} {Name:id TypeText:bigserial Default:{Serial:true Clauses:{Type:bigint}}} {Name:g TypeText:int} {Name:n TypeText:numeric(10, 2)}]}",
		"CREATE TABLE t (v text UNIQUE NULLS NOT DISTINCT WITH (fillfactor = 70) USING INDEX TABLESPACE x, id bigint NOT NULL, g int GENERATED ALWAYS AS (1) STORED, " +
			"n numeric(10, 2) CHECK (n > 0) NO INHERIT) PARTITION BY RANGE (id) WITH (fillfactor = 80) TABLESPACE ts"},

	// ALTER TABLE: every subcommand, several in a row.
	{"ALTER TABLE t ADD COLUMN id serial",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:ADD COLUMN Column:id Def:{Name:id TypeText:serial Default:{Serial:true Type:integer Clauses:{Type:integer}}}}]}",
		"ALTER TABLE t ADD COLUMN id integer NOT NULL"},
	{"ALTER TABLE IF EXISTS ONLY app.t ADD id bigint GENERATED BY DEFAULT AS IDENTITY (START 10), ADD COLUMN IF NOT EXISTS b bigserial NOT NULL",
		"{Op:ALTER TABLE Names:[app.t] Unqualified:[false] IfExists:true Only:true Cmds:[{Action:ADD COLUMN Column:id Def:{Name:id TypeText:bigint " +
			"Default:{Kind:GENERATED BY DEFAULT AS IDENTITY Clauses:{Type:bigint Start:10}}}} {Action:ADD COLUMN Column:b Def:{Name:b TypeText:bigserial NotNull:true " +
			"Default:{Serial:true Clauses:{Type:bigint}}} IfNotExists:true}]}",
		"ALTER TABLE IF EXISTS ONLY app.t ADD id bigint NOT NULL, ADD COLUMN IF NOT EXISTS b bigint NOT NULL"},
	{"ALTER TABLE t ADD CONSTRAINT k UNIQUE (a), ADD c int DEFAULT nextval('s')",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{} {Action:ADD COLUMN Column:c Def:{Name:c TypeText:int Default:{Type:integer Seq:s SeqUnqualified:true}}}]}",
		"ALTER TABLE t ADD CONSTRAINT k UNIQUE (a), ADD c int"},
	{"ALTER TABLE t ALTER COLUMN id SET DEFAULT nextval('s'::regclass)",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:SET DEFAULT Column:id Default:{Seq:s SeqUnqualified:true}}]}",
		""},
	{"ALTER TABLE t ALTER id SET DEFAULT 5, ALTER b DROP DEFAULT",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:SET DEFAULT Column:id} {Action:DROP DEFAULT Column:b}]}",
		"ALTER TABLE t ALTER id SET DEFAULT 5, ALTER b DROP DEFAULT"},
	{"ALTER TABLE t ALTER COLUMN n ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME nn START 4)",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:ADD GENERATED Column:n Default:{Kind:GENERATED ALWAYS AS IDENTITY Seq:nn SeqUnqualified:true Clauses:{Start:4}}}]}",
		""},
	{"ALTER TABLE t ALTER n ADD GENERATED BY DEFAULT AS IDENTITY, ALTER v SET NOT NULL",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:ADD GENERATED Column:n Default:{Kind:GENERATED BY DEFAULT AS IDENTITY}} {Action:SET NOT NULL Column:v}]}",
		"ALTER TABLE t ALTER v SET NOT NULL"},
	{"ALTER TABLE t ALTER id SET GENERATED BY DEFAULT SET INCREMENT BY 2 RESTART WITH 10 SET START 3",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:SET GENERATED/RESTART Column:id Generated:GENERATED BY DEFAULT AS IDENTITY Clauses:{Increment:2 Start:3 Restart:true RestartAt:10}}]}",
		"ALTER TABLE t ALTER id SET GENERATED BY DEFAULT SET INCREMENT BY 2 RESTART WITH 10 SET START 3"},
	{"ALTER TABLE t ALTER id SET GENERATED ALWAYS, ALTER id RESTART",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:SET GENERATED/RESTART Column:id Generated:GENERATED ALWAYS AS IDENTITY} {Action:SET GENERATED/RESTART Column:id Clauses:{Restart:true}}]}",
		"ALTER TABLE t ALTER id SET GENERATED ALWAYS, ALTER id RESTART"},
	{"ALTER TABLE t ALTER id RESTART 7 SET NO CYCLE SET MAXVALUE 100 SET NO MINVALUE SET CACHE 5",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:SET GENERATED/RESTART Column:id Clauses:{NoMinValue:true MaxValue:100 Restart:true RestartAt:7 Cache:5 Cycle:false}}]}",
		"ALTER TABLE t ALTER id RESTART 7 SET NO CYCLE SET MAXVALUE 100 SET NO MINVALUE SET CACHE 5"},
	{"ALTER TABLE t ALTER COLUMN n DROP IDENTITY IF EXISTS, ALTER n DROP IDENTITY",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:DROP IDENTITY Column:n IfExists:true} {Action:DROP IDENTITY Column:n}]}",
		"ALTER TABLE t ALTER COLUMN n DROP IDENTITY IF EXISTS, ALTER n DROP IDENTITY"},
	{"ALTER TABLE t ALTER COLUMN id TYPE bigint",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:TYPE Column:id TypeText:bigint}]}",
		"ALTER TABLE t ALTER COLUMN id TYPE bigint"},
	{`ALTER TABLE t ALTER id SET DATA TYPE smallint USING id::smallint, ALTER v TYPE text COLLATE "C", ALTER w TYPE numeric(10, 2)`,
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:TYPE Column:id TypeText:smallint Type:smallint} " +
			"{Action:TYPE Column:v TypeText:text TypeErr:22023 identity column type must be smallint, integer, or bigint} " +
			"{Action:TYPE Column:w TypeText:numeric(10, 2) TypeErr:22023 identity column type must be smallint, integer, or bigint}]}",
		`ALTER TABLE t ALTER id SET DATA TYPE smallint USING id::smallint, ALTER v TYPE text COLLATE "C", ALTER w TYPE numeric(10, 2)`},
	{"ALTER TABLE t DROP COLUMN IF EXISTS q CASCADE, DROP r RESTRICT, DROP CONSTRAINT k",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:DROP COLUMN Column:q IfExists:true Cascade:true} {Action:DROP COLUMN Column:r} {}]}",
		"ALTER TABLE t DROP COLUMN IF EXISTS q CASCADE, DROP r RESTRICT, DROP CONSTRAINT k"},
	{`ALTER TABLE t RENAME COLUMN a TO "B"`,
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:RENAME COLUMN Column:a NewName:B}]}",
		`ALTER TABLE t RENAME COLUMN a TO "B"`},
	{"ALTER TABLE t RENAME a TO b",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:RENAME COLUMN Column:a NewName:b}]}",
		"ALTER TABLE t RENAME a TO b"},
	{`ALTER TABLE IF EXISTS t RENAME TO "U"`,
		`{Op:ALTER TABLE Names:[t] Unqualified:[true] IfExists:true Cmds:[{Action:RENAME TO NewName:"U"}]}`,
		`ALTER TABLE IF EXISTS t RENAME TO "U"`},
	{"ALTER TABLE app.t SET SCHEMA other",
		"{Op:ALTER TABLE Names:[app.t] Unqualified:[false] Cmds:[{Action:SET SCHEMA NewName:other}]}",
		"ALTER TABLE app.t SET SCHEMA other"},
	{"ALTER TABLE t ALTER COLUMN id DROP NOT NULL, ALTER v DROP NOT NULL, ALTER w SET NOT NULL",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:DROP NOT NULL Column:id} {Action:DROP NOT NULL Column:v} {Action:SET NOT NULL Column:w}]}",
		"ALTER TABLE t ALTER COLUMN id DROP NOT NULL, ALTER v DROP NOT NULL, ALTER w SET NOT NULL"},
	{"ALTER TABLE ONLY (t) ALTER id DROP DEFAULT",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Only:true Cmds:[{Action:DROP DEFAULT Column:id}]}",
		"ALTER TABLE ONLY (t) ALTER id DROP DEFAULT"},
	{"ALTER TABLE t* ALTER id DROP DEFAULT",
		"{Op:ALTER TABLE Names:[t] Unqualified:[true] Cmds:[{Action:DROP DEFAULT Column:id}]}",
		"ALTER TABLE t* ALTER id DROP DEFAULT"},

	// DROP TABLE.
	{"DROP TABLE t", "{Op:DROP TABLE Names:[t] Unqualified:[true]}", "DROP TABLE t"},
	{`DROP TABLE IF EXISTS a, app."B" CASCADE`, `{Op:DROP TABLE Names:[a app."B"] Unqualified:[true false] IfExists:true Cascade:true}`, `DROP TABLE IF EXISTS a, app."B" CASCADE`},
	{"drop table a restrict", "{Op:DROP TABLE Names:[a] Unqualified:[true]}", "drop table a restrict"},
}

func TestTableDDL(t *testing.T) {
	for _, tc := range tableCases {
		t.Run(tc.sql, func(t *testing.T) {
			st := one(t, Postgres, tc.sql)
			if st.Kind != CatalogDDL || st.Table == nil || st.Catalog == nil {
				t.Fatalf("Kind %v (err %v), Table %v, Catalog %v: want CatalogDDL with both", st.Kind, st.Err, st.Table, st.Catalog)
			}
			if got := describe(st.Table); got != tc.want {
				t.Errorf("parse\n got %s\nwant %s", got, tc.want)
			}
			out, empty := st.Table.AppendSQL([]byte("x;"), nil)
			if string(out) != "x;"+tc.render || empty != (tc.render == "") {
				t.Errorf("AppendSQL = %q, %v; want %q", out, empty, tc.render)
			}
			// The byte offsets are the definitions' and subcommands'.
			tb := st.Table
			for _, c := range tb.Columns {
				if def := st.Text[c.Start:c.End]; !strings.HasPrefix(def, strings.Fields(def)[0]) || !strings.Contains(strings.ToLower(def), strings.ToLower(c.TypeText)) {
					t.Errorf("column %s spans %q", c.Name, def)
				}
			}
			prev := 0
			for _, c := range tb.Cmds {
				if c.Start < prev || c.End <= c.Start || c.End > len(st.Text) {
					t.Fatalf("subcommand %+v after %d", c, prev)
				}
				prev = c.End
			}
		})
	}
}

func TestTableSpans(t *testing.T) {
	st := one(t, Postgres, "CREATE TABLE t (a int, id serial PRIMARY KEY , CONSTRAINT k CHECK (a > 0), b text)")
	var got []string
	for _, c := range st.Table.Columns {
		got = append(got, st.Text[c.Start:c.End])
	}
	if want := []string{"a int", "id serial PRIMARY KEY", "b text"}; !reflect.DeepEqual(got, want) {
		t.Errorf("column spans %q, want %q", got, want)
	}
	st = one(t, Postgres, "ALTER TABLE t ADD COLUMN id serial, ALTER b SET DEFAULT nextval('s') ,DROP c")
	got = nil
	for _, c := range st.Table.Cmds {
		got = append(got, st.Text[c.Start:c.End])
	}
	if want := []string{"ADD COLUMN id serial", "ALTER b SET DEFAULT nextval('s')", "DROP c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("subcommand spans %q, want %q", got, want)
	}
}

// TestTableRendering: how the engine's choices shape the text the database
// receives.
func TestTableRendering(t *testing.T) {
	const create = "CREATE TABLE t (id bigserial, n int GENERATED ALWAYS AS IDENTITY, s int DEFAULT nextval('s'), v text)"
	const alter = "ALTER TABLE t ADD COLUMN id serial /* new */, ALTER n SET GENERATED BY DEFAULT, ALTER s SET DEFAULT nextval('s'),\n\tALTER v TYPE bigint"
	for _, tc := range []struct {
		sql   string
		how   map[int]Rendering // missing: Strip
		want  string
		empty bool
	}{
		{create, nil, "CREATE TABLE t (id bigint NOT NULL, n int NOT NULL, s int, v text)", false},
		{create, map[int]Rendering{0: AsWritten, 2: AsWritten}, "CREATE TABLE t (id bigserial, n int NOT NULL, s int DEFAULT nextval('s'), v text)", false},
		{create, map[int]Rendering{0: Omit, 1: Omit, 2: Omit, 3: Omit}, "CREATE TABLE t (id bigint NOT NULL, n int NOT NULL, s int, v text)", false}, // a column is never left out
		{alter, nil, "ALTER TABLE t ADD COLUMN id integer NOT NULL /* new */, ALTER n SET GENERATED BY DEFAULT,\n\tALTER v TYPE bigint", false},
		{alter, map[int]Rendering{1: Omit}, "ALTER TABLE t ADD COLUMN id integer NOT NULL,\n\tALTER v TYPE bigint", false},
		{alter, map[int]Rendering{0: Omit, 1: Omit}, "ALTER TABLE t ALTER v TYPE bigint", false},
		{alter, map[int]Rendering{0: AsWritten, 2: AsWritten, 3: Omit}, "ALTER TABLE t ADD COLUMN id serial /* new */, ALTER n SET GENERATED BY DEFAULT, ALTER s SET DEFAULT nextval('s')", false},
		{alter, map[int]Rendering{0: Omit, 1: Omit, 3: Omit}, "", true},
		{"ALTER TABLE t RENAME TO u", map[int]Rendering{0: Omit}, "", true},
		{"ALTER TABLE t RENAME TO u", nil, "ALTER TABLE t RENAME TO u", false},
		{"DROP TABLE t", map[int]Rendering{0: Omit}, "DROP TABLE t", false},
		// Words stay apart.
		{"CREATE TABLE t (id int DEFAULT nextval('s')NOT NULL, n int GENERATED ALWAYS AS IDENTITY(START 2)PRIMARY KEY, m int NOT NULL GENERATED ALWAYS AS IDENTITY(START 2)UNIQUE, v serial/**/UNIQUE)", nil,
			"CREATE TABLE t (id int NOT NULL, n int NOT NULL PRIMARY KEY, m int NOT NULL UNIQUE, v integer NOT NULL/**/UNIQUE)", false},
	} {
		st := one(t, Postgres, tc.sql)
		var calls []int
		how := func(i int) Rendering {
			calls = append(calls, i)
			return tc.how[i]
		}
		out, empty := st.Table.AppendSQL([]byte("prefix "), how)
		if string(out) != "prefix "+tc.want || empty != tc.empty {
			t.Errorf("%s with %v:\n got %q, %v\nwant %q, %v", tc.sql, tc.how, out, empty, tc.want, tc.empty)
		}
		if n := len(st.Table.Columns) + len(st.Table.Cmds); st.Table.Op != TableDrop && len(calls) != n && !(st.Table.Op == TableCreate && len(calls) == 3) {
			t.Errorf("%s: how called for %v", tc.sql, calls)
		}
	}
}

// TestTablePlanSQL: a plan's text carries its table statements as
// AppendSQL writes them, and leaves out those left empty.
func TestTablePlanSQL(t *testing.T) {
	p := Build(Postgres, "CREATE TABLE t (id serial); INSERT INTO t VALUES (1); ALTER TABLE t ALTER id SET DEFAULT nextval('s'); DROP TABLE u")
	if p.Err != nil || len(p.Statements) != 4 {
		t.Fatalf("plan %+v, %v", p.Statements, p.Err)
	}
	for i, want := range []Kind{CatalogDDL, PassThrough, CatalogDDL, CatalogDDL} {
		if p.Statements[i].Kind != want {
			t.Errorf("statement %d: %v, want %v", i, p.Statements[i].Kind, want)
		}
	}
	// AppendSQL writes table statements as they are: a front end serves
	// the ones that concern store sequences itself.
	if got, _ := p.AppendSQL(nil, nil, false); string(got) != "CREATE TABLE t (id serial); INSERT INTO t VALUES (1); ALTER TABLE t ALTER id SET DEFAULT nextval('s'); DROP TABLE u" {
		t.Errorf("AppendSQL %q", got)
	}
	if got, _ := p.AppendSQLServed(nil, nil, false, 1<<3); string(got) != "CREATE TABLE t (id serial); INSERT INTO t VALUES (1); ALTER TABLE t ALTER id SET DEFAULT nextval('s')" {
		t.Errorf("AppendSQLServed %q", got)
	}
	how := func(stmt, i int) Rendering {
		if stmt == 0 {
			return AsWritten
		}
		return Strip
	}
	if got, _ := p.AppendSQLTables(nil, nil, false, 0, how); string(got) != "CREATE TABLE t (id serial); INSERT INTO t VALUES (1); DROP TABLE u" {
		t.Errorf("AppendSQLTables %q", got)
	}
	// A string whose first statement is left empty.
	p = Build(Postgres, "ALTER TABLE t ALTER id SET DEFAULT nextval('s'); SELECT 1")
	if got, _ := p.AppendSQLTables(nil, nil, false, 0, nil); string(got) != " SELECT 1" {
		t.Errorf("AppendSQLTables %q", got)
	}
}

// TestTableORMs: the DDL that ORMs and migration tools write, as they
// write it.
func TestTableORMs(t *testing.T) {
	for _, tc := range []struct {
		name, sql, want, render string
	}{
		{"gorm AutoMigrate", `CREATE TABLE "users" ("id" bigserial,"name" text,PRIMARY KEY ("id"))`,
			"{Op:CREATE TABLE Names:[users] Unqualified:[true] Columns:[{Name:id TypeText:bigserial Default:{Serial:true Clauses:{Type:bigint}}} {Name:name TypeText:text}]}",
			`CREATE TABLE "users" ("id" bigint NOT NULL,"name" text,PRIMARY KEY ("id"))`},
		{"gorm AutoMigrate, smaller ints", `CREATE TABLE "items" ("id" smallserial,"order_id" serial,"created_at" timestamptz,PRIMARY KEY ("id"),CONSTRAINT "fk_items_order" FOREIGN KEY ("order_id") REFERENCES "orders"("id"))`,
			"{Op:CREATE TABLE Names:[items] Unqualified:[true] Columns:[{Name:id TypeText:smallserial Default:{Serial:true Type:smallint Clauses:{Type:smallint}}} " +
				"{Name:order_id TypeText:serial Default:{Serial:true Type:integer Clauses:{Type:integer}}} {Name:created_at TypeText:timestamptz}]}",
			`CREATE TABLE "items" ("id" smallint NOT NULL,"order_id" integer NOT NULL,"created_at" timestamptz,PRIMARY KEY ("id"),CONSTRAINT "fk_items_order" FOREIGN KEY ("order_id") REFERENCES "orders"("id"))`},
		{"ent", `CREATE TABLE IF NOT EXISTS "users" ("id" bigint NOT NULL GENERATED BY DEFAULT AS IDENTITY, "age" bigint NOT NULL, "name" character varying NOT NULL DEFAULT 'unknown', ` +
			`"created_at" timestamp with time zone NOT NULL, PRIMARY KEY ("id"))`,
			"{Op:CREATE TABLE Names:[users] Unqualified:[true] IfNotExists:true Columns:[{Name:id TypeText:bigint NotNull:true Default:{Kind:GENERATED BY DEFAULT AS IDENTITY Clauses:{Type:bigint}}} " +
				"{Name:age TypeText:bigint NotNull:true} {Name:name TypeText:character varying NotNull:true} {Name:created_at TypeText:timestamp with time zone NotNull:true}]}",
			`CREATE TABLE IF NOT EXISTS "users" ("id" bigint NOT NULL, "age" bigint NOT NULL, "name" character varying NOT NULL DEFAULT 'unknown', "created_at" timestamp with time zone NOT NULL, PRIMARY KEY ("id"))`},
		{"bun", `CREATE TABLE "users" ("id" BIGSERIAL NOT NULL, "name" VARCHAR, "emails" JSONB, PRIMARY KEY ("id"))`,
			"{Op:CREATE TABLE Names:[users] Unqualified:[true] Columns:[{Name:id TypeText:BIGSERIAL NotNull:true Default:{Serial:true Clauses:{Type:bigint}}} {Name:name TypeText:VARCHAR} {Name:emails TypeText:JSONB}]}",
			`CREATE TABLE "users" ("id" bigint NOT NULL, "name" VARCHAR, "emails" JSONB, PRIMARY KEY ("id"))`},
		{"bun identity", `CREATE TABLE "users" ("id" BIGINT NOT NULL GENERATED BY DEFAULT AS IDENTITY, "name" VARCHAR, PRIMARY KEY ("id"))`,
			"{Op:CREATE TABLE Names:[users] Unqualified:[true] Columns:[{Name:id TypeText:BIGINT NotNull:true Default:{Kind:GENERATED BY DEFAULT AS IDENTITY Clauses:{Type:bigint}}} {Name:name TypeText:VARCHAR}]}",
			`CREATE TABLE "users" ("id" BIGINT NOT NULL, "name" VARCHAR, PRIMARY KEY ("id"))`},
		{"goose version table", "CREATE TABLE goose_db_version (\n\t\tid integer PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY,\n\t\tversion_id bigint NOT NULL,\n" +
			"\t\tis_applied boolean NOT NULL,\n\t\ttstamp timestamp NOT NULL DEFAULT now()\n\t)",
			"{Op:CREATE TABLE Names:[goose_db_version] Unqualified:[true] Columns:[{Name:id TypeText:integer Default:{Kind:GENERATED BY DEFAULT AS IDENTITY Type:integer Clauses:{Type:integer}}} " +
				"{Name:version_id TypeText:bigint NotNull:true} {Name:is_applied TypeText:boolean NotNull:true} {Name:tstamp TypeText:timestamp NotNull:true}]}",
			"CREATE TABLE goose_db_version (\n\t\tid integer PRIMARY KEY NOT NULL,\n\t\tversion_id bigint NOT NULL,\n\t\tis_applied boolean NOT NULL,\n\t\ttstamp timestamp NOT NULL DEFAULT now()\n\t)"},
		{"goose migration", "-- +goose Up\n-- +goose StatementBegin\nCREATE TABLE post (\n    id serial PRIMARY KEY,\n    title text NOT NULL,\n    body text\n);\n-- +goose StatementEnd",
			"{Op:CREATE TABLE Names:[post] Unqualified:[true] Columns:[{Name:id TypeText:serial Default:{Serial:true Type:integer Clauses:{Type:integer}}} {Name:title TypeText:text NotNull:true} {Name:body TypeText:text}]}",
			"-- +goose Up\n-- +goose StatementBegin\nCREATE TABLE post (\n    id integer NOT NULL PRIMARY KEY,\n    title text NOT NULL,\n    body text\n)"},
		{"goose migration, ALTER", "-- +goose Up\nALTER TABLE post ADD COLUMN author_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 1000);",
			"{Op:ALTER TABLE Names:[post] Unqualified:[true] Cmds:[{Action:ADD COLUMN Column:author_id Def:{Name:author_id TypeText:bigint Default:{Kind:GENERATED ALWAYS AS IDENTITY Clauses:{Type:bigint Start:1000}}}}]}",
			"-- +goose Up\nALTER TABLE post ADD COLUMN author_id bigint NOT NULL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !mayPlan(Postgres, tc.sql) {
				t.Fatal("mayPlan is false: the statement would pass through unplanned")
			}
			p, err := NewPlanner(Postgres, 0).Plan(tc.sql)
			if err != nil || len(p.Statements) != 1 || p.Statements[0].Table == nil {
				t.Fatalf("plan %+v, %v", p.Statements, err)
			}
			if got := describe(p.Statements[0].Table); got != tc.want {
				t.Errorf("parse\n got %s\nwant %s", got, tc.want)
			}
			if got, _ := p.Statements[0].Table.AppendSQL(nil, nil); string(got) != tc.render {
				t.Errorf("AppendSQL\n got %q\nwant %q", got, tc.render)
			}
		})
	}
}

// TestTablePassThrough: table statements without sequence defaults, and
// text the database rejects anyway, go as they are.
func TestTablePassThrough(t *testing.T) {
	for _, sql := range []string{
		"CREATE TABLE t (id int, v text)",
		"CREATE TABLE t ()",
		`CREATE TABLE t (id public.serial, b "Serial", c serial_x, serial int, identity int)`,
		"CREATE TABLE t AS SELECT 1 AS id",
		"CREATE TABLE t (a, b) AS VALUES (1, 2)",
		"CREATE TEMP TABLE t (id int)",
		"CREATE TABLE t PARTITION OF p FOR VALUES IN (1)",
		"CREATE TABLE t OF ty (id WITH OPTIONS NOT NULL)",
		"CREATE INDEX i ON t (id)",
		"CREATE SCHEMA app",
		"CREATE TABLE t (id int DEFAULT 5 DEFAULT 6)",                // the database reports it
		"CREATE TABLE t (id int GENERATED BY DEFAULT AS (1) STORED)", // so too
		"CREATE TABLE t (b serial",                                   // unbalanced
		"CREATE TABLE a.b.c (id serial)",                             // cross-database
		"ALTER TABLE t ADD COLUMN c int",
		"ALTER TABLE t ALTER id SET NOT NULL, ALTER v SET STATISTICS 100, ALTER 3 SET STATISTICS 5, ALTER CONSTRAINT k DEFERRABLE",
		"ALTER TABLE t RENAME CONSTRAINT a TO b",
		"ALTER TABLE t ATTACH PARTITION p FOR VALUES IN (1)",
		"ALTER TABLE t ALTER id SET AS bigint", // PostgreSQL's parser reports it
		"ALTER TABLE t ALTER c SET DEFAULT",
	} {
		if p := Build(Postgres, sql); !p.PassThrough() {
			t.Errorf("%s: %+v, want a pass-through plan", sql, p.Statements)
		}
	}
	for _, d := range []Dialect{MySQL, SQLite} {
		if p := Build(d, "CREATE TABLE t (id serial)"); !p.PassThrough() {
			t.Errorf("%v: CREATE TABLE t (id serial) planned %+v", d, p.Statements)
		}
	}
}

// TestTableUnsupported: sequence defaults seqshim does not serve, and
// sequence calls elsewhere in definitions, are refused with 0A000 and
// what to do.
func TestTableUnsupported(t *testing.T) {
	for _, tc := range []struct {
		sql, msg string
	}{
		{"CREATE TABLE t OF ty (id WITH OPTIONS DEFAULT nextval('s'))", `column "id" of a typed table is DEFAULT nextval`},
		{"CREATE TABLE t PARTITION OF p (id DEFAULT nextval('s')) FOR VALUES IN (1)", `column "id" of a partition is DEFAULT nextval`},
		{"CREATE TABLE t OF ty (id WITH OPTIONS GENERATED ALWAYS AS IDENTITY)", "identity columns are not supported on typed tables"},
		{"CREATE TABLE t PARTITION OF p (id GENERATED ALWAYS AS IDENTITY) FOR VALUES IN (1)", "identity columns are not supported on partitions"},
		{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (OWNED BY t.id))", "seqshim: OWNED BY is not supported in the options of an identity column"},
		{"CREATE TABLE t (id int DEFAULT nextval('s') + 1)", "nextval('s') in a definition would be evaluated by the database"},
		{"CREATE TABLE t (id int DEFAULT nextval('s'::text))", "nextval('s'::text) in a definition"},
		{"CREATE TABLE t (id int DEFAULT nextval($1))", "nextval($1) in a definition"},
		{"CREATE TABLE t (id int CHECK (id < nextval('s')), b serial)", "nextval('s') in a definition"},
		{"CREATE TABLE t (a, b) AS SELECT nextval('s'), 2", "nextval('s') in a definition"},
		{"ALTER TABLE t ALTER id SET DEFAULT nextval('s') + 1", "nextval('s') in a definition"},
		{"ALTER TABLE t ADD COLUMN b serial, ADD CHECK (b > currval('s'))", "currval('s') in a definition"},
	} {
		p := Build(Postgres, tc.sql)
		var se *sequence.Error
		if !errors.As(p.Err, &se) || se.Code != sequence.CodeFeatureNotSupported || !strings.Contains(se.Message, tc.msg) ||
			len(p.Statements) != 1 || p.Statements[0].Kind != Reject || p.Statements[0].Table != nil {
			t.Errorf("%s: %v, want 0A000 %q", tc.sql, p.Err, tc.msg)
		}
	}
}

// tableErrors are table statements with sequence defaults that PostgreSQL
// rejects, with its SQLSTATE and message, in the order it checks them
// (syntax, then each column's definition, then each sequence's options,
// then the table); TestTableErrorsMatchPostgres checks them against the
// server, on a schema with
//
//	CREATE TABLE tt (id int GENERATED ALWAYS AS IDENTITY, c int NOT NULL, n int)
var tableErrors = []struct {
	sql, code, msg string
}{
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (START 1 START 2), b text GENERATED ALWAYS AS IDENTITY)", "42601", "conflicting or redundant options"},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (START 1 START 2), b int DEFAULT 1 DEFAULT 2)", "42601", `multiple default values specified for column "b" of table "t"`},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (START 'x'), b int DEFAULT 1 DEFAULT 2)", "42601", `syntax error at or near "'x'"`},
	{"CREATE TABLE t (id text GENERATED ALWAYS AS IDENTITY (START 1 START 2))", "42601", "conflicting or redundant options"},
	{"CREATE TABLE t (id text GENERATED ALWAYS AS IDENTITY (START 1.5))", "22023", "identity column type must be smallint, integer, or bigint"},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (START 1.5))", "22P02", `invalid input syntax for type bigint: "1.5"`},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY ())", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (AS bigint))", "42601", "conflicting or redundant options"},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (LOGGED UNLOGGED))", "42601", "conflicting or redundant options"},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME x SEQUENCE NAME y START 1 START 2))", "42601", "conflicting or redundant options"},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME a.b.c.d))", "42601", "improper relation name (too many dotted names): a.b.c.d"},
	{`CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME ""))`, "42601", `zero-length delimited identifier at or near """"`},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY NULL)", "42601", `conflicting NULL/NOT NULL declarations for column "id" of table "t"`},
	{"CREATE TABLE t (id serial, c int! DEFAULT nextval('s'))", "42601", `syntax error at or near "!"`},
	{"ALTER TABLE tt ADD COLUMN c00 seria! DEFAULT nextval('s')", "42601", `syntax error at or near "!"`},
	{"CREATE TABLE t (id int DEFAULT 1 GENERATED ALWAYS AS IDENTITY)", "42601", `both default and identity specified for column "id" of table "t"`},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY GENERATED BY DEFAULT AS IDENTITY)", "42601", `multiple identity specifications for column "id" of table "t"`},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY GENERATED ALWAYS AS (1) STORED)", "42601", `both identity and generation expression specified for column "id" of table "t"`},
	{"CREATE TABLE t (id int GENERATED ALWAYS AS (1) STORED GENERATED ALWAYS AS (2) STORED, b serial)", "42601", `multiple generation clauses specified for column "id" of table "t"`},
	{"CREATE TABLE t (id serial GENERATED ALWAYS AS (1) STORED)", "42601", `both default and generation expression specified for column "id" of table "t"`},
	{"CREATE TABLE t (id int DEFAULT nextval('s') GENERATED ALWAYS AS (1) STORED)", "42601", `both default and generation expression specified for column "id" of table "t"`},
	{"CREATE TABLE t (id serial DEFAULT 5)", "42601", `multiple default values specified for column "id" of table "t"`},
	{"CREATE TABLE t (id serial NULL)", "42601", `conflicting NULL/NOT NULL declarations for column "id" of table "t"`},
	{"CREATE TABLE t (id serial NOT NULL NULL)", "42601", `conflicting NULL/NOT NULL declarations for column "id" of table "t"`},
	{"CREATE TABLE t (id serial GENERATED ALWAYS AS IDENTITY)", "42601", `both default and identity specified for column "id" of table "t"`},
	{"CREATE TABLE t (id serial[])", "0A000", "array of serial is not implemented"},
	{"CREATE TABLE t (id serial ARRAY[3])", "0A000", "array of serial is not implemented"},
	{"CREATE TABLE t (id serial(5))", "42601", `type modifier is not allowed for type "integer"`},
	{"CREATE TABLE t (id smallserial(5))", "42601", `type modifier is not allowed for type "smallint"`},
	{"CREATE TABLE t (id bigserial(1, 2)[])", "0A000", "array of serial is not implemented"},
	{"CREATE TABLE t (id serial varying)", "42601", `syntax error at or near "varying"`},
	{"CREATE TABLE t (id int DEFAULT nextval('s') DEFAULT 1)", "42601", `multiple default values specified for column "id" of table "t"`},
	{"CREATE TABLE t (id int DEFAULT nextval('a.b.c.d'))", "42601", "improper relation name (too many dotted names): a.b.c.d"},
	{"CREATE TABLE t (id int DEFAULT nextval(''))", "42602", "invalid name syntax"},
	{"CREATE TABLE t (id int4(5) GENERATED ALWAYS AS IDENTITY)", "42601", `type modifier is not allowed for type "int4"`},
	{"CREATE TABLE t (id int(5) GENERATED ALWAYS AS IDENTITY)", "42601", `syntax error at or near "("`},
	{"CREATE TABLE t (id pg_catalog.int8(5) GENERATED ALWAYS AS IDENTITY)", "42601", `type modifier is not allowed for type "pg_catalog.int8"`},
	{"CREATE TABLE t (id int varying GENERATED ALWAYS AS IDENTITY)", "42601", `syntax error at or near "varying"`},
	{`CREATE TABLE t (id "integer" GENERATED ALWAYS AS IDENTITY)`, "42704", `type "integer" does not exist`},
	{"CREATE TABLE t (id rw_no_such_type GENERATED ALWAYS AS IDENTITY)", "42704", `type "rw_no_such_type" does not exist`},
	{"CREATE TABLE t (id int2 ARRAY GENERATED ALWAYS AS IDENTITY)", "22023", "identity column type must be smallint, integer, or bigint"},
	{"CREATE TABLE t (id int[] GENERATED ALWAYS AS IDENTITY)", "22023", "identity column type must be smallint, integer, or bigint"},
	{"CREATE TABLE t (id double precision GENERATED ALWAYS AS IDENTITY)", "22023", "identity column type must be smallint, integer, or bigint"},
	{"CREATE TABLE t (id numeric(10) GENERATED ALWAYS AS IDENTITY)", "22023", "identity column type must be smallint, integer, or bigint"},
	{"CREATE TABLE t (id timestamp with time zone GENERATED ALWAYS AS IDENTITY)", "22023", "identity column type must be smallint, integer, or bigint"},
	{`CREATE TABLE t (id int CONSTRAINT x COLLATE "C", b serial)`, "42601", `syntax error at or near "COLLATE"`},
	{"CREATE TABLE t (a int,, b serial)", "42601", `syntax error at or near ","`},
	{"CREATE TABLE t (a int, b serial,)", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id serial, b int GENERATED ALWAYS)", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id serial, b int GENERATED)", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id serial, b int GENERATED ALWAYS AS)", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id serial, b int GENERATED ALWAYS AS IDENTITY (START))", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id serial, b int CONSTRAINT)", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id serial, b int PRIMARY)", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id serial, b int REFERENCES)", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id serial, b int UNIQUE NULLS)", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id serial, b int DEFAULT)", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id serial, b)", "42601", `syntax error at or near ")"`},
	{"CREATE TABLE t (id serial COMPRESSION)", "42601", `syntax error at or near ")"`},

	{"ALTER TABLE tt ALTER id SET SEQUENCE NAME x", "42601", "invalid sequence option SEQUENCE NAME"},
	{"ALTER TABLE tt ALTER id SET LOGGED", "XX000", `option "logged" not recognized`},
	{"ALTER TABLE tt ALTER id SET INCREMENT 2 SET INCREMENT 3", "42601", "conflicting or redundant options"},
	{"ALTER TABLE tt ALTER id SET GENERATED ALWAYS SET GENERATED BY DEFAULT", "42601", "conflicting or redundant options"},
	{"ALTER TABLE tt ALTER id SET NO CYCLE SET CYCLE", "42601", "conflicting or redundant options"},
	{"ALTER TABLE tt ALTER id SET INCREMENT 1.5", "22P02", `invalid input syntax for type bigint: "1.5"`},
	{"ALTER TABLE tt ALTER c ADD GENERATED ALWAYS AS IDENTITY (AS int)", "42601", "conflicting or redundant options"},
	{"ALTER TABLE tt ALTER c ADD GENERATED ALWAYS AS IDENTITY foo", "42601", `syntax error at or near "foo"`},
	{"ALTER TABLE tt ALTER c DROP IDENTITY x", "42601", `syntax error at or near "x"`},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER id SET AS bigint", "42601", `sequence option "as" not supported here`},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER id SET RESTART 7", "42601", `sequence option "restart" not supported here`},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER id SET OWNED BY tt.n", "42601", `sequence option "owned_by" not supported here`},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER id SET INCREMENT SET START 1", "42601", `syntax error at or near "SET"`},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER id RESTART WITH", "42601", "syntax error at end of input"},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER id RESTART WITH;", "42601", `syntax error at or near ";"`},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER id RESTART WITH, ALTER n DROP DEFAULT", "42601", `syntax error at or near ","`},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER c SET DEFAULT", "42601", "syntax error at end of input"},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER id SET GENERATED", "42601", "syntax error at end of input"},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER id SET GENERATED BY", "42601", "syntax error at end of input"},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER id SET GENERATED ALWAYS RESTART 5 foo", "42601", `syntax error at or near "foo"`},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER id SET GENERATED ALWAYS foo", "42601", `syntax error at or near "foo"`},
	{"ALTER TABLE tt ADD COLUMN x serial,, ADD y int", "42601", `syntax error at or near ","`},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER c ADD GENERATED ALWAYS AS (1) STORED", "42601", `syntax error at or near "("`},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER c ADD GENERATED ALWAYS", "42601", "syntax error at end of input"},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER c TYPE", "42601", "syntax error at end of input"},
	{"ALTER TABLE tt ADD COLUMN x serial, ALTER c DROP DEFAULT x", "42601", `syntax error at or near "x"`},
}

func TestTableErrors(t *testing.T) {
	for _, tc := range tableErrors {
		t.Run(tc.sql, func(t *testing.T) {
			code, msg := planDDLError(tc.sql)
			if code != tc.code || msg != tc.msg {
				t.Errorf("got %s %q, want %s %q", code, msg, tc.code, tc.msg)
			}
		})
	}
}

// TestAddColumnErrors: an ADD COLUMN's errors after its syntax are the
// subcommand's (TableCmd.Err), for the engine to report once the column
// is known to be new, as PostgreSQL does; the statement is planned.
func TestAddColumnErrors(t *testing.T) {
	for _, tc := range []struct{ sql, code, msg string }{
		{"ALTER TABLE tt ADD COLUMN x serial DEFAULT 5", "42601", `multiple default values specified for column "x" of table "tt"`},
		{"ALTER TABLE tt ADD COLUMN x int GENERATED ALWAYS AS IDENTITY (START 1 START 2)", "42601", "conflicting or redundant options"},
		{"ALTER TABLE tt ADD COLUMN IF NOT EXISTS x text GENERATED ALWAYS AS IDENTITY", "22023", "identity column type must be smallint, integer, or bigint"},
		{"ALTER TABLE tt ADD x int GENERATED ALWAYS AS IDENTITY NULL", "42601", `conflicting NULL/NOT NULL declarations for column "x" of table "tt"`},
		{"ALTER TABLE tt ADD x serial[]", "0A000", "array of serial is not implemented"},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			st := one(t, Postgres, tc.sql)
			if st.Kind != CatalogDDL || st.Table == nil || len(st.Table.Cmds) != 1 {
				t.Fatalf("%v (err %v), want a CatalogDDL with one subcommand", st.Kind, st.Err)
			}
			var se *sequence.Error
			if err := st.Table.Cmds[0].Err; !errors.As(err, &se) || se.Code != tc.code || se.Message != tc.msg {
				t.Errorf("Err %v, want %s %q", err, tc.code, tc.msg)
			}
		})
	}
	// A syntax error is still the statement's.
	if st := one(t, Postgres, "ALTER TABLE tt ADD COLUMN x text GENERATED ALWAYS AS IDENTITY foo"); st.Kind != Reject {
		t.Errorf("syntax error: %v, want Reject", st.Kind)
	}
}

// TestTableCatalog: a table statement keeps the Catalog it had before it
// had a Table (what the engine does about owned sequences and sequences
// addressed as tables); others are ColumnDefaults.
func TestTableCatalog(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want Catalog
	}{
		{"CREATE TABLE t (id serial)", Catalog{Op: ColumnDefaults}},
		{"ALTER TABLE t ADD COLUMN id serial", Catalog{Op: ColumnDefaults}},
		{"ALTER TABLE t RENAME COLUMN a TO b", Catalog{Op: ColumnDefaults}},
		{"ALTER TABLE t ALTER id TYPE bigint", Catalog{Op: ColumnDefaults}},
		{"ALTER TABLE t DROP COLUMN a, ADD COLUMN id bigserial", Catalog{Op: DropsOwners}},
		{"ALTER TABLE t ALTER id DROP DEFAULT", Catalog{Op: DropsOwners}},
		{"DROP TABLE a, b", Catalog{Op: DropsOwners}},
		{"ALTER TABLE IF EXISTS s RENAME TO s2", Catalog{Op: AlterTable, Action: "RENAME TO", Names: []string{"s"}, Unqualified: true, RenameTo: "s2", IfExists: true}},
		{"ALTER TABLE app.s SET SCHEMA other", Catalog{Op: AlterTable, Action: "SET SCHEMA", Names: []string{"app.s"}, RenameTo: "other.s"}},
	} {
		st := one(t, Postgres, tc.sql)
		if st.Kind != CatalogDDL || st.Table == nil || !reflect.DeepEqual(*st.Catalog, tc.want) {
			t.Errorf("%s: %v, Catalog %+v, Table %v; want %+v and a Table", tc.sql, st.Kind, st.Catalog, st.Table != nil, tc.want)
		}
	}
	// Table statements of the other kinds stay as they were.
	for _, sql := range []string{"ALTER TABLE s OWNER TO bob", "DROP TABLE a b", "DROP VIEW v"} {
		if st := one(t, Postgres, sql); st.Kind != CatalogDDL || st.Table != nil {
			t.Errorf("%s: %v, Table %+v", sql, st.Kind, st.Table)
		}
	}
}

// TestTableLike: CREATE TABLE … (LIKE u …) and … INHERITS (u) are table DDL
// the session reads back (what the database copied, merged or declared),
// with or without sequence defaults of their own.
func TestTableLike(t *testing.T) {
	for _, sql := range []string{"CREATE TABLE t (LIKE u INCLUDING ALL)", "CREATE TABLE t (LIKE u, v text)"} {
		p := Build(Postgres, sql)
		if len(p.Statements) != 1 || p.Statements[0].Table == nil || !p.Statements[0].Table.ReadBack || p.Statements[0].Table.Op != TableCreate {
			t.Errorf("%s: %+v, want table DDL with Like", sql, p.Statements)
		}
	}
	for _, sql := range []string{"CREATE TABLE t (LIKE u, id serial)", "CREATE TABLE t (id bigint DEFAULT nextval('s')) INHERITS (u)", "CREATE TABLE c () INHERITS (p)"} {
		if p := Build(Postgres, sql); p.Err != nil || len(p.Statements) != 1 || p.Statements[0].Table == nil || !p.Statements[0].Table.ReadBack {
			t.Errorf("%s: %+v, %v; want table DDL read back", sql, p.Statements, p.Err)
		}
	}
	if p := Build(Postgres, "CREATE TEMP TABLE t (LIKE u INCLUDING ALL)"); !p.PassThrough() {
		t.Errorf("a temporary table with LIKE: %+v, want a pass-through plan", p.Statements)
	}
}
