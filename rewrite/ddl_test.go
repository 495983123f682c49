package rewrite

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

func TestDDL(t *testing.T) {
	i64 := sequence.Int64
	for _, tc := range []struct {
		d    Dialect
		sql  string
		want DDL
	}{
		{Postgres, "CREATE SEQUENCE s", DDL{Op: Create, Names: []string{"s"}, Unqualified: []bool{true}}},
		{Postgres, "create sequence Public.S;", DDL{Op: Create, Names: []string{"s"}, Unqualified: []bool{false}}},
		{Postgres, `CREATE SEQUENCE IF NOT EXISTS "S" AS integer INCREMENT BY 2 MINVALUE 1 MAXVALUE 100 START WITH 5 CACHE 10 CYCLE OWNED BY t.id`,
			DDL{Op: Create, Names: []string{`"S"`}, Unqualified: []bool{true}, IfNotExists: true, OwnedBy: "t.id", Clauses: sequence.Clauses{
				Type: sequence.TypeOf(sequence.Integer), Increment: i64(2), MinValue: i64(1), MaxValue: i64(100),
				Start: i64(5), Cache: i64(10), Cycle: sequence.Bool(true)}}},
		{Postgres, "CREATE SEQUENCE s INCREMENT -1 START -5 MINVALUE -10 MAXVALUE - 1",
			DDL{Op: Create, Names: []string{"s"}, Unqualified: []bool{true}, Clauses: sequence.Clauses{
				Increment: i64(-1), Start: i64(-5), MinValue: i64(-10), MaxValue: i64(-1)}}},
		{Postgres, "CREATE UNLOGGED SEQUENCE app.s AS pg_catalog.int2 NO MINVALUE NO MAXVALUE NO CYCLE OWNED BY NONE",
			DDL{Op: Create, Names: []string{"app.s"}, Unqualified: []bool{false}, Unlogged: true, OwnedBy: "none", Clauses: sequence.Clauses{
				Type: sequence.TypeOf(sequence.Smallint), NoMinValue: true, NoMaxValue: true, Cycle: sequence.Bool(false)}}},
		{Postgres, "CREATE SEQUENCE s START +9223372036854775807 INCREMENT -9223372036854775808",
			DDL{Op: Create, Names: []string{"s"}, Unqualified: []bool{true}, Clauses: sequence.Clauses{Start: i64(9223372036854775807), Increment: i64(-9223372036854775808)}}},
		{Postgres, "ALTER SEQUENCE s RESTART", DDL{Op: Alter, Names: []string{"s"}, Unqualified: []bool{true}, Clauses: sequence.Clauses{Restart: true}}},
		{Postgres, "ALTER SEQUENCE IF EXISTS s RESTART WITH 5 INCREMENT 3",
			DDL{Op: Alter, Names: []string{"s"}, Unqualified: []bool{true}, IfExists: true, Clauses: sequence.Clauses{Restart: true, RestartAt: i64(5), Increment: i64(3)}}},
		{Postgres, "ALTER SEQUENCE s RESTART 7 AS bigint", DDL{Op: Alter, Names: []string{"s"}, Unqualified: []bool{true}, Clauses: sequence.Clauses{Restart: true, RestartAt: i64(7), Type: sequence.TypeOf(sequence.Bigint)}}},
		{Postgres, `ALTER SEQUENCE s OWNED BY app."T".id`, DDL{Op: Alter, Names: []string{"s"}, Unqualified: []bool{true}, OwnedBy: `app."T".id`}},
		{Postgres, "ALTER SEQUENCE s RENAME TO T", DDL{Op: Rename, Names: []string{"s"}, Unqualified: []bool{true}, RenameTo: "t"}},
		{Postgres, `ALTER SEQUENCE IF EXISTS app.s RENAME TO "X"`, DDL{Op: Rename, Names: []string{"app.s"}, Unqualified: []bool{false}, IfExists: true, RenameTo: `app."X"`}},
		{Postgres, "ALTER SEQUENCE s SET SCHEMA App", DDL{Op: Move, Names: []string{"s"}, Unqualified: []bool{true}, RenameTo: "app.s"}},
		{Postgres, `alter sequence if exists app."S" set schema "Other"`, DDL{Op: Move, Names: []string{`app."S"`}, Unqualified: []bool{false}, IfExists: true, RenameTo: `"Other"."S"`}},
		{Postgres, "ALTER SEQUENCE app.s SET SCHEMA public", DDL{Op: Move, Names: []string{"app.s"}, Unqualified: []bool{false}, RenameTo: "s"}},
		{Postgres, "ALTER SEQUENCE s SET LOGGED", DDL{Op: SetLogged, Names: []string{"s"}, Unqualified: []bool{true}}},
		{Postgres, "ALTER SEQUENCE IF EXISTS app.s SET UNLOGGED;", DDL{Op: SetLogged, Names: []string{"app.s"}, Unqualified: []bool{false}, IfExists: true, Unlogged: true}},
		{Postgres, "DROP SEQUENCE s", DDL{Op: Drop, Names: []string{"s"}, Unqualified: []bool{true}}},
		{Postgres, `DROP SEQUENCE IF EXISTS a, app.b, "C" CASCADE`, DDL{Op: Drop, Names: []string{"a", "app.b", `"C"`}, Unqualified: []bool{true, false, true}, IfExists: true, Cascade: true}},
		{Postgres, "DROP SEQUENCE a RESTRICT", DDL{Op: Drop, Names: []string{"a"}, Unqualified: []bool{true}}},
		{Postgres, "/* c */ DROP -- x\n SEQUENCE a", DDL{Op: Drop, Names: []string{"a"}, Unqualified: []bool{true}}},
		{MySQL, "CREATE SEQUENCE `Db`.`S` START WITH 10", DDL{Op: Create, Names: []string{`"Db"."S"`}, Unqualified: []bool{false}, Clauses: sequence.Clauses{Start: i64(10)}}},
		{MySQL, "DROP SEQUENCE IF EXISTS s", DDL{Op: Drop, Names: []string{"s"}, Unqualified: []bool{true}, IfExists: true}},
		{SQLite, "CREATE SEQUENCE [S] INCREMENT BY 5", DDL{Op: Create, Names: []string{`"S"`}, Unqualified: []bool{true}, Clauses: sequence.Clauses{Increment: i64(5)}}},
	} {
		t.Run(tc.d.String()+"/"+tc.sql, func(t *testing.T) {
			st := one(t, tc.d, tc.sql)
			if st.Kind != SequenceDDL {
				t.Fatalf("Kind %v (err %v), want SequenceDDL", st.Kind, st.Err)
			}
			if got, want := fmt.Sprintf("%+v", deref(*st.DDL)), fmt.Sprintf("%+v", deref(tc.want)); got != want {
				t.Errorf("DDL\n got %s\nwant %s", got, want)
			}
		})
	}
}

