package driver_test

// Acceptance tests of issue 24: every transaction-control statement
// (COMMIT, END, ROLLBACK, ABORT, … AND CHAIN, SAVEPOINT, RELEASE,
// ROLLBACK TO, PREPARE TRANSACTION) run through each way database/sql sends
// it — Exec, Query, a prepared statement (Exec and Query) on a *sql.Conn,
// and BeginTx's Commit and Rollback with savepoints sent or prepared on the
// *sql.Tx — in a transaction that holds sequence DDL. Afterwards the store
// and the database agree, as PostgreSQL's own outcome of the same statements
// says they must: in the session itself, on another connection of this
// process, after the session's next transaction, and in another process
// sharing the store and the database.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	seqdriver "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

// envTxChild names the request file of TestTxControlChild, the other
// process of TestTxControl.
const envTxChild = "SEQSHIM_TEST_TXCONTROL_CHILD"

// txObj names the objects of one DDL statement on one side (native or
// seqshim): a sequence, its name after a rename, a table.
type txObj struct{ seq, renamed, table string }

func newTxObj(t *testing.T) txObj {
	s := uniq(t, "txc")
	return txObj{seq: s, renamed: s + "_r", table: s + "_t"}
}

// serial is the implicit sequence of the table's bigserial column id.
func (o txObj) serial() string { return o.table + "_id_seq" }

// txProbe is a statement that observes an object: its first row's int8
// columns, classified, or its error's SQLSTATE.
type txProbe struct {
	sql      string
	classify func(vals []int64) string
}

// txKind is a kind of sequence DDL held in a transaction.
type txKind struct {
	name   string
	setup  func(o txObj) []string // run before the transaction, outside one
	ddl    func(o txObj) string   // run inside it
	probes func(o txObj) []txProbe
	// store returns an error if the store disagrees with the DDL having
	// been applied (committed) or not.
	store func(ctx context.Context, st sequence.Store, o txObj, applied bool) error
}

func anyValue([]int64) string { return "a value" }

func atLeast(n int64) func([]int64) string {
	return func(v []int64) string {
		if v[0] >= n {
			return fmt.Sprintf("a value ≥ %d", n)
		}
		return fmt.Sprintf("value %d (< %d)", v[0], n)
	}
}

// stepOf classifies two consecutive values of a sequence.
func stepOf(v []int64) string {
	switch d := v[1] - v[0]; {
	case d == 5 && v[0] >= 500:
		return "restarted at 500, by 5"
	case d == 1:
		return "by 1"
	default:
		return fmt.Sprintf("%d then %d", v[0], v[1])
	}
}

func exists(v []int64) string {
	if v[0] == 1 {
		return "exists"
	}
	return "absent"
}

func nextvalProbe(name string, classify func([]int64) string) txProbe {
	return txProbe{"SELECT nextval('" + name + "')", classify}
}

// storeInfo describes name in st; ok is false when the store has no such
// sequence.
func storeInfo(ctx context.Context, st sequence.Store, name string) (info sequence.Info, ok bool, err error) {
	info, err = st.Describe(ctx, name)
	if errors.Is(err, sequence.ErrNotFound) {
		return info, false, nil
	}
	return info, err == nil, err
}

// storeHas checks that the store has name exactly when want.
func storeHas(ctx context.Context, st sequence.Store, name string, want bool) error {
	_, ok, err := storeInfo(ctx, st, name)
	if err != nil {
		return err
	}
	if ok != want {
		return fmt.Errorf("store has %s: %v, want %v", name, ok, want)
	}
	return nil
}

