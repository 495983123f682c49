package sqlstore_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sequence/storetest"
	"github.com/seqshim/seqshim/sqlstore"
	_ "github.com/seqshim/seqshim/sqlstore/sqlite" // sqlite: URLs
)

func openT(t testing.TB, rawurl string, optFns ...func(*sqlstore.Options)) *sqlstore.Store {
	t.Helper()
	st, err := sqlstore.Open(t.Context(), rawurl, optFns...)
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

// The contract on SQLite runs in package sqlite (sqlstore/sqlite), through
// its Open.

// TestContractBudgetPostgres runs the daily-limit contract on a table of its
// own in the test PostgreSQL, each handle a Store with its own pool.
func TestContractBudgetPostgres(t *testing.T) {
	pg := testenv.PG(t)
	table := "seqshim_test_" + randomSuffix(t)
	admin := openT(t, pg, func(o *sqlstore.Options) { o.Table = table })
	t.Cleanup(func() {
		if _, err := admin.DB().ExecContext(context.Background(), "DROP TABLE IF EXISTS "+table); err != nil {
			t.Error(err)
		}
	})
	storetest.RunBudget(t, func(t *testing.T, now func() time.Time) sequence.Store {
		return openT(t, pg, func(o *sqlstore.Options) { o.Table, o.Now = table, now })
	})
}

func randomSuffix(t testing.TB) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// TestContractPostgres runs the contract on a table of its own in the test
// PostgreSQL, dropped afterwards.
func TestContractPostgres(t *testing.T) {
	pg := testenv.PG(t)
	table := "seqshim_test_" + randomSuffix(t)
	shared := openT(t, pg, func(o *sqlstore.Options) { o.Table = table })
	t.Cleanup(func() {
		if _, err := shared.DB().ExecContext(context.Background(), "DROP TABLE IF EXISTS "+table); err != nil {
			t.Error(err)
		}
	})
	storetest.Run(t, func(t *testing.T) sequence.Store { return shared })
}

func TestOpenURL(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		url       string
		dialect   sqlstore.Dialect
		table     string
		wantError string
	}{
		{url: "sqlite:" + dir + "/a.db", dialect: sqlstore.SQLite, table: sqlstore.DefaultTable},
		{url: "sqlite://" + dir + "/a.db?table=other", dialect: sqlstore.SQLite, table: "other"},
		{url: "SQLITE:" + dir + "/a.db?table=main.t2", dialect: sqlstore.SQLite, table: "main.t2"},
		{url: "postgres://u@127.0.0.1:1/db?sslmode=disable&table=s.t", dialect: sqlstore.Postgres, table: "s.t"},
		{url: "postgresql://u@127.0.0.1:1/db", dialect: sqlstore.Postgres, table: sqlstore.DefaultTable},
		{url: "sqlite:", wantError: "want sqlite:PATH"},
		{url: "sqlite::memory:", wantError: "use memory:"},
		{url: "sqlite:" + dir + "/a.db?mode=ro", wantError: `unknown parameter "mode"`},
		{url: "sqlite:" + dir + "/a.db?table=x-y", wantError: "invalid table name"},
		{url: "mysql://x", wantError: `unsupported URL scheme "mysql"`},
		{url: "nothing", wantError: "not a store URL"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			st, err := sqlstore.Open(t.Context(), tc.url)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("Open: %v, want error containing %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if st.Dialect() != tc.dialect || st.Table() != tc.table {
				t.Errorf("dialect %s table %s, want %s %s", st.Dialect(), st.Table(), tc.dialect, tc.table)
			}
		})
	}
}

// TestSQLiteFileShared: two Stores on one file see each other's sequences,
// and the table is created once.
func TestSQLiteFileShared(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "seq.db")
	a, b := openT(t, url), openT(t, url)
	ctx := t.Context()
	if err := a.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
		t.Fatal(err)
	}
	x, err := a.Reserve(ctx, "s", 10)
	if err != nil {
		t.Fatal(err)
	}
	y, err := b.Reserve(ctx, "s", 10)
	if err != nil {
		t.Fatal(err)
	}
	if y.First != x.Last()+1 {
		t.Errorf("second store's block %+v does not follow %+v", y, x)
	}
}

