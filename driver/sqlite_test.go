package driver_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // inner driver "sqlite"
)

// TestOtherInnerDriver runs seqshim over SQLite: the inner driver chosen by
// seqshim.driver, the ? dialect taken from its name.
func TestOtherInnerDriver(t *testing.T) {
	dsn := "file:" + filepath.Join(t.TempDir(), "app.db") + "?seqshim.driver=sqlite&seqshim.store=memory:" + uniq(t, "lite")
	db, err := sql.Open("seqshim", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, "CREATE SEQUENCE s START 10")
	mustExec(t, db, "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
	mustExec(t, db, "INSERT INTO t (id, v) VALUES (nextval('s'), ?)", "a")
	mustExec(t, db, "INSERT INTO t (id, v) VALUES (s.NEXTVAL, ?)", "b")
	if v := queryInt64(t, db, "SELECT nextval('s')"); v != 12 {
		t.Errorf("local nextval %d, want 12", v)
	}
	if v := queryInt64(t, db, "SELECT sum(id) FROM t"); v != 21 {
		t.Errorf("sum of ids %d, want 10+11", v)
	}
}
