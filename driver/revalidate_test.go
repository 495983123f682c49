package driver_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
	_ "modernc.org/sqlite"
)

const (
	envRevalidateChild = "SEQSHIM_TEST_REVALIDATE_CHILD"
	// revalidateBound is seqshim.revalidate in the test: short, so that the
	// test is quick.
	revalidateBound = 200 * time.Millisecond
	// revalidateSlack is added to the bound before A's values are held to
	// it: the bound is revalidate plus one store read, and a loaded machine
	// (2 cores, other tests running) delays goroutines and dynalite.
	revalidateSlack = time.Second
	// childDeadline bounds the child's drawing loop.
	childDeadline = 10 * time.Second
)

// TestRevalidateDropCreateDynamo: process A (a child running
// TestRevalidateChild) draws from a cached block of s on dynalite, one
// value every 5 ms — blocks of 10,000 values, so that A does not refill
// during the test (a refill would bring a block of the new sequence, and
// A would drop the old ones without a check); process B (this test) drops s, creates it again and
// draws 5,000 values of the new sequence, which start at 1 like the old
// one's. A must notice within seqshim.revalidate: from its first value of
// the new sequence (or 42P01) on, it never serves an old value, and after
// the bound (plus slack) none of its values is one of B's. A's staleness —
// from B's DROP to A's first answer of the new state — is logged.
func TestRevalidateDropCreateDynamo(t *testing.T) {
	if os.Getenv(envRevalidateChild) != "" {
		t.Skip("child process")
	}
	d := testenv.NewDynamoTable(t)
	testenv.DynamoDBEnv(t)
	ctx := context.Background()
	st := d.Store()
	spec := sequence.DefaultSpec()
	if err := st.Create(ctx, sequence.FormatName(sequence.DefaultSchema, "s"), spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dsn := func(app string) string {
		return "file:" + filepath.Join(dir, app+".db") + "?seqshim.driver=sqlite&seqshim.min_block=10000&seqshim.revalidate=" +
			revalidateBound.String() + "&seqshim.store=" + url.QueryEscape(d.URL(""))
	}

	// Process A.
	cmd := exec.Command(os.Args[0], "-test.run=^TestRevalidateChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envRevalidateChild+"=1", "CHILD_DSN="+dsn("a"))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 4096)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var out []string
	for l := range lines {
		out = append(out, l)
		if l == "ready" {
			break
		}
	}
	if len(out) == 0 || out[len(out)-1] != "ready" {
		t.Fatalf("process A ended before it was ready: %q", out)
	}

	// Process B: DROP, CREATE, draw.
	db, err := sql.Open("seqshim", dsn("b"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil { // the connection and the store check, before the clock starts
		t.Fatal(err)
	}
	dropStart := time.Now()
	if _, err := db.ExecContext(ctx, "DROP SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	dropAt := time.Now() // the store applied the DROP between dropStart and now
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	createdAt := time.Now()
	fromB := map[int64]bool{}
	for range 5000 {
		var v int64
		if err := db.QueryRowContext(ctx, "SELECT nextval('s')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		fromB[v] = true
	}

	for l := range lines {
		out = append(out, l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("process A: %v", err)
	}

	// A's record: "NANOS value V" or "NANOS error SQLSTATE", one per draw.
	type draw struct {
		at    time.Time
		value int64
		code  string
	}
	var draws []draw
	for _, l := range out {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			t.Fatalf("bad line %q", l)
		}
		dr := draw{at: time.Unix(0, ns)}
		if f[1] == "value" {
			if dr.value, err = strconv.ParseInt(f[2], 10, 64); err != nil {
				t.Fatalf("bad line %q", l)
			}
		} else {
			dr.code = f[2]
		}
		draws = append(draws, dr)
	}

	// Old values are consecutive (A alone reserved from the old sequence);
	// the first answer that does not follow them is the new state's.
	var (
		switched  = -1
		prev      int64
		staleOnes int // old values A served after the DROP
		dups      int // values A served that B served, where it must not
	)
	for i, dr := range draws {
		if dr.code != "" && dr.code != "42P01" {
			t.Fatalf("process A: SQLSTATE %s at %v", dr.code, dr.at.Sub(dropAt))
		}
		if switched < 0 {
			if dr.code != "" || (i > 0 && dr.value != prev+1) {
				switched = i
			} else if dr.at.After(dropStart) {
				staleOnes++
			}
		}
		afterSwitch := switched >= 0
		pastBound := dr.at.After(createdAt.Add(revalidateBound + revalidateSlack))
		if dr.code == "" && fromB[dr.value] && (afterSwitch || pastBound) {
			if dups++; dups == 1 {
				t.Errorf("process A served %d, also served by B, %v after the DROP (after it saw the new sequence: %v; past the bound: %v)",
					dr.value, dr.at.Sub(dropAt), afterSwitch, pastBound)
			}
		}
		prev = dr.value
	}
	if dups > 1 {
		t.Errorf("... %d values served by both in all", dups)
	}
	if switched < 0 {
		t.Fatalf("process A never saw the DROP and CREATE in %d draws (last %v after the DROP)", len(draws), draws[len(draws)-1].at.Sub(dropAt))
	}
	got := draws[switched]
	what := fmt.Sprintf("value %d", got.value)
	if got.code != "" {
		what = "SQLSTATE " + got.code
	}
	t.Logf("staleness: %v from B's DROP (which took %v) to A's first answer of the new state (%s), with seqshim.revalidate=%v; A served %d old values meanwhile, %d draws in all",
		got.at.Sub(dropAt).Round(time.Millisecond), dropAt.Sub(dropStart).Round(time.Millisecond), what, revalidateBound, staleOnes, len(draws))
}

// TestRevalidateChild is process A of TestRevalidateDropCreateDynamo: it
// draws a first value, says ready, then draws one value every 5 ms, until
// 100 draws after the first that does not follow the one before, or
// childDeadline.
func TestRevalidateChild(t *testing.T) {
	if os.Getenv(envRevalidateChild) == "" {
		t.Skip("run by TestRevalidateDropCreateDynamo")
	}
	ctx := context.Background()
	db, err := sql.Open("seqshim", os.Getenv("CHILD_DSN"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	next := func() (int64, string) {
		var v int64
		err := db.QueryRowContext(ctx, "SELECT nextval('s')").Scan(&v)
		var pe *pgconn.PgError
		switch {
		case err == nil:
			return v, ""
		case errors.As(err, &pe):
			return 0, pe.Code
		}
		t.Fatal(err)
		return 0, ""
	}
	prev, code := next()
	if code != "" {
		t.Fatalf("first draw: SQLSTATE %s", code)
	}
	fmt.Printf("%d value %d\n", time.Now().UnixNano(), prev)
	fmt.Println("ready")
	left := -1 // draws left after the switch
	for end := time.Now().Add(childDeadline); left != 0 && time.Now().Before(end); {
		time.Sleep(5 * time.Millisecond)
		v, code := next()
		now := time.Now().UnixNano()
		if code != "" {
			fmt.Printf("%d error %s\n", now, code)
		} else {
			fmt.Printf("%d value %d\n", now, v)
		}
		switch {
		case left > 0:
			left--
		case code != "" || v != prev+1:
			left = 100
		}
		prev = v
	}
}
