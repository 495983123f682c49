package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

// openWithStore opens the test PostgreSQL through seqshim with a store URL.
func openWithStore(t *testing.T, storeURL string, params string) *sql.DB {
	t.Helper()
	pg := testenv.PG(t)
	sep := "?"
	if strings.Contains(pg, "?") {
		sep = "&"
	}
	db, err := sql.Open("seqshim", pg+sep+"seqshim.store="+url.QueryEscape(storeURL)+params)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestStoreMisconfiguredFailsFirstConnection: a store whose configuration
// is wrong fails the first connection (db.Ping) with an error naming the
// store and the fix, not each nextval after max_wait. max_wait is an hour
// here: an error that had to wait for it would never arrive.
func TestStoreMisconfiguredFailsFirstConnection(t *testing.T) {
	testenv.DynamoDB(t) // skips here, not in each subtest
	tests := []struct {
		name  string
		store func(t *testing.T) string
		env   func(t *testing.T)
		want  []string
	}{
		{"dynamodb table missing", func(t *testing.T) string {
			d := testenv.DynamoTableToCreate(t) // a name nobody created
			return d.URL("")
		}, func(t *testing.T) { testenv.DynamoDBEnv(t) }, []string{"does not exist", "seqctl init"}},
		{"dynamodb no credentials", func(t *testing.T) string {
			return testenv.NewDynamoTable(t).URL("")
		}, func(t *testing.T) {
			testenv.DynamoDBEnv(t)
			t.Setenv("AWS_ACCESS_KEY_ID", "")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "")
		}, []string{"credentials", "AWS_ACCESS_KEY_ID"}},
		{"sqlite directory missing", func(t *testing.T) string {
			return "sqlite:" + filepath.Join(t.TempDir(), "no-such-dir", "seq.db")
		}, func(*testing.T) {}, []string{"no-such-dir", "does not exist", "mkdir -p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.env(t)
			storeURL := tt.store(t)
			db := openWithStore(t, storeURL, "&seqshim.max_wait=1h")
			err := db.PingContext(context.Background())
			if !errors.Is(err, sequence.ErrMisconfigured) {
				t.Fatalf("Ping: %v, want an error wrapping sequence.ErrMisconfigured", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestStoreUnreachableDoesNotBlock: a store that does not answer lets the
// connection open and statements without sequence calls run; a nextval
// fails after max_wait naming the store and the operation.
func TestStoreUnreachableDoesNotBlock(t *testing.T) {
	testenv.DynamoDBEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close() // nothing listens there now: connection refused
	storeURL := "dynamodb://seqs?region=" + testenv.DynamoRegion + "&endpoint=" + closed
	db := openWithStore(t, storeURL, "&seqshim.max_wait=200ms")
	if err := db.Ping(); err != nil {
		t.Fatalf("Ping with an unreachable store: %v", err)
	}
	var one int
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %d, %v", one, err)
	}
	var v int64
	err = db.QueryRow("SELECT nextval('orders_seq')").Scan(&v)
	if err == nil {
		t.Fatalf("nextval with an unreachable store returned %d", v)
	}
	for _, w := range []string{"orders_seq", "seqs", closed} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("nextval error %q does not name %q", err, w)
		}
	}
	if errors.Is(err, sequence.ErrMisconfigured) {
		t.Errorf("an unreachable store reported as misconfigured: %v", err)
	}
}
