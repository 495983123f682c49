package ids_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // "pgx"

	_ "github.com/seqshim/seqshim/driver" // "seqshim"
	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
	_ "github.com/seqshim/seqshim/sqlstore/sqlite" // sqlite: stores
)

// explicitBase: ids a program sets itself are at least this; ids drawn
// from a default are below it (no program draws that many).
const explicitBase = 1_000_000

// runTimeout bounds one run of a program, and the checks after it.
const runTimeout = 2 * time.Minute

// target is how a program reaches the database.
type target struct {
	name   string // the subtest's name
	driver string // database/sql driver name: pgx natively, else seqshim
	store  string // seqshim's store URL; "" natively
}

func (tg target) native() bool { return tg.store == "" }

// targets are the native run, then seqshim with a memory: store of the
// test's own and with a sqlite: store in a file of the test's own.
func targets(t *testing.T) []target {
	return []target{
		{name: "native", driver: "pgx"},
		{name: "memory", driver: "seqshim", store: "memory:ids-" + t.Name() + "-" + randomHex()},
		{name: "sqlite", driver: "seqshim", store: "sqlite:" + filepath.Join(t.TempDir(), "store.db")},
	}
}

// program is one application: it opens the database as driverName and dsn
// say, does its work, records what it saw in tr and closes what it opened
// (so that seqshim hands unused values back to the store). An error is a
// failure of the program itself (it could not open the database, say);
// errors the application sees as answers to its statements go into tr.
type program func(ctx context.Context, driverName, dsn string, tr *transcript) error

// compare runs prog natively and through seqshim with each store, each run
// in a fresh database, and checks each run (see checkNative, checkSeqshim).
func compare(t *testing.T, prog program) {
	testenv.PG(t)
	var native *result
	for _, tg := range targets(t) {
		ok := t.Run(tg.name, func(t *testing.T) {
			res := runProgram(t, tg, prog)
			if tg.native() {
				checkNative(t, res)
				native = res
				return
			}
			checkSeqshim(t, native, res)
		})
		if tg.native() && !ok {
			t.Fatal("the native run failed: nothing to compare with")
		}
	}
}

// result is what one run left: the transcript and the sequences it drew
// from, as the database (natively) or the store (seqshim) describes them.
type result struct {
	target
	dbURL string // the run's database, without seqshim
	tr    *transcript
	// seqs are the run's sequences by name: natively the database's (each
	// with the column it is the default of), through seqshim the store's.
	seqs map[string]seqState
	// columns are the columns whose default draws from a sequence in the
	// native run, as "table.column" (filled only there).
	columns []string
}

// runProgram runs prog against a fresh database as tg says, and describes
// the sequences afterwards.
func runProgram(t *testing.T, tg target, prog program) *result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	res := &result{target: tg, dbURL: freshDB(t), tr: newTranscript()}
	dsn := res.dbURL
	if !tg.native() {
		dsn = withParam(dsn, "seqshim.store", tg.store)
	}
	if err := prog(ctx, tg.driver, dsn, res.tr); err != nil {
		t.Fatalf("%s: %v\ntranscript so far:\n%s", tg.name, err, strings.Join(res.tr.lines, "\n"))
	}
	db := openNative(t, res.dbURL)
	if tg.native() {
		res.seqs, res.columns = nativeSequences(t, ctx, db)
	} else {
		res.seqs = storeSequences(t, ctx, tg.store, databaseID(t, ctx, db))
	}
	return res
}

// checkNative checks the harness against PostgreSQL: the application saw no
// error it did not expect, and every sequence stands where the program's
// own count of rows drawn from it puts it.
func checkNative(t *testing.T, res *result) {
	for _, u := range res.tr.unexpected {
		t.Errorf("unexpected: %s", u)
	}
	checkDrawn(t, res)
	if t.Failed() {
		t.Logf("native transcript:\n%s", strings.Join(res.tr.lines, "\n"))
	}
}

