package rewrite

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seqshim/seqshim/sequence"
)

// errLookup is the error the fuzzed lookup returns for a table named err.
var errLookup = errors.New("lookup failed")

// fuzzLookup is a TableLookup made of fuzz input: every table but one
// named err (an error) and those whose name has an even length (none) has
// the columns of cols (comma-separated; the names as stored), the i-th of
// which has a store default when bit i of defaults is set, of kind by the
// bits of kinds (0: DEFAULT nextval, 1: always, 2: by default). Its
// sequences are named after the column, in schema s.
func fuzzLookup(cols string, defaults, kinds uint16) TableLookup {
	var columns []string
	for _, c := range strings.Split(cols, ",") {
		if c != "" && utf8.ValidString(c) && strings.IndexByte(c, 0) < 0 && len(c) <= 63 {
			columns = append(columns, c) // what a catalog can hold
		}
	}
	return func(table string, unqualified, withColumns bool) (*TableDefaults, error) {
		switch {
		case table == "err":
			return nil, errLookup
		case len(table)%2 == 0:
			return nil, nil
		}
		t := &TableDefaults{Table: table}
		if withColumns {
			t.Columns = columns
		}
		for i, c := range columns {
			if i >= 16 || defaults&(1<<i) == 0 {
				continue
			}
			t.Defaults = append(t.Defaults, ColumnSequence{Column: c, Sequence: sequence.FormatName("s", c+"_seq"),
				Kind: sequence.Identity(kinds >> (2 * (i % 8)) & 3 % 3)})
		}
		return t, nil
	}
}

// FuzzInjectDefaults checks, for any text and any tables with store
// defaults: InjectDefaults does not panic; an error is the lookup's or a
// *sequence.Error with PostgreSQL's SQLSTATE (428C9, 0A000); an unchanged
// text is the text itself; a changed one is readable if the text was, has
// no comment the text did not have, plans its nextval calls (none of a
// sequence the text and the tables do not name), and is left alone by a
// second injection. The seed corpus is in
// testdata/fuzz/FuzzInjectDefaults.
func FuzzInjectDefaults(f *testing.F) {
	for _, s := range []string{
		"INSERT INTO sr (a) VALUES ('x')",
		"insert into sr (a, b) values ($1, $2), ($3, $4) returning id",
		"INSERT INTO sr VALUES ('x', DEFAULT, DEFAULT)",
		"INSERT INTO sr DEFAULT VALUES RETURNING *",
		"INSERT INTO sr AS s (a) VALUES ('x') RETURNING s.id",
		"WITH w AS (INSERT INTO sr (a) VALUES ('w') RETURNING id) SELECT id FROM w",
		"INSERT INTO ia OVERRIDING USER VALUE VALUES (9, 'z'); INSERT INTO ia OVERRIDING SYSTEM VALUE VALUES (9, 'z')",
		"INSERT INTO sr (a) SELECT 'q'; UPDATE sr SET id = DEFAULT; COPY sr (a) FROM STDIN",
		"INSERT INTO err VALUES (1)",
		"INSERT INTO sr (a) VALUES ('x'", "INSERT INTO sr (", "INSERT INTO sr (a) VALUES ('x') RETURNING",
		`INSERT INTO "Mixed" (v) VALUES (1), (2); INSERT INTO public.sr VALUES (DEFAULT)`,
		"MERGE INTO sr t USING src s ON t.id = s.x WHEN MATCHED THEN UPDATE SET id = DEFAULT WHEN NOT MATCHED THEN INSERT (a) VALUES (s.y)",
		"MERGE INTO ia t USING (SELECT 1 AS x) s ON t.id = s.x WHEN NOT MATCHED THEN INSERT OVERRIDING USER VALUE VALUES (s.x, 'q')",
	} {
		f.Add(s, "a,id,b", uint16(2), uint16(0))
		f.Add(s, `id,v,"q",x y`, uint16(1), uint16(1))
	}
	f.Fuzz(func(t *testing.T, sql, cols string, defaults, kinds uint16) {
		lookup := fuzzLookup(cols, defaults, kinds)
		out, changed, err := InjectDefaults(Postgres, sql, lookup)
		if err != nil {
			var se *sequence.Error
			if !errors.Is(err, errLookup) && !(errors.As(err, &se) && (se.Code == codeGeneratedAlways || se.Code == sequence.CodeFeatureNotSupported)) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		if !changed {
			if out != sql {
				t.Fatalf("unchanged, yet\n in %q\nout %q", sql, out)
			}
			return
		}
		if out == sql {
			t.Fatalf("changed, yet the same: %q", sql)
		}
		if in := lex(Postgres, sql); !in.unreadable() && lex(Postgres, out).unreadable() {
			t.Fatalf("the injected text is unreadable:\n in %q\nout %q", sql, out)
		}
		if commentMarks(out) > commentMarks(sql) {
			t.Fatalf("output has a new comment:\n in %q\nout %q", sql, out)
		}
		names := map[string]bool{}
		for _, st := range Build(Postgres, sql).Statements {
			for _, c := range st.Calls {
				names[c.Name] = true
			}
		}
		for _, c := range strings.Split(cols, ",") {
			names[sequence.FormatName("s", c+"_seq")] = true
		}
		calls := 0
		for _, st := range Build(Postgres, out).Statements {
			for _, c := range st.Calls {
				if !names[c.Name] && c.NameArg < 0 && !c.Null && c.Func != Lastval {
					t.Fatalf("the injected text calls %s:\n in %q\nout %q", c.Name, sql, out)
				}
				calls++
			}
		}
		if calls == 0 && Build(Postgres, out).Err == nil {
			t.Fatalf("the injected text plans no call:\n in %q\nout %q", sql, out)
		}
		again, changed, err := InjectDefaults(Postgres, out, lookup)
		if err != nil || changed || again != out {
			t.Fatalf("a second injection changes the text (%v, %v):\n in %q\nout %q\nagain %q", changed, err, sql, out, again)
		}
	})
}

// commentMarks counts the "--" and "/*" of a PostgreSQL text outside its
// tokens (literals and quoted identifiers are tokens): its comments.
func commentMarks(s string) int {
	l := lex(Postgres, s)
	n, prev := 0, 0
	for _, t := range l.toks {
		n += strings.Count(s[prev:t.start], "--") + strings.Count(s[prev:t.start], "/*")
		prev = t.end
	}
	return n + strings.Count(s[prev:], "--") + strings.Count(s[prev:], "/*")
}
