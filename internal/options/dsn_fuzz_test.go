package options

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// FuzzSplitDSN checks, for any DSN: SplitDSN does not panic; a DSN without
// "seqshim." is returned as it is; every parameter it takes out is a
// seqshim.* one; the inner DSN keeps the rest byte for byte (it is the DSN
// with some parts cut out, and has no seqshim.* parameter left; a DSN
// without any is returned as it is); and the
// parameters, written back into the inner DSN, split out again as they
// were. The seed corpus is in testdata/fuzz/FuzzSplitDSN.
func FuzzSplitDSN(f *testing.F) {
	for _, s := range dsnSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		inner, params, err := SplitDSN(dsn)
		if !strings.Contains(dsn, paramPrefix) {
			if inner != dsn || params != nil || err != nil {
				t.Fatalf("SplitDSN(%q) = %q, %q, %v; want it as it is", dsn, inner, params, err)
			}
			return
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "seqshim: ") {
				t.Fatalf("SplitDSN(%q): %v", dsn, err)
			}
			return
		}
		for _, p := range params {
			if !strings.HasPrefix(p.Key, paramPrefix) {
				t.Fatalf("SplitDSN(%q) took out %q", dsn, p.Key)
			}
		}
		if !isCutFrom(inner, dsn) {
			t.Fatalf("SplitDSN(%q): the inner DSN %q is not the DSN with parts cut out", dsn, inner)
		}
		// Split again, nothing is left to take out (but from a fragment:
		// #?seqshim.x=1 loses what came before its '?', which a second
		// split then reads as a query).
		if again, more, err := SplitDSN(inner); !strings.Contains(dsn, "#") && (err != nil || again != inner || len(more) > 0) {
			t.Fatalf("SplitDSN(%q) = %q, which splits again into %q, %q, %v", dsn, inner, again, more, err)
		}
		if len(params) == 0 {
			return
		}
		// Write the parameters back, in the DSN's form, and split again.
		var back string
		switch {
		case IsKeywordValue(dsn):
			var b strings.Builder
			for _, p := range params {
				b.WriteString(p.Key + "='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(p.Value) + "' ")
			}
			// Before the inner DSN, if the text still reads as keyword/value
			// (a key like seqshim.!x does not), else after it, if a setting
			// written there reads as one (after k= it would be k's value,
			// as in libpq).
			back = b.String() + inner
			if !IsKeywordValue(back) {
				if _, ps, err := SplitDSN(inner + " seqshim.z=1"); err != nil || len(ps) != 1 || ps[0] != (Param{"seqshim.z", "1"}) {
					return
				}
				back = inner + " " + b.String()
			}
		case strings.ContainsAny(inner, "#") || !strings.Contains(dsn, "?"):
			return
		default:
			sep := "?"
			if strings.Contains(inner, "?") {
				sep = "&"
			}
			var b strings.Builder
			b.WriteString(inner)
			for _, p := range params {
				b.WriteString(sep + url.QueryEscape(p.Key) + "=" + url.QueryEscape(p.Value))
				sep = "&"
			}
			back = b.String()
		}
		got, again, err := SplitDSN(back)
		if err != nil || strings.TrimRight(got, " \t\n\r\f\v") != strings.TrimRight(inner, " \t\n\r\f\v") || !reflect.DeepEqual(again, params) {
			t.Fatalf("SplitDSN(%q) = %q, %q; written back %q, it splits into %q, %q, %v", dsn, inner, params, back, got, again, err)
		}
	})
}

var dsnSeeds = []string{
	"postgres://u@h/db?sslmode=disable", "postgres://u@h/db?seqshim.store=memory:",
	"postgres://u:p@h:5432/db?sslmode=disable&seqshim.store=sqlite%3A%2Ftmp%2Fs.db&application_name=x&seqshim.ddl=both",
	"postgres://h/db?seqshim.store=dynamodb%3A%2F%2Ft%3Fregion%3Dus-east-1%26endpoint%3Dhttp%3A%2F%2F127.0.0.1%3A8000",
	"postgres://h/db?seqshim.store=dynamodb://t?region=r&endpoint=e", "postgres://h/db?seqshim.buffer=5#frag",
	"file:test.db?cache=shared&seqshim.store=memory:", "user:pw@tcp(127.0.0.1:3306)/db?seqshim.driver=mysql&parseTime=true",
	"host=h dbname=db seqshim.store=memory: sslmode=disable", "seqshim.store=memory: host=h",
	`host=h password='a b\'c' seqshim.store = 'sqlite:/tmp/my seq.db' user=u`, "host=h seqshim.ddl=both",
	"host=h seqshim.store='memory:", "host=h seqshim.store", "postgres://h/db?seqshim.store=%zz", "",
	"seqshim.buffer=1e300", "seqshim.max_wait=Inf", "seqshim.refill_timeout=NaN", "seqshim.revalidate=9223372036.854775807",
	"seqshim.warm='a, \"B,c\", d.e'",
}

// isCutFrom reports whether s is t with zero or more parts cut out: a
// subsequence of t's bytes.
func isCutFrom(s, t string) bool {
	i := 0
	for j := 0; i < len(s) && j < len(t); j++ {
		if s[i] == t[j] {
			i++
		}
	}
	return i == len(s)
}