// checkDrawn: every sequence the program says it drew from stands at the
// rows it drew (start 1, increment 1: last value = rows, called once a row
// drew), and the ids it saw drawn are the values from 1 to that position.
func checkDrawn(t *testing.T, res *result) {
	for _, name := range sortedKeys(res.tr.drew) {
		n := res.tr.drew[name]
		st, ok := res.seqs[name]
		if !ok {
			t.Errorf("%s: sequence %s does not exist (the program drew %d rows from it)", res.name, name, n)
			continue
		}
		want := sequence.Position{Last: n, Called: n > 0}
		if n == 0 {
			want.Last = st.Start
		}
		if got := (sequence.Position{Last: st.Last, Called: st.Called}); got != want {
			t.Errorf("%s: sequence %s stands at last value %d (called %v), want %d (called %v): the program drew %d rows from it",
				res.name, name, got.Last, got.Called, want.Last, want.Called, n)
		}
		seen := slices.Clone(res.tr.ids[name][res.tr.from[name]:])
		slices.Sort(seen)
		seen = slices.Compact(seen)
		for _, v := range seen {
			if v < st.Start || v > st.Last || !st.Called {
				t.Errorf("%s: id %d of %s is not a value the sequence handed out (%d to %d)", res.name, v, name, st.Start, st.Last)
			}
		}
	}
}

// checkSeqshim compares a run through seqshim with the native run: the same
// transcript apart from drawn id values, the same sequences in the store as
// natively in the database (options, position, the column each is the
// default of), and in seqshim's database the same defaults and identities
// as natively, drawing from fenced twins.
func checkSeqshim(t *testing.T, native, res *result) {
	if native == nil {
		t.Fatal("no native run to compare with")
	}
	want, got := native.tr.normalized(), res.tr.normalized()
	if d := diffLines(want, got); d != "" {
		t.Errorf("transcript through seqshim (%s) differs from the native one, drawn ids replaced by their rank (- native, + seqshim):\n%s", res.store, d)
	} else if !slices.Equal(native.tr.lines, res.tr.lines) {
		t.Logf("transcripts equal apart from id values; the values themselves differ:\n%s", diffLines(native.tr.lines, res.tr.lines))
	}

	for _, name := range sortedKeys(native.seqs) {
		w := native.seqs[name]
		g, ok := res.seqs[name]
		if !ok {
			t.Errorf("store has no sequence %s (natively: %s)", name, w)
			continue
		}
		if g != w {
			t.Errorf("store sequence %s:\n got %s\nwant %s (as the database's own after the native run)", name, g, w)
		}
	}
	for _, name := range sortedKeys(res.seqs) {
		if _, ok := native.seqs[name]; !ok {
			t.Errorf("store has sequence %s (%s), which the native run did not create", name, res.seqs[name])
		}
	}
	checkDrawn(t, res)

	// The database: as natively, the same column defaults and identities
	// drawing from the same sequences, each a fenced twin of the store's
	// (its options, standing at its end, NO CYCLE), so that the catalog
	// reads as PostgreSQL's and a writer that bypasses seqshim fails.
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	db := openNative(t, res.dbURL)
	twins, columns := nativeSequences(t, ctx, db)
	if !slices.Equal(columns, native.columns) {
		t.Errorf("columns with a sequence default or identity in seqshim's database: %v; natively %v", columns, native.columns)
	}
	for _, name := range sortedKeys(native.seqs) {
		want := native.seqs[name]
		want.Last, want.Called, want.Cycle = want.Max, true, false
		if want.Inc < 0 {
			want.Last = want.Min
		}
		if got, ok := twins[name]; !ok {
			t.Errorf("seqshim's database has no sequence %s (natively: %s)", name, native.seqs[name])
		} else if got != want {
			t.Errorf("sequence %s in seqshim's database:\n got %s\nwant %s (the native one's options, fenced at its end)", name, got, want)
		}
	}
	for _, name := range sortedKeys(twins) {
		if _, ok := native.seqs[name]; !ok {
			t.Errorf("seqshim's database has sequence %s (%s), which the native run did not create", name, twins[name])
		}
	}
	if t.Failed() {
		t.Logf("transcript through seqshim:\n%s", strings.Join(res.tr.lines, "\n"))
	}
}