var txKinds = []txKind{
	{
		name:   "create",
		ddl:    func(o txObj) string { return "CREATE SEQUENCE " + o.seq + " START 100" },
		probes: func(o txObj) []txProbe { return []txProbe{nextvalProbe(o.seq, atLeast(100))} },
		store: func(ctx context.Context, st sequence.Store, o txObj, applied bool) error {
			info, ok, err := storeInfo(ctx, st, o.seq)
			switch {
			case err != nil:
				return err
			case ok != applied:
				return fmt.Errorf("store has %s: %v, want %v", o.seq, ok, applied)
			case ok && info.Spec.Start != 100:
				return fmt.Errorf("store's %s starts at %d, want 100", o.seq, info.Spec.Start)
			}
			return nil
		},
	},
	{
		name:  "alter",
		setup: func(o txObj) []string { return []string{"CREATE SEQUENCE " + o.seq, "SELECT nextval('" + o.seq + "')"} },
		ddl:   func(o txObj) string { return "ALTER SEQUENCE " + o.seq + " RESTART WITH 500 INCREMENT 5" },
		probes: func(o txObj) []txProbe {
			return []txProbe{{"SELECT nextval('" + o.seq + "'), nextval('" + o.seq + "')", stepOf}}
		},
		store: func(ctx context.Context, st sequence.Store, o txObj, applied bool) error {
			info, err := st.Describe(ctx, o.seq)
			if err != nil {
				return err
			}
			want := int64(1)
			if applied {
				want = 5
			}
			if info.Spec.Increment != want {
				return fmt.Errorf("store's %s increments by %d, want %d", o.seq, info.Spec.Increment, want)
			}
			return nil
		},
	},
	{
		name:   "drop",
		setup:  func(o txObj) []string { return []string{"CREATE SEQUENCE " + o.seq, "SELECT nextval('" + o.seq + "')"} },
		ddl:    func(o txObj) string { return "DROP SEQUENCE " + o.seq },
		probes: func(o txObj) []txProbe { return []txProbe{nextvalProbe(o.seq, anyValue)} },
		store: func(ctx context.Context, st sequence.Store, o txObj, applied bool) error {
			return storeHas(ctx, st, o.seq, !applied)
		},
	},
	{
		name:  "rename",
		setup: func(o txObj) []string { return []string{"CREATE SEQUENCE " + o.seq, "SELECT nextval('" + o.seq + "')"} },
		ddl:   func(o txObj) string { return "ALTER SEQUENCE " + o.seq + " RENAME TO " + o.renamed },
		probes: func(o txObj) []txProbe {
			return []txProbe{nextvalProbe(o.seq, anyValue), nextvalProbe(o.renamed, anyValue)}
		},
		store: func(ctx context.Context, st sequence.Store, o txObj, applied bool) error {
			return errors.Join(storeHas(ctx, st, o.seq, !applied), storeHas(ctx, st, o.renamed, applied))
		},
	},
	{
		name: "bigserial",
		ddl:  func(o txObj) string { return "CREATE TABLE " + o.table + " (id bigserial, v text)" },
		probes: func(o txObj) []txProbe {
			// nextval first: a pass-through statement makes the session
			// notice a transaction that ended without it.
			return []txProbe{
				nextvalProbe(o.serial(), anyValue),
				// The column has no default in the database: an id is
				// the store's.
				{"INSERT INTO " + o.table + " (v) VALUES ('probe') RETURNING id", atLeast(1)},
				{"SELECT (to_regclass('" + o.table + "') IS NOT NULL)::int8", exists},
				{"SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name = '" + o.table + "'", exists},
			}
		},
		store: func(ctx context.Context, st sequence.Store, o txObj, applied bool) error {
			return storeHas(ctx, st, o.serial(), applied)
		},
	},
}

// txScenario is a transaction written as SQL: "DDL0" and "DDL1" stand for
// the kind's DDL on objects 0 and 1, GID for a unique global transaction
// id. BeginTx's paths run BEGIN, COMMIT and ROLLBACK as its Tx's methods.
type txScenario struct {
	name    string
	steps   []string
	applied []bool // per object: whether its DDL takes effect
	sqlOnly bool   // no BeginTx equivalent
	prepare bool   // PREPARE TRANSACTION fails (see TestTxControl)
	subset  bool   // also run with the DynamoDB store, and probed by another process
}