// deref shows Clauses' pointers as values.
func deref(d DDL) map[string]any {
	m := map[string]any{}
	v := reflect.ValueOf(d)
	for i := 0; i < v.NumField(); i++ {
		m[v.Type().Field(i).Name] = v.Field(i).Interface()
	}
	c := reflect.ValueOf(d.Clauses)
	for i := 0; i < c.NumField(); i++ {
		f := c.Field(i)
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				continue
			}
			f = f.Elem()
		}
		m["Clauses."+c.Type().Field(i).Name] = f.Interface()
	}
	delete(m, "Clauses")
	return m
}

// ddlErrors are DDL statements PostgreSQL rejects, with its SQLSTATE and
// message; TestDDLErrorsMatchPostgres checks them against the server.
var ddlErrors = []struct {
	sql, code, msg string
}{
	{"CREATE SEQUENCE rw_x INCREMENT 2 INCREMENT 3", "42601", "conflicting or redundant options"},
	{"CREATE SEQUENCE rw_x START 1 START 2", "42601", "conflicting or redundant options"},
	{"CREATE SEQUENCE rw_x MINVALUE 1 NO MINVALUE", "42601", "conflicting or redundant options"},
	{"CREATE SEQUENCE rw_x CYCLE NO CYCLE", "42601", "conflicting or redundant options"},
	{"CREATE SEQUENCE rw_x AS int4 AS int8", "42601", "conflicting or redundant options"},
	{"CREATE SEQUENCE rw_x INCREMENT 1.5 INCREMENT 2", "42601", "conflicting or redundant options"},
	{"CREATE SEQUENCE rw_x FOO 3", "42601", `syntax error at or near "FOO"`},
	{"CREATE SEQUENCE rw_x NO FOO", "42601", `syntax error at or near "FOO"`},
	{"CREATE SEQUENCE rw_x INCREMENT '5'", "42601", `syntax error at or near "'5'"`},
	{"CREATE SEQUENCE rw_x INCREMENT BY 'abc'", "42601", `syntax error at or near "'abc'"`},
	{"CREATE SEQUENCE rw_x START 1, INCREMENT 2", "42601", `syntax error at or near ","`},
	{"CREATE SEQUENCE rw_x INCREMENT 2 INCREMENT 3 FOO", "42601", `syntax error at or near "FOO"`},
	{"CREATE SEQUENCE rw_x INCREMENT", "42601", "syntax error at end of input"},
	{"CREATE SEQUENCE", "42601", "syntax error at end of input"},
	{"CREATE SEQUENCE;", "42601", `syntax error at or near ";"`},
	{"CREATE SEQUENCE IF NOT EXISTS;", "42601", `syntax error at or near ";"`},
	{"CREATE SEQUENCE rw_x SEQUENCE NAME x", "42601", "invalid sequence option SEQUENCE NAME"},
	{"CREATE SEQUENCE a.b.c.d", "42601", "improper qualified name (too many dotted names): a.b.c.d"},
	{"CREATE SEQUENCE rw_x INCREMENT 1.5", "22P02", `invalid input syntax for type bigint: "1.5"`},
	{"CREATE SEQUENCE rw_x CACHE 1e3", "22P02", `invalid input syntax for type bigint: "1e3"`},
	{"CREATE SEQUENCE rw_x INCREMENT 99999999999999999999", "22003", `value "99999999999999999999" is out of range for type bigint`},
	{"CREATE SEQUENCE rw_x INCREMENT 9223372036854775808", "22003", `value "9223372036854775808" is out of range for type bigint`},
	{"CREATE SEQUENCE rw_x AS text", "22023", "sequence type must be smallint, integer, or bigint"},
	{"CREATE SEQUENCE rw_x AS numeric(10, 2)", "22023", "sequence type must be smallint, integer, or bigint"},
	{"CREATE SEQUENCE rw_x AS double precision", "22023", "sequence type must be smallint, integer, or bigint"},
	{"CREATE SEQUENCE rw_x INCREMENT 0", "22023", "INCREMENT must not be zero"},
	{"CREATE SEQUENCE rw_x AS smallint MAXVALUE 100000", "22023", "MAXVALUE (100000) is out of range for sequence data type smallint"},
	{"CREATE SEQUENCE rw_x MINVALUE 10 MAXVALUE 5", "22023", "MINVALUE (10) must be less than MAXVALUE (5)"},
	{"CREATE SEQUENCE rw_x START 0", "22023", "START value (0) cannot be less than MINVALUE (1)"},
	{"CREATE SEQUENCE rw_x CACHE 0", "22023", "CACHE (0) must be greater than zero"},
	{"ALTER SEQUENCE rw_x", "42601", "syntax error at end of input"},
	{"ALTER SEQUENCE rw_x;", "42601", `syntax error at or near ";"`},
	{"ALTER SEQUENCE rw_x RENAME TO a.b", "42601", `syntax error at or near "."`},
	{"ALTER SEQUENCE rw_x SET SCHEMA", "42601", "syntax error at end of input"},
	{"ALTER SEQUENCE rw_x SET SCHEMA;", "42601", `syntax error at or near ";"`},
	{"ALTER SEQUENCE rw_x SET SCHEMA a.b", "42601", `syntax error at or near "."`},
	{"ALTER SEQUENCE rw_x SET SCHEMA a, b", "42601", `syntax error at or near ","`},
	{"ALTER SEQUENCE rw_x SET SCHEMA a CASCADE", "42601", `syntax error at or near "CASCADE"`},
	{"ALTER SEQUENCE rw_x SET LOGGED CASCADE", "42601", `syntax error at or near "CASCADE"`},
	{"ALTER SEQUENCE rw_x SET UNLOGGED x", "42601", `syntax error at or near "x"`},
	{"ALTER SEQUENCE rw_x RESTART WITH", "42601", "syntax error at end of input"},
	{"ALTER SEQUENCE rw_x OWNED BY", "42601", "syntax error at end of input"},
	{"DROP SEQUENCE", "42601", "syntax error at end of input"},
	{"DROP SEQUENCE rw_x,", "42601", "syntax error at end of input"},
	{"DROP SEQUENCE rw_x rw_y", "42601", `syntax error at or near "rw_y"`},
}