// seqState is a sequence as pg_sequences and the sequence itself show it,
// with the columns it is the default of (as sequence.ColumnDefault writes
// them, sorted).
type seqState struct {
	Type                        string
	Start, Min, Max, Inc, Cache int64
	Cycle                       bool
	Last                        int64
	Called                      bool
	Defaults                    string
}

func (s seqState) String() string {
	return fmt.Sprintf("AS %s START %d MINVALUE %d MAXVALUE %d INCREMENT %d CACHE %d cycle=%v; last_value %d is_called %v; default of [%s]",
		s.Type, s.Start, s.Min, s.Max, s.Inc, s.Cache, s.Cycle, s.Last, s.Called, s.Defaults)
}

// nativeSequences describes the database's sequences in schema public, and
// lists the columns whose default or identity draws from one.
func nativeSequences(t *testing.T, ctx context.Context, db *sql.DB) (map[string]seqState, []string) {
	t.Helper()
	seqs := map[string]seqState{}
	defaults := map[string][]string{}
	var columns []string
	rows, err := db.QueryContext(ctx, `SELECT c.table_name, c.column_name, c.is_identity, coalesce(c.identity_generation, ''),
			pg_get_serial_sequence(quote_ident(c.table_name), c.column_name), c.column_default
		FROM information_schema.columns c
		WHERE c.table_schema = 'public' AND (c.is_identity = 'YES' OR c.column_default LIKE 'nextval(%')
		ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var table, column, identity, generation string
		var seq, def sql.NullString
		if err := rows.Scan(&table, &column, &identity, &generation, &seq, &def); err != nil {
			t.Fatal(err)
		}
		if !seq.Valid {
			t.Fatalf("column %s.%s draws from a sequence it does not own (default %s): not supported by this harness", table, column, def.String)
		}
		kind := sequence.DefaultNextval
		switch {
		case identity == "YES" && generation == "ALWAYS":
			kind = sequence.IdentityAlways
		case identity == "YES":
			kind = sequence.IdentityByDefault
		}
		name := strings.TrimPrefix(seq.String, "public.")
		defaults[name] = append(defaults[name], sequence.ColumnDefault{Table: table, Column: column, Kind: kind}.String())
		columns = append(columns, table+"."+column)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = db.QueryContext(ctx, `SELECT sequencename, data_type::text, start_value, min_value, max_value, increment_by, cache_size, cycle
		FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var s seqState
		if err := rows.Scan(&name, &s.Type, &s.Start, &s.Min, &s.Max, &s.Inc, &s.Cache, &s.Cycle); err != nil {
			t.Fatal(err)
		}
		s.Defaults = strings.Join(defaults[name], ", ")
		seqs[name] = s
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for name, s := range seqs {
		if err := db.QueryRowContext(ctx, "SELECT last_value, is_called FROM "+quoteIdent(name)).Scan(&s.Last, &s.Called); err != nil {
			t.Fatal(err)
		}
		seqs[name] = s
	}
	return seqs, columns
}

// storeSequences describes every sequence in the store, through the store's
// own API (what seqctl show reads), as the database db (a
// sequence.DatabaseID) sees it: its view (OWNED BY, column defaults) of
// each. The run's database must be the one member of each sequence (the
// store is the run's own).
func storeSequences(t *testing.T, ctx context.Context, storeURL, db string) map[string]seqState {
	t.Helper()
	st, err := storeurl.Open(ctx, storeURL)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := st.(io.Closer); ok {
		defer c.Close()
	}
	infos, err := st.List(ctx)
	if err != nil {
		t.Fatalf("list the store's sequences: %v", err)
	}
	seqs := map[string]seqState{}
	for _, in := range infos {
		if len(in.Spec.Members) != 1 || in.Spec.Members[0].DB != db {
			t.Errorf("store sequence %s has the members %v; want the run's database %s alone", in.Name, in.Spec.Members, db)
		}
		view, _ := in.Spec.View(db)
		var defs []string
		for _, d := range view.Defaults {
			defs = append(defs, d.String())
		}
		sort.Strings(defs)
		sp := view
		seqs[in.Name] = seqState{Type: sp.Type.String(), Start: sp.Start, Min: sp.Min, Max: sp.Max, Inc: sp.Increment,
			Cache: sp.Cache, Cycle: sp.Cycle, Last: in.Position.Last, Called: in.Position.Called, Defaults: strings.Join(defs, ", ")}
	}
	return seqs
}

// databaseID is the identity seqshim gives the database db is connected
// to (sequence.DatabaseID): the store's sequences record it as a member.
func databaseID(t *testing.T, ctx context.Context, db *sql.DB) string {
	t.Helper()
	var system, oid, name string
	if err := db.QueryRowContext(ctx, `SELECT (SELECT system_identifier::text FROM pg_control_system()),
			(SELECT oid::text FROM pg_database WHERE datname = current_database()), current_database()`).Scan(&system, &oid, &name); err != nil {
		t.Fatal(err)
	}
	return sequence.DatabaseID(system, oid, name)
}

// transcript is what an application saw, line by line. Ids are written
// with id, which remembers the ones drawn from defaults so that they can be
// normalized.
type transcript struct {
	mu         sync.Mutex
	lines      []string
	unexpected []string           // errors the program did not expect
	drew       map[string]int64   // rows drawn from each sequence, as the program counts them
	ids        map[string][]int64 // drawn id values seen, by sequence
	from       map[string]int     // ids[seq][from[seq]:] are the ones seen since the sequence was last created
}

func newTranscript() *transcript {
	return &transcript{drew: map[string]int64{}, ids: map[string][]int64{}, from: map[string]int{}}
}

// restart records that seq was dropped and created again (a Down and Up
// migration): the rows drawn and the ids seen start again from nothing,
// for checkDrawn; normalized still ranks every id seen.
func (tr *transcript) restart(seq string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.drew[seq] = 0
	tr.from[seq] = len(tr.ids[seq])
}

func (tr *transcript) printf(format string, args ...any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.lines = append(tr.lines, fmt.Sprintf(format, args...))
}

// id writes v, an id of a column whose default draws from seq, as a token
// that normalized replaces by its rank among seq's drawn ids. An id at or
// above explicitBase was set by the program and stays as it is.
func (tr *transcript) id(seq string, v int64) string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if v > 0 && v < explicitBase {
		tr.ids[seq] = append(tr.ids[seq], v)
	}
	return "{" + seq + ":" + strconv.FormatInt(v, 10) + "}"
}

