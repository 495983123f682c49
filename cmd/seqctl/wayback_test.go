package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	_ "github.com/seqshim/seqshim/driver"
)

// The way back: seqctl import, fence, writes through seqshim from several
// processes, seqctl export, writes natively and through a process that was
// not switched back, seqctl verify — on every store, with one database and
// with two sharing a counter.

const envWriter = "SEQCTL_TEST_WRITER_DSN"

// writerPrefix starts every answer of a writer process, apart from what the
// test framework prints.
const writerPrefix = "seqctl-writer "

// TestWayBackWriter is the writer process of the way-back tests, started by
// them (startWriter): it opens the database of $SEQCTL_TEST_WRITER_DSN
// through seqshim and answers commands read from stdin, one a line:
//
//	insert TABLE N   N rows, one INSERT … DEFAULT VALUES each, until one fails
//	quit
//
// with one line: the ids written, comma-separated ("-" for none), and "ok"
// or the SQLSTATE of the error that stopped it.
func TestWayBackWriter(t *testing.T) {
	dsn := os.Getenv(envWriter)
	if dsn == "" {
		t.Skip("the writer process of the way-back tests")
	}
	db, err := sql.Open("seqshim", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 0 || f[0] == "quit" {
			return
		}
		if len(f) != 3 || f[0] != "insert" {
			t.Fatalf("writer: unknown command %q", in.Text())
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		status := "ok"
		for range n {
			var id int64
			err := db.QueryRow("INSERT INTO " + f[1] + " DEFAULT VALUES RETURNING id::int8").Scan(&id)
			if err != nil {
				var pe *pgconn.PgError
				if errors.As(err, &pe) {
					status = pe.Code + " " + pe.Message
				} else {
					status = "error " + err.Error()
				}
				break
			}
			ids = append(ids, strconv.FormatInt(id, 10))
		}
		list := strings.Join(ids, ",")
		if list == "" {
			list = "-"
		}
		fmt.Printf("%s%s %s\n", writerPrefix, list, strings.ReplaceAll(status, "\n", " "))
	}
}

// writer is a seqshim process of the way-back tests.
type writer struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// startWriter starts a writer process on the database dsn (with its
// seqshim.store), stopped at the end of the test.
func startWriter(t *testing.T, dsn string) *writer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWayBackWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), envWriter+"="+dsn)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &writer{t: t, cmd: cmd, in: in, out: bufio.NewScanner(out)}
	w.out.Buffer(make([]byte, 1<<20), 16<<20)
	t.Cleanup(func() {
		_ = in.Close() // EOF: the writer returns
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return w
}

// insert asks the writer for n rows of table and returns the ids it wrote
// and "ok" or the SQLSTATE and message of the error that stopped it.
func (w *writer) insert(table string, n int) ([]int64, string) {
	w.t.Helper()
	if _, err := fmt.Fprintf(w.in, "insert %s %d\n", table, n); err != nil {
		w.t.Fatalf("writer: %v", err)
	}
	for w.out.Scan() {
		line, ok := strings.CutPrefix(w.out.Text(), writerPrefix)
		if !ok {
			continue
		}
		list, status, _ := strings.Cut(line, " ")
		var ids []int64
		if list != "-" {
			for s := range strings.SplitSeq(list, ",") {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					w.t.Fatalf("writer: %q: %v", line, err)
				}
				ids = append(ids, v)
			}
		}
		return ids, status
	}
	w.t.Fatalf("writer: no answer (%v)", w.out.Err())
	return nil, ""
}

// withStore adds seqshim.store to a PostgreSQL URL, and a buffer so short
// that a cache refills only when it runs out: the store moves only when a
// test's statements make it, so a dry run's plan can be compared with the
// real run's.
func withStore(pgURL, store string) string {
	sep := "?"
	if strings.Contains(pgURL, "?") {
		sep = "&"
	}
	return pgURL + sep + "seqshim.buffer=1ms&seqshim.store=" + url.QueryEscape(store)
}