// envChild makes the test binary a child of TestMultiProcess: it reserves
// blocks from the SQLite file named by the variable and prints them.
const envChild = "SEQSHIM_SQLSTORE_CHILD_DB"

const (
	childProcs      = 4
	childGoroutines = 4
	childBlocks     = 250 // per goroutine
)

// TestMultiProcess starts 4 processes (this test binary again) sharing one
// SQLite file, each reserving blocks from 4 goroutines at once: no value may
// be handed out twice, and together they account for every value.
func TestMultiProcess(t *testing.T) {
	if path := os.Getenv(envChild); path != "" {
		child(t, path)
		return
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	path := filepath.Join(t.TempDir(), "seq.db")
	st := openT(t, "sqlite:"+path)
	if err := st.Create(t.Context(), "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	outs := make([]bytes.Buffer, childProcs)
	var wg sync.WaitGroup
	errs := make([]error, childProcs)
	for i := range childProcs {
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestMultiProcess$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), envChild+"="+path)
			cmd.Stdout = &outs[i]
			cmd.Stderr = &outs[i]
			errs[i] = cmd.Run()
		})
	}
	wg.Wait()
	var blocks []sequence.Block
	for i := range childProcs {
		if errs[i] != nil {
			t.Fatalf("child %d: %v\n%s", i, errs[i], outs[i].String())
		}
		n := 0
		sc := bufio.NewScanner(&outs[i])
		for sc.Scan() {
			var b sequence.Block
			if _, err := fmt.Sscanf(sc.Text(), "block %d %d %d", &b.First, &b.Step, &b.Count); err == nil {
				blocks = append(blocks, b)
				n++
			}
		}
		if n != childGoroutines*childBlocks {
			t.Fatalf("child %d printed %d blocks, want %d:\n%s", i, n, childGoroutines*childBlocks, outs[i].String())
		}
	}
	seen := map[int64]int{}
	var total int64
	for _, b := range blocks {
		for i := range b.Count {
			v := b.Value(i)
			if _, dup := seen[v]; dup {
				t.Fatalf("value %d handed out twice", v)
			}
			seen[v]++
		}
		total += b.Count
	}
	for v := int64(1); v <= total; v++ {
		if seen[v] != 1 {
			t.Fatalf("value %d missing of 1..%d", v, total)
		}
	}
	info, err := st.Describe(t.Context(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if info.Position.Last != total || info.Reservations != int64(len(blocks)) || info.ValuesReserved != total {
		t.Errorf("store at %+v after %d blocks, %d values; %+v", info.Position, len(blocks), total, info)
	}
	t.Logf("%d processes × %d goroutines: %d blocks, %d values, all distinct", childProcs, childGoroutines, len(blocks), total)
}

func child(t *testing.T, path string) {
	st := openT(t, "sqlite:"+path)
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for g := range childGoroutines {
		wg.Go(func() {
			for i := range childBlocks {
				b, err := st.Reserve(t.Context(), "s", int64((g*7+i)%50+1))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				fmt.Fprintf(out, "block %d %d %d\n", b.First, b.Step, b.Count)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

func BenchmarkReserve(b *testing.B) {
	st := openT(b, "sqlite:"+filepath.Join(b.TempDir(), "seq.db"))
	ctx := b.Context()
	if err := st.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Reserve(ctx, "s", 100); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReservePostgres(b *testing.B) {
	table := "seqshim_bench_" + randomSuffix(b)
	st := openT(b, testenv.PG(b), func(o *sqlstore.Options) { o.Table = table })
	ctx := b.Context()
	b.Cleanup(func() { st.DB().ExecContext(context.Background(), "DROP TABLE IF EXISTS "+table) })
	if err := st.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Reserve(ctx, "s", 100); err != nil {
			b.Fatal(err)
		}
	}
}
