package main

import (
	"strings"
	"testing"

	"github.com/seqshim/seqshim/dynamostore"
)

func TestInit(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		ts := &tester{t: t, store: "sqlite:" + t.TempDir() + "/s.db"}
		testInit(t, ts, "table seqshim_sequences")
	})
	t.Run("dynamodb", func(t *testing.T) {
		ts := &tester{t: t, store: dynamoURL(t)}
		u, err := dynamostore.ParseURL(ts.store)
		if err != nil {
			t.Fatal(err)
		}
		// Before init the table does not exist: listing fails.
		ts.fails(exitFailed, "list")
		testInit(t, ts, "DynamoDB table "+u.Table+" is ACTIVE")
	})
	t.Run("postgres", func(t *testing.T) {
		conn, pgURL, _ := pgSchema(t)
		table := uniqueName(t, "seqctl_", 63)
		t.Cleanup(func() { pgExec(t, conn, "DROP TABLE IF EXISTS "+table) })
		sep := "?"
		if strings.Contains(pgURL, "?") {
			sep = "&"
		}
		ts := &tester{t: t, store: pgURL + sep + "table=" + table}
		ts.ok("init")
		var exists bool
		if err := conn.QueryRow(t.Context(), "SELECT to_regclass($1) IS NOT NULL", table).Scan(&exists); err != nil || !exists {
			t.Fatalf("table %s after init: exists %v, %v", table, exists, err)
		}
		testInit(t, ts, "table "+table+" exists")
		var n int
		if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM "+table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s after init and create: %d rows, %v", table, n, err)
		}
	})
	t.Run("memory", func(t *testing.T) {
		testInit(t, &tester{t: t, store: "memory:init"}, "nothing to create")
	})
}

func testInit(t *testing.T, ts *tester, want string) {
	for range 2 { // a second init leaves what exists
		out := ts.ok("init")
		if !strings.Contains(out, want) {
			t.Errorf("init printed %q, want it to mention %q", out, want)
		}
	}
	var m map[string]string
	decode(t, ts.ok("init", "-o", "json"), &m)
	if !strings.Contains(m["ready"], want) {
		t.Errorf("init -o json: %v", m)
	}
	ts.ok("create", "s")
	if got := ts.ok("list"); !strings.Contains(got, "\ns ") {
		t.Errorf("list after init and create:\n%s", got)
	}
	if r := ts.run("init", "extra"); r.code != exitUsage {
		t.Errorf("init extra: exit %d", r.code)
	}
}
