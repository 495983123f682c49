package sqlite_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

// TestBusyIsThrottled: a reservation refused because another handle holds
// the file's write lock is sequence.ErrThrottled, the back-pressure a cache
// answers by asking less often.
func TestBusyIsThrottled(t *testing.T) {
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
	if _, err := st.Reserve(t.Context(), "s", 10); !errors.Is(err, sequence.ErrThrottled) {
		t.Fatalf("Reserve while another handle holds the write lock: %v; want ErrThrottled", err)
	}
}
