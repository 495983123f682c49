package rewrite

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seqshim/seqshim/sequence"
)

// FuzzPlanPostgres, FuzzPlanMySQL and FuzzPlanSQLite check, for any text
// in their dialect ([checkPlan]): planning does not panic and is
// deterministic, the Planner's cached plan is Build's; a text the lexer
// cannot read is passed through whole (PostgreSQL, which refuses it before
// it runs any of it) or refused with 42601, and never has a call served;
// statements are slices of the text in order; calls name canonical
// sequences and existing parameters; and a rewritten statement changes no
// byte outside its call sites, adds no comment, and plans again to no call
// ([checkRewrite]). One target per dialect, so that each gets its share of
// a bounded run (scripts/test). The seed corpora are in
// testdata/fuzz/FuzzPlan*.
func FuzzPlanPostgres(f *testing.F) { fuzzPlan(f, Postgres) }

// FuzzPlanMySQL is FuzzPlanPostgres for the MySQL dialect.
func FuzzPlanMySQL(f *testing.F) { fuzzPlan(f, MySQL) }

// FuzzPlanSQLite is FuzzPlanPostgres for the SQLite dialect.
func FuzzPlanSQLite(f *testing.F) { fuzzPlan(f, SQLite) }

// planSeeds are seeds of every plan target, beside the corpus files.
var planSeeds = []string{
	"SELECT nextval('s')",
	"INSERT INTO t VALUES (nextval('s'), $1), (nextval('s'), 'nextval(''x'')') -- nextval('y')",
	"SELECT 1 -nextval('s'), $$nextval('s')$$ /* /* */ nextval('s') */",
	"CREATE TABLE t (id bigserial, n int DEFAULT nextval('s'), CHECK (n < nextval('s'))); INSERT INTO t VALUES (nextval('s'))",
	"ALTER TABLE t ALTER id SET DEFAULT nextval('s'), ADD c int GENERATED ALWAYS AS IDENTITY; SELECT currval('s')",
	"SELECT (NEXT VALUE FOR\"0\" ", // issue 23
	"SELECT nextval(", "SELECT nextval('s'", "SELECT nextval('s'); SELECT (", "CREATE SEQUENCE s (", "ALTER SEQUENCE",
	"SELECT nextval('s'), 'oops", "SELECT nextval('s') /* oops", "SELECT nextval('s'), $a$ oops",
	"SELECT nextval('s'), '\xff'", "SELECT nextval('s')\x01", "SELECT\vnextval('s')", "SELECT nextval('s'), '\x00'",
	`SELECT U&"\006Eextval"('s')`, `SELECT "nextval"('s'), "pg_catalog"."setval"('s', 1)`,
	"CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO u VALUES (nextval('s')); SELECT 1); SELECT nextval('s')",
}

// planners are shared by the targets, as a driver shares one per dialect.
var planners = [...]*Planner{Postgres: NewPlanner(Postgres, 64), MySQL: NewPlanner(MySQL, 64), SQLite: NewPlanner(SQLite, 64)}

func fuzzPlan(f *testing.F, d Dialect) {
	for _, s := range planSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) { checkPlan(t, d, sql) })
}