var txScenarios = []txScenario{
	{name: "COMMIT", steps: []string{"BEGIN", "DDL0", "COMMIT"}, applied: []bool{true}, subset: true},
	{name: "END", steps: []string{"BEGIN", "DDL0", "END"}, applied: []bool{true}, sqlOnly: true},
	{name: "START TRANSACTION+COMMIT", steps: []string{"START TRANSACTION", "DDL0", "COMMIT"}, applied: []bool{true}, sqlOnly: true},
	{name: "COMMIT AND CHAIN", steps: []string{"BEGIN", "DDL0", "COMMIT AND CHAIN", "DDL1", "ROLLBACK"}, applied: []bool{true, false}, sqlOnly: true},
	{name: "ROLLBACK", steps: []string{"BEGIN", "DDL0", "ROLLBACK"}, applied: []bool{false}, subset: true},
	{name: "ABORT", steps: []string{"BEGIN", "DDL0", "ABORT"}, applied: []bool{false}, sqlOnly: true},
	{name: "ROLLBACK AND CHAIN", steps: []string{"BEGIN", "DDL0", "ROLLBACK AND CHAIN", "DDL1", "COMMIT"}, applied: []bool{false, true}, sqlOnly: true},
	{name: "ROLLBACK TO", steps: []string{"BEGIN", "DDL0", "SAVEPOINT sp", "DDL1", "ROLLBACK TO sp", "COMMIT"}, applied: []bool{true, false}},
	{name: "RELEASE", steps: []string{"BEGIN", "DDL0", "SAVEPOINT sp", "DDL1", "RELEASE sp", "COMMIT"}, applied: []bool{true, true}},
	{name: "ROLLBACK TO before DDL", steps: []string{"BEGIN", "SAVEPOINT sp", "DDL0", "ROLLBACK TO SAVEPOINT sp", "DDL1", "COMMIT"}, applied: []bool{false, true}},
	{name: "PREPARE TRANSACTION", steps: []string{"BEGIN", "DDL0", "PREPARE TRANSACTION 'GID'", "ROLLBACK"}, applied: []bool{false}, prepare: true},
}

// txRunner is what *sql.Conn and *sql.Tx both offer.
type txRunner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// txPath is a way database/sql sends a statement.
type txPath struct {
	name string
	tx   bool // BeginTx on the session: BEGIN, COMMIT, ROLLBACK are the Tx's
	// early: every statement is prepared on the session before the
	// transaction begins, and executed at its step, as a program that keeps
	// its prepared statements does.
	early bool
	run   func(ctx context.Context, r txRunner, query string) error
}

func drain(rows *sql.Rows, err error) error {
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	return errors.Join(rows.Close(), rows.Err())
}

func runExec(ctx context.Context, r txRunner, q string) error {
	_, err := r.ExecContext(ctx, q)
	return err
}

func runQuery(ctx context.Context, r txRunner, q string) error { return drain(r.QueryContext(ctx, q)) }

func runPreparedExec(ctx context.Context, r txRunner, q string) error {
	st, err := r.PrepareContext(ctx, q)
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = st.ExecContext(ctx)
	return err
}

func runPreparedQuery(ctx context.Context, r txRunner, q string) error {
	st, err := r.PrepareContext(ctx, q)
	if err != nil {
		return err
	}
	defer st.Close()
	return drain(st.QueryContext(ctx))
}

var txPaths = []txPath{
	{name: "Exec", run: runExec},
	{name: "Query", run: runQuery},
	{name: "Prepared.Exec", run: runPreparedExec},
	{name: "Prepared.Query", run: runPreparedQuery},
	{name: "PreparedEarly.Exec", early: true},
	{name: "BeginTx.Exec", tx: true, run: runExec},
	{name: "BeginTx.Prepared", tx: true, run: runPreparedExec},
}

// outcome is "ok" or what identifies err: its SQLSTATE if it has one.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return "SQLSTATE " + pe.Code
	}
	return "error: " + err.Error()
}

// txResult is what a probe saw: the first row's values, or an error.
type txResult struct {
	Vals []int64 `json:",omitempty"`
	Err  string  `json:",omitempty"` // outcome of the error, "" for none
	Msg  string  `json:",omitempty"` // the error's text
}