// quietDB opens a database through seqshim as withStore says.
func quietDB(t *testing.T, pgURL, store string) *sql.DB {
	t.Helper()
	db, err := sql.Open("seqshim", withStore(pgURL, store))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// databaseURL is pgURL with another database.
func databaseURL(t *testing.T, pgURL, name string) string {
	t.Helper()
	u, err := url.Parse(pgURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// forEachStoreWithPG is forEachStore plus a table store in the test
// PostgreSQL.
func forEachStoreWithPG(t *testing.T, f func(t *testing.T, ts *tester)) {
	forEachStore(t, f)
	t.Run("postgres", func(t *testing.T) {
		conn, pgURL := pgConn(t)
		table := uniqueName(t, "seqs_", 63)
		ts := &tester{t: t, store: pgURL + "&table=" + table}
		ts.ok("init")
		t.Cleanup(func() { pgExec(t, conn, "DROP TABLE IF EXISTS "+table) })
		f(t, ts)
	})
}

// ids tracks every id written to one table, and by whom.
type ids map[int64]string

func (m ids) add(t *testing.T, by string, vs ...int64) {
	t.Helper()
	for _, v := range vs {
		if prev, dup := m[v]; dup {
			t.Fatalf("id %d written by %s and by %s", v, prev, by)
		}
		m[v] = by
	}
}

// exportPlan runs export with -o json and returns its plan by counter.
func exportPlan(t *testing.T, ts *tester, args ...string) (map[string]exportItem, string) {
	t.Helper()
	out := ts.ok(append([]string{"-o", "json", "export"}, args...)...)
	var plan []exportItem
	decode(t, out, &plan)
	m := map[string]exportItem{}
	for _, it := range plan {
		m[it.Name] = it
	}
	return m, out
}

// settledDryRun runs export's dry run until two in a row plan the same:
// a refill a process started with its last statement may still be landing
// in the store, and the real run is to be compared with a plan of the store
// as it stands.
func settledDryRun(t *testing.T, ts *tester, args ...string) string {
	t.Helper()
	_, prev := exportPlan(t, ts, append(args, "--dry-run")...)
	for range 50 {
		_, out := exportPlan(t, ts, append(args, "--dry-run")...)
		if out == prev {
			return out
		}
		prev = out
	}
	t.Fatal("the store kept moving: no two dry runs in a row planned the same")
	return ""
}

// samePlans compares a dry run's plan with the real run's: the same,
// but for the action done.
func samePlans(t *testing.T, dry, real string) {
	t.Helper()
	want := strings.ReplaceAll(dry, `"action": "export"`, `"action": "exported"`)
	if want != real {
		t.Errorf("the real export did not do the dry run's plan:\ndry run:\n%s\nreal run:\n%s", dry, real)
	}
}

func verifyJSON(t *testing.T, ts *tester, wantCode int, args ...string) []verifyCounter {
	t.Helper()
	r := ts.run(append([]string{"-o", "json", "verify"}, args...)...)
	if r.code != wantCode {
		t.Fatalf("verify %v: exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", args, r.code, wantCode, r.stdout, r.stderr)
	}
	var out []verifyCounter
	decode(t, r.stdout, &out)
	return out
}

func scanID(t *testing.T, conn *pgx.Conn, q string, args ...any) int64 {
	t.Helper()
	var v int64
	if err := conn.QueryRow(context.Background(), q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// TestWayBack is the round trip on one database: native sequences and
// serial, identity and DEFAULT nextval tables holding data, a counter
// seqctl created for a column without a default; import, fence, verify;
// three seqshim processes write and keep blocks in their caches; export
// (its dry run's plan compared with what it does); native writes, and a
// process not switched back that draws until the store's fence stops it
// with 2200H; verify; then a native INSERT with an id the store has not
// reserved, which verify reports.
func TestWayBack(t *testing.T) {
	forEachStoreWithPG(t, func(t *testing.T, ts *tester) {
		ctx := context.Background()
		conn, pgURL, sch := pgSchema(t)
		pgExec(t, conn,
			"CREATE TABLE "+sch+".orders (id bigserial PRIMARY KEY, note text)",
			"CREATE TABLE "+sch+".items (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text)",
			"CREATE TABLE "+sch+".tags (id bigint GENERATED BY DEFAULT AS IDENTITY (START 100) PRIMARY KEY, tag text)",
			"CREATE SEQUENCE "+sch+".inv_seq START 500",
			"CREATE TABLE "+sch+".invoices (id bigint PRIMARY KEY DEFAULT nextval('"+sch+".inv_seq'), note text)",
			"CREATE TABLE "+sch+".notes (id bigint PRIMARY KEY, body text)",
			"CREATE SEQUENCE "+sch+".down_seq INCREMENT -3 START -10",
			"CREATE TABLE "+sch+".downs (id bigint PRIMARY KEY DEFAULT nextval('"+sch+".down_seq'))",
			"INSERT INTO "+sch+".downs DEFAULT VALUES",
			"INSERT INTO "+sch+".orders (note) SELECT 'native' FROM generate_series(1, 5)",
			"INSERT INTO "+sch+".items (name) VALUES ('native'), ('native')",
			"INSERT INTO "+sch+".tags DEFAULT VALUES",
			"INSERT INTO "+sch+".invoices DEFAULT VALUES",
		)
		tables := []string{"orders", "items", "tags", "invoices", "notes", "downs"}
		counter := map[string]string{"orders": "orders_id_seq", "items": "items_id_seq", "tags": "tags_id_seq",
			"invoices": "inv_seq", "notes": "notes_seq", "downs": "down_seq"}
		step := func(tb string) int64 {
			if tb == "downs" {
				return -3
			}
			return 1
		}
		seen := map[string]ids{}
		for _, tb := range tables {
			seen[tb] = ids{}
			rows, err := conn.Query(ctx, "SELECT id::int8 FROM "+sch+"."+tb)
			if err != nil {
				t.Fatal(err)
			}
			vs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				t.Fatal(err)
			}
			seen[tb].add(t, "native", vs...)
		}

		ts.ok("import", "--from", pgURL, "--schema", sch, "--sample", "0", "--margin", "1000")
		ts.ok("create", sch+".notes_seq", "--start", "1", "--default", sch+".notes.id")
		ts.ok("fence", "--from", pgURL, "--schema", sch)
		verifyJSON(t, ts, 0, "--from", pgURL, "--schema", sch)

		dsn := withStore(pgURL, ts.store)
		writers := []*writer{startWriter(t, dsn), startWriter(t, dsn), startWriter(t, dsn)}
		for i, w := range writers {
			for _, tb := range tables {
				got, status := w.insert(sch+"."+tb, 7)
				if status != "ok" || len(got) != 7 {
					t.Fatalf("writer %d, %s: %d ids, %s", i, tb, len(got), status)
				}
				seen[tb].add(t, fmt.Sprintf("seqshim process %d", i), got...)
			}
		}

		args := []string{"--from", pgURL, "--schema", sch, "--sample", "0", "--margin", "50"}
		dry := settledDryRun(t, ts, args...)
		plan, real := exportPlan(t, ts, args...)
		samePlans(t, dry, real)
		for _, tb := range tables {
			it, inc := plan[sch+"."+counter[tb]], step(tb)
			if it.Action != "exported" || it.Mode != "fence-store" || it.StoreNext == nil || it.NativeFirst == nil ||
				*it.NativeFirst != *it.StoreNext+50*inc || *it.StoreBound != *it.NativeFirst-inc/abs(inc) {
				t.Fatalf("export of %s: %s, %s, store next %v, native first %v, store bound %v", tb, it.Action, it.Reason,
					fmtPtr(it.StoreNext), fmtPtr(it.NativeFirst), fmtPtr(it.StoreBound))
			}
		}
		again, _ := exportPlan(t, ts, append(args, "--dry-run")...)
		for _, tb := range tables {
			if it := again[sch+"."+counter[tb]]; it.Action != "skip" {
				t.Errorf("export of %s run again: %s %s, want skip (exported already)", tb, it.Action, it.Reason)
			}
		}

		// Back to native: the database's own defaults hand out the values
		// past the store's fence, the first one first.
		for _, tb := range tables {
			first := *plan[sch+"."+counter[tb]].NativeFirst
			for i := range 3 {
				id := scanID(t, conn, "INSERT INTO "+sch+"."+tb+" DEFAULT VALUES RETURNING id::int8")
				if i == 0 && id != first || i > 0 && (id-first)*step(tb) <= 0 {
					t.Errorf("%s: the first native id after export is %d, want %d", tb, id, first)
				}
				seen[tb].add(t, "native after export", id)
			}
		}
		// A process not switched back serves from its cache and the margin,
		// then fails with 2200H: never a value the native side hands out.
		for _, tb := range []string{"orders", "notes"} {
			got, status := writers[0].insert(sch+"."+tb, 20_000)
			if !strings.HasPrefix(status, "2200H ") {
				t.Fatalf("a process not switched back, %s: %d ids, then %q; want 2200H", tb, len(got), status)
			}
			seen[tb].add(t, "seqshim process 0, not switched back", got...)
			bound := *plan[sch+"."+counter[tb]].StoreBound
			for _, id := range got {
				if (id-bound)*step(tb) > 0 {
					t.Fatalf("%s: the process not switched back wrote %d, past the store's fence %d", tb, id, bound)
				}
			}
			t.Logf("%s: the process not switched back wrote %d more ids, then: %s", tb, len(got), status)
		}
		for _, tb := range tables {
			seen[tb].add(t, "native, last", scanID(t, conn, "INSERT INTO "+sch+"."+tb+" DEFAULT VALUES RETURNING id::int8"))
			if n := scanID(t, conn, "SELECT count(*) FROM "+sch+"."+tb); n != int64(len(seen[tb])) {
				t.Errorf("%s: %d rows, want the %d ids written", tb, n, len(seen[tb]))
			}
		}
		out := verifyJSON(t, ts, 0, "--from", pgURL, "--schema", sch)
		var items verifyCounter
		for _, c := range out {
			if c.Name == sch+".items_id_seq" {
				items = c
			}
		}
		if items.StoreNext == nil || len(items.Columns) != 1 || items.Columns[0].MaxID == nil || items.Columns[0].Read != "index" {
			t.Fatalf("verify of items: %+v", items)
		}

		// A writer that bypasses seqshim and the native sequence: an id the
		// store has not reserved yet.
		bypass := *items.StoreNext
		pgExec(t, conn, fmt.Sprintf("INSERT INTO %s.items (id, name) OVERRIDING SYSTEM VALUE VALUES (%d, 'bypass')", sch, bypass))
		out = verifyJSON(t, ts, exitVerify, "--from", pgURL, "--schema", sch)
		flagged := 0
		for _, c := range out {
			for _, col := range c.Columns {
				for _, f := range col.Findings {
					flagged++
					if c.Name != sch+".items_id_seq" || !strings.Contains(f, "bypass: id "+strconv.FormatInt(bypass, 10)) {
						t.Errorf("verify flagged %s %s: %s", c.Name, col.Column, f)
					}
				}
			}
		}
		if flagged != 1 {
			t.Errorf("verify flagged %d findings, want the bypass: %+v", flagged, out)
		}
		r := ts.fails(exitVerify, "verify", "--from", pgURL, "--schema", sch)
		if !strings.Contains(r.stdout, "bypass") {
			t.Errorf("verify's table does not name the bypass:\n%s", r.stdout)
		}
	})
}

// TestWayBackShared is the round trip with two databases sharing a counter
// (membership): exporting one gives its native sequence a range the store
// reserved for it, and leaves the other served by the store; the ids of the
// two never meet.
func TestWayBackShared(t *testing.T) {
	forEachStoreWithPG(t, func(t *testing.T, ts *tester) {
		ctx := context.Background()
		admin, pgURL := pgConn(t)
		nameA, idA := pgDatabase(t, admin)
		nameB, idB := pgDatabase(t, admin)
		urlA, urlB := databaseURL(t, pgURL, nameA), databaseURL(t, pgURL, nameB)
		dbA, dbB := quietDB(t, urlA, ts.store), quietDB(t, urlB, ts.store)
		for _, db := range []*sql.DB{dbA, dbB} {
			if _, err := db.ExecContext(ctx, "CREATE TABLE orders (id bigserial PRIMARY KEY, note text)"); err != nil {
				t.Fatal(err)
			}
		}
		all := ids{}
		insert := func(db *sql.DB, by string, n int) []int64 {
			var out []int64
			for range n {
				var id int64
				if err := db.QueryRowContext(ctx, "INSERT INTO orders (note) VALUES ($1) RETURNING id", by).Scan(&id); err != nil {
					t.Fatalf("%s: %v", by, err)
				}
				out = append(out, id)
			}
			all.add(t, by, out...)
			return out
		}
		insert(dbA, "A through seqshim", 10)
		insert(dbB, "B through seqshim", 10)
		stay := startWriter(t, withStore(urlA, ts.store))
		got, status := stay.insert("orders", 5)
		if status != "ok" {
			t.Fatalf("a seqshim process on A: %s", status)
		}
		all.add(t, "A, a process not switched back", got...)
		if c := ts.describe("orders_id_seq"); len(c.Members) != 2 {
			t.Fatalf("members before export: %+v", c.Members)
		}

		args := []string{"--from", urlA, "--sample", "0", "--range", "100"}
		dry := settledDryRun(t, ts, args...)
		plan, real := exportPlan(t, ts, args...)
		samePlans(t, dry, real)
		it := plan["orders_id_seq"]
		if it.Action != "exported" || it.Mode != "range" || it.NativeFirst == nil || it.NativeLimit == nil ||
			*it.NativeLimit-*it.NativeFirst != 99 || it.StoreBound != nil {
			t.Fatalf("export of A: %s %s, mode %s, native %v to %v", it.Action, it.Reason, it.Mode, fmtPtr(it.NativeFirst), fmtPtr(it.NativeLimit))
		}
		first, last := *it.NativeFirst, *it.NativeLimit
		st := ts.open()
		info := mustDescribe(t, st, "orders_id_seq")
		if m, ok := info.Spec.Member(idA); !ok || m.Native == nil || m.Native.First != first || m.Native.Last != last {
			t.Errorf("A's membership after export: %+v, want the range %d to %d", m, first, last)
		}
		if m, ok := info.Spec.Member(idB); !ok || m.Native != nil {
			t.Errorf("B's membership after export: %+v, %v", m, ok)
		}

		connA, err := pgx.Connect(ctx, urlA)
		if err != nil {
			t.Fatal(err)
		}
		defer connA.Close(ctx)
		for i := range 10 {
			id := scanID(t, connA, "INSERT INTO orders (note) VALUES ('A native') RETURNING id")
			if id != first+int64(i) {
				t.Errorf("A's native id %d: %d, want %d", i, id, first+int64(i))
			}
			all.add(t, "A native", id)
		}
		for _, id := range insert(dbB, "B through seqshim, after", 20) {
			if id >= first && id <= last {
				t.Errorf("B drew %d, inside A's native range %d to %d", id, first, last)
			}
		}
		got, status = stay.insert("orders", 5)
		if status != "ok" {
			t.Fatalf("the process on A not switched back: %s (the store serves B still, and it is not fenced)", status)
		}
		all.add(t, "A, not switched back, after", got...)
		for _, id := range got {
			if id >= first && id <= last {
				t.Errorf("the process on A not switched back drew %d, inside A's native range", id)
			}
		}

		verifyJSON(t, ts, 0, "--from", urlA)
		verifyJSON(t, ts, 0, "--from", urlB)
		if again, _ := exportPlan(t, ts, append(args, "--dry-run")...); again["orders_id_seq"].Action != "skip" {
			t.Errorf("export of A run again: %s %s, want skip", again["orders_id_seq"].Action, again["orders_id_seq"].Reason)
		}
		// A native sequence moved back into the store's range is flagged.
		pgExec(t, connA, fmt.Sprintf("ALTER SEQUENCE orders_id_seq MAXVALUE %d RESTART WITH %d", last+1000, last+1))
		out := verifyJSON(t, ts, exitVerify, "--from", urlA)
		if len(out) != 1 || len(out[0].Findings) != 1 || !strings.HasPrefix(out[0].Findings[0], "overlap: ") {
			t.Errorf("verify of a native sequence past its range: %+v", out)
		}
	})
}

func abs(v int64) int64 { return max(v, -v) }

func fmtPtr(p *int64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatInt(*p, 10)
}

// TestVerifyNativeDefault: a column the store serves whose default draws
// from another native sequence, which can hand out the store's values, is
// flagged; a column without an index is read only with --scan; export
// refuses to take such a column over and changes nothing.
func TestVerifyNativeDefault(t *testing.T) {
	ts := &tester{t: t, store: "sqlite:" + t.TempDir() + "/seqs.db"}
	ts.ok("init")
	conn, pgURL, sch := pgSchema(t)
	pgExec(t, conn,
		"CREATE SEQUENCE "+sch+".other_seq",
		"CREATE TABLE "+sch+".t (id bigint DEFAULT nextval('"+sch+".other_seq'), note text)",
		"INSERT INTO "+sch+".t DEFAULT VALUES",
	)
	ts.ok("create", sch+".c", "--start", "1000", "--default", sch+".t.id")
	out := verifyJSON(t, ts, exitVerify, "--from", pgURL, "--schema", sch)
	if len(out) != 1 || len(out[0].Columns) != 1 {
		t.Fatalf("verify: %+v", out)
	}
	col := out[0].Columns[0]
	if col.Native != sch+".other_seq" || col.Store != "default" || col.MaxID != nil || !strings.HasPrefix(col.Read, "not read: no index") ||
		len(col.Findings) != 1 || !strings.HasPrefix(col.Findings[0], "native: the column's default draws from "+sch+".other_seq") {
		t.Errorf("verify of a column drawing from another native sequence: %+v", col)
	}
	out = verifyJSON(t, ts, exitVerify, "--from", pgURL, "--schema", sch, "--scan")
	if col := out[0].Columns[0]; col.Read != "scan" || col.MaxID == nil || *col.MaxID != 1 {
		t.Errorf("verify --scan: %+v", col)
	}
	r := ts.fails(exitFailed, "export", "--from", pgURL, "--schema", sch, "--sample", "0")
	if !strings.Contains(r.stdout+r.stderr, "has DEFAULT nextval") {
		t.Errorf("export of a column with another default: %q %q", r.stdout, r.stderr)
	}
	if c := ts.describe(sch + ".c"); c.MaxValue != 9223372036854775807 {
		t.Errorf("a refused export changed the store: MAXVALUE %d", c.MaxValue)
	}
	if n := scanID(t, conn, "SELECT count(*) FROM pg_sequences WHERE schemaname = $1", sch); n != 1 {
		t.Errorf("a refused export changed the database: %d sequences", n)
	}
}