// checkPlan checks the plan of sql in dialect d (see FuzzPlanPostgres):
// also that a text the cheap trigger scan skips plans to nothing seqshim
// would do.
func checkPlan(t *testing.T, d Dialect, sql string) {
	p, err := planners[d].Plan(sql)
	if err != p.Err {
		t.Fatalf("Plan returned %v with a plan whose Err is %v", err, p.Err)
	}
	// A plan with work for seqshim is kept; one that only tells the
	// session about the text (its INSERTs, its session effects) is not,
	// so that such texts do not push the others out.
	if again, _ := planners[d].Plan(sql); !p.PassThrough() && again != p {
		t.Fatalf("the plan was not kept: %p, then %p", p, again)
	}
	if b := Build(d, sql); !reflect.DeepEqual(b, p) {
		t.Fatalf("Build and Planner.Plan disagree:\n%+v\n%+v", b, p)
	}
	if p.PassThrough() != allPassThrough(p) {
		t.Fatalf("PassThrough() = %v for %+v", p.PassThrough(), p.Statements)
	}
	if !mayTrigger(sql) {
		if !p.PassThrough() {
			t.Fatalf("a text without a trigger word is not passed through: %+v", p.Statements)
		}
		// The cheap scan is right to skip planning: planned, the text
		// has nothing seqshim would do.
		for _, st := range build(d, sql).Statements {
			if st.Kind != PassThrough && (st.Kind != Reject || errors.Is(st.Err, ErrUnsupported)) {
				t.Fatalf("a text without a trigger word plans to %v: %+v", st.Kind, st)
			}
		}
	}
	checkUnreadable(t, d, sql, p)
	first := true
	prev := 0
	for i := range p.Statements {
		st := &p.Statements[i]
		at := strings.Index(sql[prev:], st.Text)
		if at < 0 || st.Text == "" {
			t.Fatalf("statement %d %q is not a slice of the text after %d", i, st.Text, prev)
		}
		prev += at + len(st.Text)
		if (st.Kind == Reject) != (st.Err != nil) {
			t.Fatalf("statement %d: Kind %v with Err %v", i, st.Kind, st.Err)
		}
		if st.Kind == Reject {
			var se *sequence.Error
			if !errors.As(st.Err, &se) || !validSQLState(se.Code) {
				t.Fatalf("statement %d: error %T %v without a SQLSTATE", i, st.Err, st.Err)
			}
			if first && p.Err != st.Err {
				t.Fatalf("the plan's Err %v is not its first rejected statement's %v", p.Err, st.Err)
			}
			first = false
		}
		checkCalls(t, p, st)
		switch st.Kind {
		case Local:
			if len(st.Columns) != len(st.Calls) || len(st.Calls) == 0 {
				t.Fatalf("statement %d: Local with %d columns for %d calls", i, len(st.Columns), len(st.Calls))
			}
		case SequenceDDL:
			if st.DDL == nil || len(st.DDL.Names) == 0 {
				t.Fatalf("statement %d: SequenceDDL without names: %+v", i, st.DDL)
			}
			for _, n := range st.DDL.Names {
				checkCanonical(t, n)
			}
		case Rewrite:
			checkRewrite(t, d, st)
		}
	}
	if first && p.Err != nil {
		t.Fatalf("the plan's Err %v without a rejected statement", p.Err)
	}
}

// checkUnreadable checks what becomes of a text the lexer cannot read or
// whose tokens show a syntax error: in PostgreSQL it passes through whole,
// as the database refuses it before it runs any of it (a NUL byte, an
// unterminated literal or comment, parentheses that do not pair up, a
// control character), or seqshim refuses it whole (22021 for a text that
// is not UTF-8, 42601 for a syntax error the tokens show or a vertical
// tab); elsewhere seqshim refuses it with 42601. A text with a trigger word
// only: the others pass through.
func checkUnreadable(t *testing.T, d Dialect, sql string, p *Plan) {
	if !mayTrigger(sql) {
		return
	}
	code := ""
	switch l := lex(d, sql); {
	case strings.IndexByte(sql, 0) >= 0:
		if d != Postgres {
			code = sequence.CodeSyntaxError
		}
	case d == Postgres && !utf8.ValidString(sql):
		code = sequence.CodeCharacterNotInRepertoire
	case l.unreadable():
		if d != Postgres {
			code = sequence.CodeSyntaxError
		}
	case d == Postgres && visibleSyntaxError(l, split(l)) != nil:
		code = sequence.CodeSyntaxError
	default:
		return // a text it reads: the other checks
	}
	if code == "" {
		if !p.PassThrough() {
			t.Fatalf("an unreadable text is not passed through whole: %+v", p.Statements)
		}
		return
	}
	var se *sequence.Error
	if len(p.Statements) != 1 || p.Statements[0].Text != sql || !errors.As(p.Err, &se) || se.Code != code {
		t.Fatalf("an unreadable text is not refused whole with %s: %v, %+v", code, p.Err, p.Statements)
	}
}

