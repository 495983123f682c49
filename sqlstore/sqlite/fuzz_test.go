package sqlite_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sqlstore"
)

// FuzzOpen checks, for any sqlite: store URL, Open through storeurl (as
// the driver and seqctl open it) with a context already cancelled: no
// panic; a URL it refuses gives no store; a store it opens is a SQLite
// store on the table the URL names (table=, else the default), and opening
// and closing it creates no file (the first operation does). It runs in a
// directory of its own, where relative paths go. The seed corpus is in
// testdata/fuzz/FuzzOpen.
func FuzzOpen(f *testing.F) {
	for _, s := range []string{
		"sqlite:seq.db", "SQLite://seq.db", "sqlite:///tmp/seqshim-fuzz-none/seq.db", "sqlite:seq.db?table=seqs",
		"sqlite:seq.db?table=a.b", "sqlite:seq.db?table=bad-name", "sqlite:seq.db?table=a&table=b", "sqlite:seq.db?mode=ro",
		"sqlite:", "sqlite:?table=t", "sqlite::memory:", "sqlite:file:x.db", "sqlite:seq.db?%zz", "sqlite:a#b?c", "sqlite:a%20b.db",
	} {
		f.Add(s)
	}
	f.Chdir(f.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f.Fuzz(func(t *testing.T, raw string) {
		scheme, rest, _ := strings.Cut(raw, ":")
		if !strings.EqualFold(scheme, "sqlite") {
			raw, rest = "sqlite:"+raw, raw
		}
		path, query, _ := strings.Cut(strings.TrimPrefix(rest, "//"), "?")
		_, statErr := os.Lstat(path)
		st, err := storeurl.Open(ctx, raw)
		if err != nil {
			if st != nil {
				t.Fatalf("Open(%q) = %T and %v", raw, st, err)
			}
			return
		}
		s, ok := st.(*sqlstore.Store)
		if !ok {
			t.Fatalf("Open(%q) = %T", raw, st)
		}
		want := sqlstore.DefaultTable
		if q, err := url.ParseQuery(query); err == nil && q.Get("table") != "" {
			want = q.Get("table")
		}
		if s.Dialect() != sqlstore.SQLite || s.Table() != want || path == "" {
			t.Fatalf("Open(%q) = a %s store on table %q, want SQLite on %q", raw, s.Dialect(), s.Table(), want)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close of %q: %v", raw, err)
		}
		if _, err := os.Lstat(path); errors.Is(statErr, os.ErrNotExist) && !errors.Is(err, os.ErrNotExist) {
			os.Remove(path)
			t.Fatalf("Open(%q) created %s", raw, path)
		}
	})
}