// draws records that n more rows drew their id from seq's default.
func (tr *transcript) draws(seq string, n int64) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.drew[seq] += n
}

// step records the outcome of a step the program expects to succeed, and
// reports whether it did.
func (tr *transcript) step(name string, err error) bool {
	if err == nil {
		tr.printf("%s: ok", name)
		return true
	}
	tr.printf("%s: %s", name, errText(err))
	tr.mu.Lock()
	tr.unexpected = append(tr.unexpected, name+": "+errText(err))
	tr.mu.Unlock()
	return false
}

// check records err only if it is not nil: for steps, such as scanning a
// row, whose success is not worth a line.
func (tr *transcript) check(name string, err error) {
	if err != nil {
		tr.step(name, err)
	}
}

// fails records the outcome of a step the program expects to fail with
// SQLSTATE code.
func (tr *transcript) fails(name string, err error, code string) {
	tr.printf("%s: %s", name, errText(err))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != code {
		tr.mu.Lock()
		tr.unexpected = append(tr.unexpected, fmt.Sprintf("%s: %s; want SQLSTATE %s", name, errText(err), code))
		tr.mu.Unlock()
	}
}

// errText is an error as a transcript shows it: SQLSTATE, message, detail
// and hint for the database's errors (and seqshim's, which are the same
// type), the text otherwise.
func errText(err error) string {
	if err == nil {
		return "ok"
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		s := "ERROR " + pe.Code + ": " + pe.Message
		if pe.Detail != "" {
			s += " DETAIL: " + pe.Detail
		}
		if pe.Hint != "" {
			s += " HINT: " + pe.Hint
		}
		return s
	}
	return "error: " + err.Error()
}