// checkCalls checks that the calls of st name canonical sequences and
// bind parameters of the text.
func checkCalls(t *testing.T, p *Plan, st *Statement) {
	t.Helper()
	if st.Kind != Local && st.Kind != Rewrite {
		if len(st.Calls) > 0 {
			t.Fatalf("a %v statement with calls %+v", st.Kind, st.Calls)
		}
		return
	}
	for i, c := range st.Calls {
		if c.Func < Nextval || c.Func > Setval {
			t.Fatalf("call %d: function %v", i, c.Func)
		}
		switch {
		case c.Func == Lastval:
			if c.Name != "" || c.NameArg != -1 {
				t.Fatalf("call %d: lastval with a name %+v", i, c)
			}
		case c.NameArg >= 0:
			if c.Name != "" || c.NameArg >= p.NumParams {
				t.Fatalf("call %d: name argument %d with %d parameters, name %q", i, c.NameArg, p.NumParams, c.Name)
			}
		case c.Name != "" || !c.Null:
			checkCanonical(t, c.Name)
		}
		for _, o := range []Operand{c.Value, c.IsCalled} {
			if o.Arg < -1 || o.Arg >= p.NumParams {
				t.Fatalf("call %d: operand %+v with %d parameters", i, o, p.NumParams)
			}
		}
	}
}

// checkCanonical checks that name is a canonical sequence name: it parses
// to itself.
func checkCanonical(t *testing.T, name string) {
	t.Helper()
	if got, err := sequence.ParseName(name); err != nil || got != name {
		t.Fatalf("name %q is not canonical: it parses to %q, %v", name, got, err)
	}
}

