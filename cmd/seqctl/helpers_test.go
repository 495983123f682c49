package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

// result is what one seqctl invocation printed and its exit code.
type result struct {
	stdout, stderr string
	code           int
}

// tester runs seqctl in process against one store.
type tester struct {
	t     *testing.T
	store string // store URL

	// Optional replacements for the app's clock and sleep.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
	stdin string
	term  bool
}

// run runs seqctl with --store prepended and returns what it printed.
func (ts *tester) run(args ...string) result {
	ts.t.Helper()
	return ts.runRaw(append([]string{"--store", ts.store}, args...)...)
}

// runRaw runs seqctl with args as given.
func (ts *tester) runRaw(args ...string) result {
	ts.t.Helper()
	var out, errb bytes.Buffer
	a := newApp(&out, &errb)
	a.stdin = strings.NewReader(ts.stdin)
	a.getenv = func(string) string { return "" }
	a.terminal = ts.term
	if ts.now != nil {
		a.now = ts.now
	}
	if ts.sleep != nil {
		a.sleep = ts.sleep
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := a.run(ctx, args)
	return result{stdout: out.String(), stderr: errb.String(), code: code(err)}
}

// ok runs seqctl and fails the test unless it succeeded.
func (ts *tester) ok(args ...string) string {
	ts.t.Helper()
	r := ts.run(args...)
	if r.code != 0 {
		ts.t.Fatalf("seqctl %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// fails runs seqctl and fails the test unless it exited with want.
func (ts *tester) fails(want int, args ...string) result {
	ts.t.Helper()
	r := ts.run(args...)
	if r.code != want {
		ts.t.Fatalf("seqctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

// describe reads a counter through seqctl show -o json.
func (ts *tester) describe(name string) counterJSON {
	ts.t.Helper()
	var c counterJSON
	decode(ts.t, ts.ok("show", name, "--sample", "0", "-o", "json"), &c)
	return c
}

func decode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("output is not the JSON expected: %v\n%s", err, s)
	}
}

// open opens the tester's store directly, to check or drive it from outside
// seqctl.
func (ts *tester) open() sequence.Store {
	ts.t.Helper()
	st, err := openStoreURL(context.Background(), ts.store)
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { closeStore(st) })
	return st
}

// forEachStore runs f against a fresh SQLite store and a fresh table in
// dynalite, each prepared with seqctl init.
func forEachStore(t *testing.T, f func(t *testing.T, ts *tester)) {
	t.Run("sqlite", func(t *testing.T) {
		ts := &tester{t: t, store: "sqlite:" + filepath.Join(t.TempDir(), "seqs.db")}
		ts.ok("init")
		f(t, ts)
	})
	t.Run("dynamodb", func(t *testing.T) {
		ts := &tester{t: t, store: dynamoURL(t)}
		ts.ok("init")
		f(t, ts)
	})
}

// dynamoURL returns the store URL of a table unique to the test in dynalite
// (not created yet: seqctl init does that), deleted at the end of the test.
func dynamoURL(t *testing.T) string {
	t.Helper()
	d := testenv.DynamoTableToCreate(t)
	testenv.DynamoDBEnv(t) // dynalite accepts any credentials; keep the SDK off the real ones
	return d.URL("")
}

// uniqueName makes a name from the test's name and random bytes, of
// characters valid in DynamoDB tables and PostgreSQL identifiers.
func uniqueName(t *testing.T, prefix string, maxLen int) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return '_'
	}, t.Name())
	suffix := "_" + hex.EncodeToString(b[:])
	if len(prefix)+len(name)+len(suffix) > maxLen {
		name = name[:maxLen-len(prefix)-len(suffix)]
	}
	return prefix + name + suffix
}

// fakeClock is a clock that moves only when sleep is called; hook runs
// during each sleep, before the clock moves (traffic meanwhile).
type fakeClock struct {
	t    time.Time
	hook func()
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) now() time.Time { return c.t }

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	if c.hook != nil {
		c.hook()
	}
	c.t = c.t.Add(d)
	return ctx.Err()
}

// reserve takes n values of name from st, failing the test on error.
func reserve(t *testing.T, st sequence.Store, name string, n int64) {
	t.Helper()
	for n > 0 {
		b, err := st.Reserve(context.Background(), name, n)
		if err != nil {
			t.Fatalf("Reserve(%s, %d): %v", name, n, err)
		}
		n -= b.Count
	}
}

func lines(s string) []string {
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}

// seqshimDB opens the PostgreSQL database pgURL through the seqshim driver
// with the store storeURL, closed at the end of the test.
func seqshimDB(t *testing.T, pgURL, storeURL string) *sql.DB {
	t.Helper()
	sep := "?"
	if strings.Contains(pgURL, "?") {
		sep = "&"
	}
	db, err := sql.Open("seqshim", pgURL+sep+"seqshim.store="+url.QueryEscape(storeURL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