var idToken = regexp.MustCompile(`\{([A-Za-z0-9_.]+):(-?[0-9]+)\}`)

// normalized returns the lines with every drawn id replaced by its rank
// among the distinct drawn ids of its sequence (#1 is the smallest), and
// every explicit id written as seq=value.
func (tr *transcript) normalized() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	rank := map[string]map[int64]int{}
	for seq, vs := range tr.ids {
		vs = slices.Clone(vs)
		slices.Sort(vs)
		vs = slices.Compact(vs)
		rank[seq] = map[int64]int{}
		for i, v := range vs {
			rank[seq][v] = i + 1
		}
	}
	out := make([]string, len(tr.lines))
	for i, line := range tr.lines {
		out[i] = idToken.ReplaceAllStringFunc(line, func(tok string) string {
			m := idToken.FindStringSubmatch(tok)
			v, _ := strconv.ParseInt(m[2], 10, 64)
			if r, ok := rank[m[1]][v]; ok {
				return fmt.Sprintf("%s#%d", m[1], r)
			}
			return m[1] + "=" + m[2]
		})
	}
	return out
}

// diffLines shows how got differs from want, line by line: the lines only
// in want (-) and only in got (+), with two lines of context around each
// change; "" if equal.
func diffLines(want, got []string) string {
	if slices.Equal(want, got) {
		return ""
	}
	// lcs[i][j]: length of the longest common subsequence of want[i:] and got[j:].
	n, m := len(want), len(got)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if want[i] == got[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		mark byte
		line string
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && want[i] == got[j]:
			ops = append(ops, op{' ', want[i]})
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, op{'+', got[j]})
			j++
		default:
			ops = append(ops, op{'-', want[i]})
			i++
		}
	}
	const context = 2
	show := make([]bool, len(ops))
	for k, o := range ops {
		if o.mark != ' ' {
			for c := max(0, k-context); c <= min(len(ops)-1, k+context); c++ {
				show[c] = true
			}
		}
	}
	var b strings.Builder
	for k, o := range ops {
		if !show[k] {
			if k > 0 && show[k-1] {
				b.WriteString("  …\n")
			}
			continue
		}
		fmt.Fprintf(&b, "%c %s\n", o.mark, o.line)
	}
	fmt.Fprintf(&b, "(native %d lines, seqshim %d lines)", n, m)
	return b.String()
}

// freshDB creates an empty database for the test, dropped when it ends, and
// returns its URL.
func freshDB(t *testing.T) string {
	t.Helper()
	pg := testenv.PG(t)
	admin := openNative(t, pg)
	name := "ids_" + randomHex()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+quoteIdent(name)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoteIdent(name)+" WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// openNative opens rawurl over pgx, closed when the test ends.
func openNative(t *testing.T, rawurl string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", rawurl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// withParam returns the URL rawurl with the query parameter key set.
func withParam(rawurl, key, value string) string {
	u, err := url.Parse(rawurl)
	if err != nil {
		panic(err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