func (r txResult) class(p txProbe) string {
	if r.Err != "" {
		return r.Err
	}
	return p.classify(r.Vals)
}

type txQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func runProbe(ctx context.Context, q txQuerier, query string) txResult {
	fail := func(err error) txResult { return txResult{Err: outcome(err), Msg: err.Error()} }
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return fail(err)
		}
		return txResult{Err: "no row"}
	}
	cols, err := rows.Columns()
	if err != nil {
		return fail(err)
	}
	vals := make([]int64, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return fail(err)
	}
	for rows.Next() {
	}
	if err := errors.Join(rows.Close(), rows.Err()); err != nil {
		return fail(err)
	}
	return txResult{Vals: vals}
}

// txSide is native PostgreSQL or seqshim with its store.
type txSide struct {
	name   string
	db     *sql.DB
	native *sql.DB        // to drop what a case created in the database
	st     sequence.Store // nil for native
}

// txSeen is what one side observed in one case.
type txSeen struct {
	objs  []txObj   // the objects, one per DDL of the scenario
	probe []txProbe // the objects' probes, in order
	gid   string    // PREPARE TRANSACTION's id
	steps []string  // each step's outcome
	store []string  // store disagreements, right after the transaction
	later []string  // store disagreements after the session's next transaction
	// Each probe's outcome: in the session that ran the transaction, on
	// another connection, on it again after the session's next transaction.
	same, other, after []string
}

// runTxCase runs sc with kind's DDL through path p on side, and observes.
// Objects are dropped from the database by cleanup, once the other process
// has probed them.
func runTxCase(t *testing.T, side txSide, p txPath, sc txScenario, kind txKind, cleanup func(func())) *txSeen {
	t.Helper()
	ctx := context.Background()
	seen := &txSeen{gid: uniq(t, "gid")}
	for range sc.applied {
		o := newTxObj(t)
		seen.objs = append(seen.objs, o)
		seen.probe = append(seen.probe, kind.probes(o)...)
		cleanup(func() {
			side.native.Exec("DROP TABLE IF EXISTS " + o.table)
			side.native.Exec("DROP SEQUENCE IF EXISTS " + o.seq + ", " + o.renamed)
		})
		if kind.setup != nil {
			for _, q := range kind.setup(o) {
				mustExec(t, side.db, q)
			}
		}
	}
	// On the off chance a cluster allows prepared transactions.
	cleanup(func() { side.native.Exec("ROLLBACK PREPARED '" + seen.gid + "'") })

	c, err := side.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	other, err := side.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	texts := make([]string, len(sc.steps))
	for i, step := range sc.steps {
		switch step {
		case "DDL0", "DDL1":
			texts[i] = kind.ddl(seen.objs[step[3]-'0'])
		default:
			texts[i] = strings.ReplaceAll(step, "GID", seen.gid)
		}
	}
	run := p.run
	if p.early {
		stmts := map[string]*sql.Stmt{}
		for _, q := range texts {
			if stmts[q] != nil {
				continue
			}
			st, err := c.PrepareContext(ctx, q)
			if err != nil {
				t.Fatalf("%s: prepare %s: %v", side.name, q, err)
			}
			defer st.Close()
			stmts[q] = st
		}
		run = func(ctx context.Context, _ txRunner, q string) error {
			_, err := stmts[q].ExecContext(ctx)
			return err
		}
	}
	var tx *sql.Tx
	for i, step := range sc.steps {
		var err error
		switch q := texts[i]; {
		case p.tx && q == "BEGIN":
			if tx, err = c.BeginTx(ctx, nil); err != nil {
				t.Fatalf("%s: BeginTx: %v", side.name, err)
			}
		case p.tx && q == "COMMIT":
			err = tx.Commit()
			tx = nil
		case p.tx && q == "ROLLBACK":
			err = tx.Rollback()
			tx = nil
		case tx != nil:
			err = run(ctx, tx, q)
		default:
			err = run(ctx, c, q)
		}
		seen.steps = append(seen.steps, outcome(err))
		if err != nil && !sc.prepare {
			t.Logf("%s: %s: %v", side.name, step, err)
		}
	}
	if tx != nil {
		t.Fatalf("%s: the scenario left its Tx open", side.name)
	}

	checkStore := func() (bad []string) {
		if side.st == nil {
			return nil
		}
		for i, o := range seen.objs {
			if err := kind.store(ctx, side.st, o, sc.applied[i]); err != nil {
				bad = append(bad, fmt.Sprintf("DDL%d: %v", i, err))
			}
		}
		return bad
	}
	probeAll := func(q txQuerier) (out []string) {
		for _, pr := range seen.probe {
			out = append(out, runProbe(ctx, q, pr.sql).class(pr))
		}
		return out
	}
	seen.store = checkStore()
	seen.same = probeAll(c)
	seen.other = probeAll(other)
	// The session's next transaction commits nothing of this one's.
	for _, q := range []string{"BEGIN", "SELECT 1", "COMMIT"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Errorf("%s: the session's next transaction: %s: %v", side.name, q, err)
		}
	}
	seen.later = checkStore()
	seen.after = probeAll(other)
	return seen
}

