package sqlite_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sequence/storetest"
	"github.com/seqshim/seqshim/sqlstore"
	"github.com/seqshim/seqshim/sqlstore/sqlite"
)

// openContract opens a Store on the SQLite file at path, closed when t ends.
func openContract(t *testing.T, path string, optFns ...func(*sqlstore.Options)) sequence.Store {
	t.Helper()
	st, err := sqlite.Open(t.Context(), "sqlite:"+path, optFns...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return st
}

// TestContract: every subtest opens its own Store (its own *sql.DB) on one
// shared file, as separate processes would.
func TestContract(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seq.db")
	storetest.Run(t, func(t *testing.T) sequence.Store { return openContract(t, path) })
}

// TestContractBudget runs the daily-limit contract on one SQLite file: each
// handle is a Store of its own (its own *sql.DB), as separate processes
// would have.
func TestContractBudget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seq.db")
	storetest.RunBudget(t, func(t *testing.T, now func() time.Time) sequence.Store {
		return openContract(t, path, func(o *sqlstore.Options) { o.Now = now })
	})
}