func TestDDLErrors(t *testing.T) {
	for _, tc := range ddlErrors {
		t.Run(tc.sql, func(t *testing.T) {
			code, msg := planDDLError(tc.sql)
			if code != tc.code || msg != tc.msg {
				t.Errorf("got %s %q, want %s %q", code, msg, tc.code, tc.msg)
			}
		})
	}
}

// planDDLError plans sql and returns its error as the driver would report
// it: the plan's error, or for CREATE the error of Clauses.Create.
func planDDLError(sql string) (code, msg string) {
	p := Build(Postgres, sql)
	err := p.Err
	if err == nil && len(p.Statements) == 1 && p.Statements[0].Kind == SequenceDDL && p.Statements[0].DDL.Op == Create {
		_, _, err = p.Statements[0].DDL.Clauses.Create()
	}
	var se *sequence.Error
	if !errors.As(err, &se) {
		return "", fmt.Sprint(err)
	}
	return se.Code, se.Message
}

// TestDDLTemporary: a temporary sequence is PostgreSQL's own, passed
// through (temp.go); the MySQL and SQLite dialects refuse it once the
// statement parses, so its syntax errors come first, and the refusal
// rejects the whole string.
func TestDDLTemporary(t *testing.T) {
	if p := Build(Postgres, "CREATE TEMP SEQUENCE t"); !p.PassThrough() {
		t.Errorf("postgres: %+v", p.Statements)
	}
	p := Build(MySQL, "SELECT NEXTVAL(s); CREATE TEMPORARY SEQUENCE t")
	var se *sequence.Error
	if !errors.As(p.Err, &se) || se.Code != sequence.CodeFeatureNotSupported || !strings.Contains(se.Message, "temporary sequences are not supported in the mysql dialect") ||
		!errors.Is(p.Err, ErrUnsupported) || p.Statements[1].Kind != Reject {
		t.Errorf("mysql: plan err %v, statements %+v", p.Err, p.Statements)
	}
	if p := Build(SQLite, "CREATE TEMP SEQUENCE t FOO 3"); p.Err == nil || !strings.Contains(p.Err.Error(), "syntax error") {
		t.Errorf("sqlite: %v, want the syntax error first", p.Err)
	}
}