// txChildCase is one case's probes for the other process.
type txChildCase struct {
	name  string
	probe []txProbe
	want  []string // native's outcome on another connection
}

// txChildRequest is TestTxControlChild's input.
type txChildRequest struct {
	DSN     string
	Queries []string
}

// TestTxControl runs the matrix paths × scenarios × DDL kinds, each case
// natively (native sequences and tables, pgx alone) and through seqshim
// with a store shared with another process, and checks that:
//
//   - each statement succeeds or fails as natively (same SQLSTATE), except
//     PREPARE TRANSACTION, which must fail on both sides (natively 55000:
//     the test cluster has max_prepared_transactions = 0; seqshim refuses it
//     after held DDL);
//   - the store holds the DDL exactly when PostgreSQL committed it: right
//     after the transaction, and still after the session's next
//     transaction;
//   - probes (nextval, INSERT leaving the bigserial id out, to_regclass,
//     information_schema) give the native outcome in the session, on
//     another connection of the process (also after the session's next
//     transaction), and, for the COMMIT and ROLLBACK scenarios, in another
//     process (TestTxControlChild) that opens the same store URL and
//     database.
//
// The SQLite file store runs the whole matrix; DynamoDB (dynalite) the
// COMMIT and ROLLBACK scenarios. BeginTx is sql.Conn's, so that the probes
// can run in the session afterwards: the driver sees the same calls as
// with sql.DB's.
func TestTxControl(t *testing.T) {
	if os.Getenv(envTxChild) != "" {
		t.Skip("child process")
	}
	pg := testenv.PG(t)
	native := nativeDB(t)
	var maxPrepared string
	if err := native.QueryRow("SHOW max_prepared_transactions").Scan(&maxPrepared); err != nil {
		t.Fatal(err)
	}
	stores := []struct {
		name   string
		url    func(t *testing.T) string
		subset bool
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "seq.db") }, false},
		{"dynamodb", dynamoURL, true},
	}
	for _, sk := range stores {
		t.Run(sk.name, func(t *testing.T) {
			storeT := t
			ctx := context.Background()
			storeURL := sk.url(t)
			st, err := storeurl.Open(ctx, storeURL)
			if err != nil {
				t.Fatal(err)
			}
			if c, ok := st.(io.Closer); ok {
				t.Cleanup(func() { c.Close() })
			}
			sides := []txSide{
				{name: "native", db: native, native: native},
				// Patient: a store call slow on a loaded machine is waited
				// for; this test is about what commits, not how fast.
				{name: "seqshim", db: seqshimDB(t, st, func(o *seqdriver.Options) {
					o.MaxWait, o.RefillTimeout = time.Minute, 30*time.Second
				}), native: native, st: st},
			}
			var (
				mu    sync.Mutex
				child []txChildCase
			)
			t.Run("cases", func(t *testing.T) {
				for _, p := range txPaths {
					for _, sc := range txScenarios {
						if p.tx && sc.sqlOnly || sk.subset && !sc.subset {
							continue
						}
						for _, kind := range txKinds {
							t.Run(p.name+"/"+sc.name+"/"+kind.name, func(t *testing.T) {
								t.Parallel()
								if sc.prepare && maxPrepared != "0" {
									t.Skipf("max_prepared_transactions is %s: natively PREPARE TRANSACTION would succeed", maxPrepared)
								}
								nat := runTxCase(t, sides[0], p, sc, kind, storeT.Cleanup)
								shim := runTxCase(t, sides[1], p, sc, kind, storeT.Cleanup)
								compareTxCase(t, sc, nat, shim)
								if sc.subset { // the other process costs time: COMMIT and ROLLBACK there
									mu.Lock()
									child = append(child, txChildCase{name: t.Name(), probe: shim.probe, want: nat.other})
									mu.Unlock()
								}
							})
						}
					}
				}
			})
			t.Run("other process", func(t *testing.T) {
				if len(child) == 0 {
					t.Fatal("no case completed")
				}
				runTxChild(t, withStore(t, pg, storeURL), child)
			})
		})
	}
}

