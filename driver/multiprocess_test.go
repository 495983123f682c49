package driver_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
	_ "modernc.org/sqlite"
)

const envChild = "SEQSHIM_TEST_MULTIPROCESS_CHILD"

// TestMultiProcessSQLiteStore runs 4 processes that share one SQLite store
// file, each drawing 50,000 values through the seqshim driver: no value may
// be handed out twice.
func TestMultiProcessSQLiteStore(t *testing.T) {
	if os.Getenv(envChild) != "" {
		t.Skip("child process")
	}
	const procs, each = 4, 50_000
	dir := t.TempDir()
	storeURL := "sqlite:" + filepath.Join(dir, "sequences.db")
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, storeURL)
	if err != nil {
		t.Fatal(err)
	}
	spec := sequence.DefaultSpec()
	if err := st.Create(ctx, "s", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	st.Close()

	cmds := make([]*exec.Cmd, procs)
	outs := make([]string, procs)
	for i := range cmds {
		outs[i] = filepath.Join(dir, fmt.Sprintf("values-%d.txt", i))
		cmd := exec.Command(os.Args[0], "-test.run=^TestMultiProcessChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), envChild+"=1",
			"CHILD_STORE="+storeURL, "CHILD_DB="+filepath.Join(dir, fmt.Sprintf("app-%d.db", i)),
			"CHILD_OUT="+outs[i], "CHILD_COUNT="+strconv.Itoa(each))
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

	seen := make(map[int64]int, procs*each)
	for i, out := range outs {
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		n := 0
		for sc.Scan() {
			v, err := strconv.ParseInt(sc.Text(), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if p, dup := seen[v]; dup {
				t.Fatalf("value %d handed out to process %d and process %d", v, p, i)
			}
			seen[v] = i
			n++
		}
		f.Close()
		if n != each {
			t.Fatalf("process %d recorded %d values, want %d", i, n, each)
		}
	}
}

// TestMultiProcessChild is one process of TestMultiProcessSQLiteStore.
func TestMultiProcessChild(t *testing.T) {
	if os.Getenv(envChild) == "" {
		t.Skip("run by TestMultiProcessSQLiteStore")
	}
	n, _ := strconv.Atoi(os.Getenv("CHILD_COUNT"))
	db, err := sql.Open("seqshim", "file:"+os.Getenv("CHILD_DB")+"?seqshim.driver=sqlite&seqshim.store="+os.Getenv("CHILD_STORE"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, err := os.Create(os.Getenv("CHILD_OUT"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	ctx := context.Background()
	var prev int64
	for range n {
		var v int64
		if err := db.QueryRowContext(ctx, "SELECT nextval('s')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v <= prev {
			t.Fatalf("value %d after %d: not increasing within the process", v, prev)
		}
		prev = v
		fmt.Fprintln(w, v)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
