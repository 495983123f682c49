package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
	"github.com/seqshim/seqshim/sqlstore/sqlite"
)

// TestRegistered: importing the package makes sqlite: URLs open through
// storeurl, as the driver and seqctl open them.
func TestRegistered(t *testing.T) {
	for _, u := range []string{"sqlite:", "SQLITE:", "sqlite://"} {
		st, err := storeurl.Open(t.Context(), u+filepath.Join(t.TempDir(), "seq.db"))
		if err != nil {
			t.Fatalf("storeurl.Open(%s...): %v", u, err)
		}
		ss, ok := st.(*sqlstore.Store)
		if !ok || ss.Dialect() != sqlstore.SQLite {
			t.Fatalf("storeurl.Open(%s...) = %T, want a SQLite *sqlstore.Store", u, st)
		}
		if err := st.(io.Closer).Close(); err != nil {
			t.Error(err)
		}
	}
	if _, err := sqlite.Open(t.Context(), "postgres://u@127.0.0.1:1/db"); err == nil || !strings.Contains(err.Error(), "not a sqlite:PATH") {
		t.Errorf("sqlite.Open of a postgres:// URL: %v", err)
	}
}

func open(t *testing.T, path string) *sqlstore.Store {
	t.Helper()
	st, err := sqlite.Open(t.Context(), "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestMisconfigured: a file that cannot be used is a configuration error from
// Check and from the first Reserve alike, at once, naming the path and what
// to do. (Permissions cannot be tested here: the tests run as root.)
func TestMisconfigured(t *testing.T) {
	dir := t.TempDir()
	notADB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notADB, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no", "such", "dir")
	tests := []struct {
		name, path string
		want       []string // parts of the message
	}{
		{"no directory", filepath.Join(missing, "seq.db"), []string{
			"SQLite file " + filepath.Join(missing, "seq.db") + " cannot be created",
			"its directory " + missing + " does not exist (create it: mkdir -p " + missing,
		}},
		{"a directory", dir, []string{"SQLite file " + dir + " cannot be opened", "names a file"}},
		{"not a database", notADB, []string{"SQLite file " + notADB + " is not a SQLite database (correct the path"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := open(t, tt.path)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			for op, call := range map[string]func() error{
				"check":     func() error { return st.Check(ctx) },
				"reserve s": func() error { _, err := st.Reserve(ctx, "s", 10); return err },
				"list":      func() error { _, err := st.List(ctx); return err },
			} {
				err := call()
				if !errors.Is(err, sequence.ErrMisconfigured) || sequence.IsTransient(err) {
					t.Fatalf("%s: %v; want a configuration error", op, err)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, "sqlstore: "+op+": ") {
					t.Errorf("%s: %q does not name the operation", op, msg)
				}
				for _, w := range tt.want {
					if !strings.Contains(msg, w) {
						t.Errorf("%s: %q\nwant it to contain %q", op, msg, w)
					}
				}
			}
		})
	}
}

// TestBusyIsTransient: a file another process holds the write lock of is
// busy, not misconfigured. The store here has no busy timeout, so SQLite
// says busy at once (a store from Open waits up to 30 s for the lock).
func TestBusyIsTransient(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seq.db")
	other := open(t, path)
	if err := other.Create(t.Context(), "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path+"?_txlock=immediate&_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := sqlstore.New(db, sqlstore.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := other.DB().BeginTx(t.Context(), nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	_, err = st.Reserve(t.Context(), "s", 10)
	if err == nil || errors.Is(err, sequence.ErrMisconfigured) || !sequence.IsTransient(err) {
		t.Fatalf("Reserve while another handle holds the write lock: %v; want a transient error", err)
	}
	if !strings.Contains(err.Error(), "sqlstore: reserve s: SQLite database: ") {
		t.Errorf("%q does not name the operation and the database", err)
	}
}

// TestCheckCreates: Check of a new file creates it and its table.
func TestCheckCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seq.db")
	st := open(t, path)
	if err := st.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("after Check: %v", err)
	}
	if err := sequence.Check(t.Context(), st); err != nil {
		t.Fatalf("second Check: %v", err)
	}
}