// compareTxCase checks seqshim's observations against native's and the
// store against the scenario.
func compareTxCase(t *testing.T, sc txScenario, nat, shim *txSeen) {
	t.Helper()
	for i, step := range sc.steps {
		n, s := nat.steps[i], shim.steps[i]
		if strings.HasPrefix(step, "PREPARE TRANSACTION") {
			if n == "ok" || s == "ok" {
				t.Errorf("%s: native %s, seqshim %s; want an error on both", step, n, s)
			}
			continue
		}
		if n != s {
			t.Errorf("%s: native %s, seqshim %s", step, n, s)
		}
	}
	for _, bad := range shim.store {
		t.Errorf("store right after the transaction: %s", bad)
	}
	for _, bad := range shim.later {
		t.Errorf("store after the session's next transaction: %s", bad)
	}
	diff := func(where string, n, s []string) {
		for i := range n {
			if n[i] != s[i] {
				t.Errorf("%s: %s: native %s, seqshim %s", where, shim.probe[i].sql, n[i], s[i])
			}
		}
	}
	diff("in the session", nat.same, shim.same)
	diff("on another connection", nat.other, shim.other)
	diff("on another connection after the session's next transaction", nat.after, shim.after)
}

// runTxChild runs every case's probes in another process and compares them
// with native's outcome on another connection.
func runTxChild(t *testing.T, dsn string, cases []txChildCase) {
	dir := t.TempDir()
	req := txChildRequest{DSN: dsn}
	for _, cc := range cases {
		for _, p := range cc.probe {
			req.Queries = append(req.Queries, p.sql)
		}
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	in, out := filepath.Join(dir, "request.json"), filepath.Join(dir, "results.json")
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTxControlChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envTxChild+"="+in, "CHILD_OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child process: %v\n%s", err, b)
	}
	b, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var results []txResult
	if err := json.Unmarshal(b, &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != len(req.Queries) {
		t.Fatalf("child answered %d probes of %d", len(results), len(req.Queries))
	}
	i := 0
	for _, cc := range cases {
		for j, p := range cc.probe {
			r := results[i]
			i++
			if got := r.class(p); got != cc.want[j] {
				t.Errorf("%s: %s: in another process %s (%s), natively %s", cc.name, p.sql, got, r.Msg, cc.want[j])
			}
		}
	}
}

// TestTxControlChild is TestTxControl's other process: it opens the store
// and the database it is given, runs each probe through seqshim and writes
// what each saw.
func TestTxControlChild(t *testing.T) {
	in := os.Getenv(envTxChild)
	if in == "" {
		t.Skip("run by TestTxControl")
	}
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var req txChildRequest
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("seqshim", req.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	results := make([]txResult, len(req.Queries))
	for i, q := range req.Queries {
		results[i] = runProbe(ctx, db, q)
	}
	if b, err = json.Marshal(results); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv("CHILD_OUT"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}
