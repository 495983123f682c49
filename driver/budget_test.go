package driver_test

import (
	"bufio"
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

const envBudgetChild = "SEQSHIM_TEST_BUDGET_CHILD"

// budgetDay is the instant every process of TestMultiProcessDailyLimit takes
// for now (the stores' clock option): the test cannot straddle midnight.
var budgetDay = time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)

// TestMultiProcessDailyLimit runs 8 processes that draw values through the
// seqshim driver, each with its own cache and store handle, from one counter
// with a daily limit, until the store refuses them: together they get
// exactly the limit, every value once. On a SQLite file and on dynalite.
func TestMultiProcessDailyLimit(t *testing.T) {
	if os.Getenv(envBudgetChild) != "" {
		t.Skip("child process")
	}
	const procs, limit = 8, 3000
	stores := []struct {
		name string
		// setup returns the child's environment naming the store, and a
		// store handle for the parent.
		setup func(t *testing.T) ([]string, sequence.Store)
	}{
		{"sqlite", func(t *testing.T) ([]string, sequence.Store) {
			path := filepath.Join(t.TempDir(), "sequences.db")
			st, err := sqlstore.Open(t.Context(), "sqlite:"+path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return []string{"CHILD_SQLITE=" + path}, st
		}},
		{"dynamodb", func(t *testing.T) ([]string, sequence.Store) {
			d := testenv.NewDynamoTable(t)
			return []string{"CHILD_DYNAMO_ENDPOINT=" + d.Endpoint, "CHILD_DYNAMO_TABLE=" + d.Name}, d.Store()
		}},
	}
	for _, sc := range stores {
		t.Run(sc.name, func(t *testing.T) {
			env, st := sc.setup(t)
			spec, pos, _ := sequence.Clauses{DailyLimit: sequence.Int64(limit)}.Create()
			if err := st.Create(t.Context(), "s", spec, pos); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			cmds := make([]*exec.Cmd, procs)
			outs := make([]string, procs)
			for i := range cmds {
				outs[i] = filepath.Join(dir, fmt.Sprintf("values-%d.txt", i))
				cmd := exec.Command(os.Args[0], "-test.run=^TestMultiProcessDailyLimitChild$", "-test.count=1")
				cmd.Env = append(append(os.Environ(), envBudgetChild+"=1", "CHILD_OUT="+outs[i]), env...)
				cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds[i] = cmd
			}
			for i, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Fatalf("process %d: %v", i, err)
				}
			}
			seen := map[int64]int{}
			for i, out := range outs {
				for _, v := range readValues(t, out) {
					if p, dup := seen[v]; dup {
						t.Fatalf("value %d handed out to process %d and process %d", v, p, i)
					}
					if v < 1 || v > limit {
						t.Fatalf("value %d outside 1..%d", v, limit)
					}
					seen[v] = i
				}
			}
			if len(seen) != limit {
				t.Fatalf("%d values handed out in the day, want exactly the limit, %d", len(seen), limit)
			}
			info, err := st.Describe(t.Context(), "s")
			if err != nil {
				t.Fatal(err)
			}
			if want := (sequence.Usage{Day: sequence.DayOf(budgetDay), Used: limit}); info.DayUsage != want {
				t.Errorf("day usage %+v, want %+v", info.DayUsage, want)
			}
		})
	}
}

func readValues(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vals []int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, err := strconv.ParseInt(sc.Text(), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	return vals
}

// TestMultiProcessDailyLimitChild is one process of
// TestMultiProcessDailyLimit: it draws values until the daily limit refuses
// it, and writes them to CHILD_OUT.
func TestMultiProcessDailyLimitChild(t *testing.T) {
	if os.Getenv(envBudgetChild) == "" {
		t.Skip("run by TestMultiProcessDailyLimit")
	}
	now := func() time.Time { return budgetDay }
	var st sequence.Store
	if path := os.Getenv("CHILD_SQLITE"); path != "" {
		s, err := sqlstore.Open(t.Context(), "sqlite:"+path, func(o *sqlstore.Options) { o.Now = now })
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		st = s
	} else {
		client := testenv.DynamoDBClient(os.Getenv("CHILD_DYNAMO_ENDPOINT"))
		st = dynamostore.New(client, os.Getenv("CHILD_DYNAMO_TABLE"), func(o *dynamostore.Options) { o.Now = now })
	}
	c, err := driver.NewConnector(nopConnector{}, func(o *driver.Options) {
		o.Store, o.Dialect = st, driver.DialectSQLite
		o.MinBlock, o.MaxBlock = 100, 100
	})
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	f, err := os.Create(os.Getenv("CHILD_OUT"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		var v int64
		err := db.QueryRowContext(ctx, "SELECT nextval('s')").Scan(&v)
		if errors.Is(err, sequence.ErrDailyLimit) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(w, v)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// nopConnector is an inner driver whose connections do nothing: SELECT
// nextval('s') alone is answered by seqshim without them.
type nopConnector struct{}

func (nopConnector) Connect(context.Context) (sqldriver.Conn, error) { return nopConn{}, nil }
func (nopConnector) Driver() sqldriver.Driver                        { return nil }

type nopConn struct{}

func (nopConn) Prepare(string) (sqldriver.Stmt, error) {
	return nil, errors.New("nopConn: no database")
}
func (nopConn) Close() error                 { return nil }
func (nopConn) Begin() (sqldriver.Tx, error) { return nil, errors.New("nopConn: no database") }

// TestDailyLimitPgError checks what a pgx application sees at the daily
// limit: the values up to it, then PostgreSQL's error type with SQLSTATE
// 54000, the message naming the sequence, the limit and when it resets, and
// the hint; at once, not after the refill wait.
func TestDailyLimitPgError(t *testing.T) {
	st := memstore.New(func(o *memstore.Options) { o.Now = func() time.Time { return budgetDay } })
	spec, pos, _ := sequence.Clauses{DailyLimit: sequence.Int64(3)}.Create()
	if err := st.Create(t.Context(), "s", spec, pos); err != nil {
		t.Fatal(err)
	}
	db := seqshimDB(t, st, func(o *driver.Options) { o.MaxWait = time.Hour })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound: a transient error would wait MaxWait
	defer cancel()
	for want := int64(1); want <= 3; want++ {
		var v int64
		if err := db.QueryRowContext(ctx, "SELECT nextval('s')").Scan(&v); err != nil || v != want {
			t.Fatalf("nextval = %d, %v; want %d", v, err, want)
		}
	}
	err := db.QueryRowContext(ctx, "SELECT nextval('s')").Scan(new(int64))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "54000" {
		t.Fatalf("nextval past the daily limit: %v (%T), want a *pgconn.PgError 54000", err, err)
	}
	if want := sequence.DailyLimitError("s", 3, sequence.DayOf(budgetDay)); pe.Message != want.Message || pe.Hint != want.Hint {
		t.Errorf("error %q (hint %q), want %q (hint %q)", pe.Message, pe.Hint, want.Message, want.Hint)
	}
}
