package fakepg_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/internal/testkit/fakepg"
	"github.com/seqshim/seqshim/pgxseq"
)

// config is a connection configuration to a fake server.
func config(t testing.TB) *pgx.ConnConfig {
	cfg, err := fakepg.Config()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestPgx: pgx connects, and Exec and Query in every mode get the one
// row; seqshim's pgx front end opens a session on it and passes SELECT 1
// through.
func TestPgx(t *testing.T) {
	ctx := context.Background()
	c, err := pgx.ConnectConfig(ctx, config(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if tag, err := c.Exec(ctx, "SELECT 1"); err != nil || tag.String() != "SELECT 1" {
		t.Fatalf("Exec: %q, %v", tag, err)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement} {
		var n int
		if err := c.QueryRow(ctx, "SELECT 1", mode).Scan(&n); err != nil || n != 1 {
			t.Fatalf("%v: %d, %v", mode, n, err)
		}
	}
	s, err := pgxseq.ConnectConfig(ctx, config(t), func(o *pgxseq.Options) { o.StoreURL = "memory:fakepg" })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if tag, err := s.Exec(ctx, "SELECT 1"); err != nil || tag.String() != "SELECT 1" {
		t.Fatalf("pgxseq Exec: %q, %v", tag, err)
	}
}
