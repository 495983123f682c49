package main

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
)

func pgTestURL(t *testing.T) string { return testenv.PG(t) }

// pgSchema returns a connection to the test PostgreSQL, its URL, and a schema
// unique to the test, dropped with its sequences at the end.
func pgSchema(t *testing.T) (*pgx.Conn, string, string) {
	t.Helper()
	pgURL := pgTestURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Fatalf("connect to the test PostgreSQL: %v", err)
	}
	schema := uniqueName(t, "seqctl_", 63)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		conn.Close(ctx)
	})
	return conn, pgURL, schema
}

// pgExec runs statements, failing the test on error.
func pgExec(t *testing.T, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