// validSQLState reports whether code is five digits or upper-case letters.
func validSQLState(code string) bool {
	if len(code) != 5 {
		return false
	}
	for _, c := range []byte(code) {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func allPassThrough(p *Plan) bool {
	for i := range p.Statements {
		if p.Statements[i].Kind != PassThrough {
			return false
		}
	}
	return true
}

func checkRewrite(t *testing.T, d Dialect, st *Statement) {
	t.Helper()
	values := make([]int64, len(st.Calls))
	for i := range values {
		values[i] = int64(i*7919) - 3
	}
	out := string(st.AppendSQL(nil, values))

	// The output is the text with each call site replaced by a well-formed
	// replacement: check it piece by piece.
	pos, prev := 0, 0
	for i, c := range st.Calls {
		if c.Start < prev || c.End <= c.Start || c.End > len(st.Text) {
			t.Fatalf("call %d site [%d, %d) after %d in %d bytes", i, c.Start, c.End, prev, len(st.Text))
		}
		seg := st.Text[prev:c.Start]
		if !strings.HasPrefix(out[pos:], seg) {
			t.Fatalf("bytes before call %d changed:\n in %q\nout %q", i, st.Text, out)
		}
		pos += len(seg)
		var rep []byte
		rep = st.appendCall(rep, &st.Calls[i], st.firstParam+i, values[i])
		if !strings.HasPrefix(out[pos:], string(rep)) || !validReplacement(d, string(rep)) {
			t.Fatalf("call %d replacement %q not well-formed or not in place:\n in %q\nout %q", i, rep, st.Text, out)
		}
		pos += len(rep)
		prev = c.End
		if c.alias != "" {
			// The alias follows the item: the call and the casts and
			// parentheses around it, left as they are.
			if c.aliasAt > c.End {
				seg := st.Text[c.End:c.aliasAt]
				if !strings.HasPrefix(out[pos:], seg) {
					t.Fatalf("bytes after call %d changed:\n in %q\nout %q", i, st.Text, out)
				}
				pos += len(seg)
				prev = c.aliasAt
			}
			as := " AS " + c.alias
			if a := strings.TrimSuffix(c.alias, " "); a == "" || strings.Contains(a, "--") || strings.Contains(a, "/*") || !strings.HasPrefix(out[pos:], as) {
				t.Fatalf("call %d alias %q not well-formed or not in place:\n in %q\nout %q", i, c.alias, st.Text, out)
			}
			pos += len(as)
		}
	}
	if out[pos:] != st.Text[prev:] {
		t.Fatalf("bytes after the last call changed:\n in %q\nout %q", st.Text, out)
	}

	for _, m := range []string{"--", "/*"} {
		if strings.Count(out, m) > strings.Count(st.Text, m) {
			t.Fatalf("output has a new %q:\n in %q\nout %q", m, st.Text, out)
		}
	}

	// sqlparser reads @ as a letter (WHERE@ is one identifier to it, not to
	// MySQL): only texts without one are compared.
	if d == MySQL && !strings.Contains(st.Text, "@") {
		if why := mysqlPerRow(st.Text); why != "" {
			t.Fatalf("MySQL's parser finds a call evaluated once per row %s, yet it is planned:\n in %q\nout %q", why, st.Text, out)
		}
		if _, ok := mysqlParse(st.Text); ok {
			if _, ok := mysqlParse(out); !ok {
				t.Fatalf("MySQL's parser reads the input but not the output:\n in %q\nout %q", st.Text, out)
			}
		}
	}

	again := Build(d, out)
	for _, s2 := range again.Statements {
		if len(s2.Calls) > 0 || s2.Kind == Local || s2.Kind == Rewrite {
			t.Fatalf("output plans to %v with calls %+v:\n in %q\nout %q", s2.Kind, s2.Calls, st.Text, out)
		}
	}
}

// validReplacement reports whether r is what a call site may become:
// (int) outside PostgreSQL, (N::int8), ((-N)::int8), ($N::int8), or (CASE WHEN p IS NULL [OR …] THEN NULL ELSE v END);
// for a call with a NULL argument, (NULL::int8), (NULL) or (CASE WHEN NULL THEN $N::int8 END).
func validReplacement(d Dialect, r string) bool {
	if len(r) < 3 || r[0] != '(' || r[len(r)-1] != ')' {
		return false
	}
	r = r[1 : len(r)-1]
	isValue := func(v string) bool {
		if d != Postgres {
			_, err := strconv.ParseInt(v, 10, 64)
			return err == nil
		}
		switch {
		case v == "NULL::int8" && d == Postgres, v == "NULL" && d != Postgres:
			return true // a call with a NULL literal argument
		case strings.HasPrefix(v, "CASE WHEN NULL THEN $") && strings.HasSuffix(v, "::int8 END"):
			_, err := strconv.Atoi(v[len("CASE WHEN NULL THEN $") : len(v)-len("::int8 END")])
			return err == nil && d == Postgres
		}
		n, ok := strings.CutSuffix(v, "::int8")
		if !ok {
			return false
		}
		if p, ok := strings.CutPrefix(n, "$"); ok {
			_, err := strconv.Atoi(p)
			return err == nil
		}
		if neg, ok := strings.CutPrefix(n, "("); ok {
			// A negative literal, parenthesised before the cast.
			neg, ok = strings.CutSuffix(neg, ")")
			i, err := strconv.ParseInt(neg, 10, 64)
			return ok && err == nil && i < 0
		}
		i, err := strconv.ParseInt(n, 10, 64)
		return err == nil && i >= 0
	}
	if !strings.HasPrefix(r, "CASE WHEN ") {
		return isValue(r)
	}
	r = strings.TrimPrefix(r, "CASE WHEN ")
	guards, rest, ok := strings.Cut(r, " THEN NULL ELSE ")
	if !ok || !strings.HasSuffix(rest, " END") || !isValue(strings.TrimSuffix(rest, " END")) {
		return false
	}
	for _, g := range strings.Split(guards, " OR ") {
		p, ok := strings.CutSuffix(g, " IS NULL")
		if !ok {
			return false
		}
		for _, typ := range []string{"::text", "::int8", "::bool"} {
			p = strings.TrimSuffix(p, typ)
		}
		switch {
		case p == "?" && d == MySQL:
		case len(p) > 1 && (p[0] == '$' && d == Postgres || p[0] == '?' && d == SQLite):
			if _, err := strconv.Atoi(p[1:]); err != nil {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// FuzzTableDDL checks, for any text: planning does not panic; a table
// statement's columns and subcommands are in order inside its text;
// AppendSQL writes the text as it is when told AsWritten, nothing when
// every subcommand is omitted, and with Strip a text whose plan has no
// sequence default left and no error. The seed corpus is in
// testdata/fuzz/FuzzTableDDL.
func FuzzTableDDL(f *testing.F) {
	for _, s := range []string{
		`CREATE TABLE "users" ("id" bigserial,"name" text,PRIMARY KEY ("id"))`,
		`CREATE TABLE IF NOT EXISTS "users" ("id" bigint NOT NULL GENERATED BY DEFAULT AS IDENTITY, "name" character varying NOT NULL DEFAULT 'x', PRIMARY KEY ("id"))`,
		`CREATE TABLE "users" ("id" BIGSERIAL NOT NULL, "name" VARCHAR, PRIMARY KEY ("id"))`,
		"CREATE TABLE t (id int DEFAULT nextval('s')NOT NULL, n int GENERATED ALWAYS AS IDENTITY(START 2)PRIMARY KEY, v serial/**/UNIQUE)",
		"CREATE TABLE t (a int DEFAULT 1 + NULL NOT NULL, d int[] DEFAULT ARRAY[NULL, 1]::int[] NOT NULL, id smallserial COMPRESSION pglz)",
		"ALTER TABLE t ADD COLUMN id serial /* c */, ALTER n SET GENERATED BY DEFAULT SET INCREMENT 2 RESTART, ALTER s SET DEFAULT nextval('s'),\n\tALTER v TYPE bigint",
		"ALTER TABLE IF EXISTS ONLY t ALTER c ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME x START 5), DROP COLUMN IF EXISTS q CASCADE, ALTER d DROP IDENTITY IF EXISTS",
		"ALTER TABLE t RENAME COLUMN a TO b; DROP TABLE IF EXISTS a, b CASCADE; ALTER TABLE t RENAME TO u",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		p := Build(Postgres, sql)
		for i := range p.Statements {
			st := &p.Statements[i]
			if (st.Kind == Reject) != (st.Err != nil) {
				t.Fatalf("statement %d: Kind %v with Err %v", i, st.Kind, st.Err)
			}
			tb := st.Table
			if tb == nil {
				continue
			}
			if st.Kind != CatalogDDL || st.Catalog == nil || len(tb.Names) == 0 || len(tb.Names) != len(tb.Unqualified) {
				t.Fatalf("statement %d: %v %+v with table %+v", i, st.Kind, st.Catalog, tb)
			}
			prev := 0
			for _, c := range tb.Columns {
				if c.Start < prev || c.End <= c.Start || c.End > len(st.Text) {
					t.Fatalf("column %+v after %d in %q", c, prev, st.Text)
				}
				prev = c.End
			}
			prev = 0
			for _, c := range tb.Cmds {
				if c.Start < prev || c.End <= c.Start || c.End > len(st.Text) {
					t.Fatalf("subcommand %+v after %d in %q", c, prev, st.Text)
				}
				prev = c.End
			}
			if out, empty := tb.AppendSQL(nil, func(int) Rendering { return AsWritten }); string(out) != st.Text || empty {
				t.Fatalf("AsWritten: %q, %v; want %q", out, empty, st.Text)
			}
			if out, empty := tb.AppendSQL(nil, func(int) Rendering { return Omit }); tb.Op == TableAlter && (!empty || len(out) != 0) {
				t.Fatalf("Omit: %q, %v", out, empty)
			}
			out, empty := tb.AppendSQL(nil, nil)
			if empty {
				continue
			}
			for _, m := range []string{"--", "/*"} {
				if strings.Count(string(out), m) > strings.Count(st.Text, m) {
					t.Fatalf("output has a new %q:\n in %q\nout %q", m, st.Text, out)
				}
			}
			again := Build(Postgres, string(out))
			if again.Err != nil {
				t.Fatalf("the stripped text is refused: %v\n in %q\nout %q", again.Err, st.Text, out)
			}
			for _, s2 := range again.Statements {
				if s2.Table == nil {
					continue
				}
				for _, c := range s2.Table.Columns {
					if c.Default != nil {
						t.Fatalf("column %s keeps a sequence default:\n in %q\nout %q", c.Name, st.Text, out)
					}
				}
				for _, c := range s2.Table.Cmds {
					if c.Default != nil || c.Def != nil && c.Def.Default != nil {
						t.Fatalf("subcommand %v keeps a sequence default:\n in %q\nout %q", c.Action, st.Text, out)
					}
				}
			}
		}
	})
}
