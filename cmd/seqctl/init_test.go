package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/cosmosstore"
	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
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
	t.Run("cosmos", func(t *testing.T) {
		t.Setenv(cosmosstore.EnvKey, testenv.CosmosKey)
		c := testenv.CosmosContainerToCreate(t)
		ts := &tester{t: t, store: c.URL("")}
		// Before init the database does not exist: listing fails.
		ts.fails(exitFailed, "list")
		testInit(t, ts, "Cosmos DB container "+c.Database+"/"+c.Container+" exists")
		props, err := c.Client.NewContainer(c.Database, c.Container)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := props.Read(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if p := resp.ContainerProperties.PartitionKeyDefinition.Paths; len(p) != 1 || p[0] != "/id" {
			t.Errorf("the container init made is partitioned on %q, want /id", p)
		}
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

// TestInitErrors: seqctl gives the stores' own messages for a store it cannot
// use as configured, naming the store and what to do.
func TestInitErrors(t *testing.T) {
	t.Run("dynamodb without credentials", func(t *testing.T) {
		ts := &tester{t: t, store: dynamoURL(t)}
		// No credentials anywhere: environment, config files (which do not
		// exist) or instance metadata (disabled, which otherwise waits).
		t.Setenv("AWS_ACCESS_KEY_ID", "")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "")
		r := ts.fails(exitFailed, "init")
		for _, want := range []string{"seqctl init: dynamostore: init: DynamoDB table ", "none were found", "AWS_ACCESS_KEY_ID", "AWS_PROFILE"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr %q\nwant it to contain %q", r.stderr, want)
			}
		}
		if strings.Contains(r.stderr, "policy") {
			t.Errorf("stderr %q suggests permissions for missing credentials", r.stderr)
		}
	})
	t.Run("dynamodb without table", func(t *testing.T) {
		ts := &tester{t: t, store: dynamoURL(t)}
		u, err := dynamostore.ParseURL(ts.store)
		if err != nil {
			t.Fatal(err)
		}
		r := ts.fails(exitFailed, "list")
		want := "DynamoDB table " + u.Table + " in region " + u.Region + " at " + u.Endpoint +
			" does not exist (create it with: seqctl init --store 'dynamodb://" + u.Table + "?region=" + u.Region + "&endpoint=" + u.Endpoint + "')"
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q\nwant it to contain %q", r.stderr, want)
		}
	})
	t.Run("sqlite without directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "missing")
		ts := &tester{t: t, store: "sqlite:" + filepath.Join(dir, "s.db")}
		r := ts.fails(exitFailed, "init")
		want := "seqctl init: sqlstore: check: SQLite file " + filepath.Join(dir, "s.db") + " cannot be created: its directory " + dir + " does not exist (create it: mkdir -p " + dir
		if !strings.HasPrefix(r.stderr, want) {
			t.Errorf("stderr %q\nwant it to start with %q", r.stderr, want)
		}
	})
}