func TestDDLUnsupported(t *testing.T) {
	for _, sql := range []string{
		"ALTER SEQUENCE s SET LOGGED, SET UNLOGGED", // PostgreSQL's answer depends on the persistence
		"ALTER SEQUENCE s SET UNLOGGED, SET UNLOGGED",
		"CREATE SEQUENCE a.b.c",
	} {
		p, err := NewPlanner(Postgres, 0).Plan(sql)
		var se *sequence.Error
		if !errors.As(err, &se) || se.Code != sequence.CodeFeatureNotSupported || p.Statements[0].Kind != Reject {
			t.Errorf("%q: err %v, want 0A000", sql, err)
		}
	}
}

// TestAlterSequenceOwner: ALTER SEQUENCE … OWNER TO is a relation's
// subcommand, planned as the ALTER TABLE it is in PostgreSQL (for the
// engine to send to a store sequence's fenced twin); other dialects refuse it.
func TestAlterSequenceOwner(t *testing.T) {
	p, err := NewPlanner(Postgres, 0).Plan("ALTER SEQUENCE IF EXISTS app.s OWNER TO bob")
	if err != nil || p.Statements[0].Kind != CatalogDDL {
		t.Fatalf("plan %+v, %v; want CatalogDDL", p.Statements, err)
	}
	if c := p.Statements[0].Catalog; c.Op != AlterTable || c.Action != "OWNER TO" || !c.Sequence || !c.IfExists || c.Names[0] != "app.s" {
		t.Errorf("catalog %+v", c)
	}
	if _, err := NewPlanner(MySQL, 0).Plan("ALTER SEQUENCE s OWNER TO bob"); err == nil {
		t.Error("mysql: accepted")
	}
}
