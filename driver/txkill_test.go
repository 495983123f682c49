package driver_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

const envKillAt = "SEQSHIM_TEST_KILL_AT"

// TestCommitKill kills a process (SIGKILL) at each step of the commit
// protocol of a transaction that created a sequence, drew from it and from
// an existing one, and inserted the values: before the store is written,
// after the store and before the database commits, after both. Afterwards
// the database and the store are in the state the driver's doc says, and no
// value the dead process handed out is handed out again.
func TestCommitKill(t *testing.T) {
	if os.Getenv(envKillAt) != "" {
		t.Skip("child process")
	}
	pg := testenv.PG(t)
	steps := []struct {
		hook                   engine.Hook
		dbCommitted, storeHeld bool
	}{
		{engine.HookBeforeStore, false, false},
		{engine.HookStoreApplied, false, true}, // the window: the store is ahead
		{engine.HookCommitted, true, true},
	}
	for _, step := range steps {
		t.Run(fmt.Sprint("hook", int(step.hook)), func(t *testing.T) {
			ctx := context.Background()
			storeURL := "sqlite:" + filepath.Join(t.TempDir(), "seq.db")
			st, err := sqlstore.Open(ctx, storeURL)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			spec := sequence.DefaultSpec()
			if err := st.Create(ctx, "base_seq", spec, spec.Initial()); err != nil {
				t.Fatal(err)
			}
			table := "kill_" + randHex(6)
			native, err := sql.Open("pgx", pg)
			if err != nil {
				t.Fatal(err)
			}
			defer native.Close()
			if _, err := native.ExecContext(ctx, "CREATE TABLE "+table+" (id bigint PRIMARY KEY, seq text)"); err != nil {
				t.Fatal(err)
			}
			defer native.ExecContext(ctx, "DROP TABLE "+table)
			// The sequence the child's transaction creates, whose fenced
			// twin the database keeps when it commits.
			txSeq := "tx_" + randHex(4)
			defer native.ExecContext(ctx, "DROP SEQUENCE IF EXISTS "+txSeq)

			cmd := exec.Command(os.Args[0], "-test.run=^TestCommitKillChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), envKillAt+"="+strconv.Itoa(int(step.hook)),
				"CHILD_DSN="+withStore(t, pg, storeURL), "CHILD_TABLE="+table, "CHILD_SEQ="+txSeq)
			cmd.Stderr = os.Stderr
			out, _ := cmd.Output()
			drawn := map[string][]int64{}
			killed := false
			sc := bufio.NewScanner(strings.NewReader(string(out)))
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				switch {
				case len(f) == 3 && f[0] == "value":
					v, _ := strconv.ParseInt(f[2], 10, 64)
					drawn[f[1]] = append(drawn[f[1]], v)
				case len(f) == 2 && f[0] == "killed":
					killed = true
				}
			}
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !killed || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child was not killed at the hook: %s\n%s", cmd.ProcessState, out)
			}
			if len(drawn["base_seq"]) == 0 || len(drawn[txSeq]) == 0 {
				t.Fatalf("child drew nothing:\n%s", out)
			}

			var rows int
			if err := native.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if got := rows > 0; got != step.dbCommitted {
				t.Errorf("database committed: %v, want %v", got, step.dbCommitted)
			}
			_, err = st.Describe(ctx, txSeq)
			if got := err == nil; got != step.storeHeld {
				t.Errorf("store has %s: %v (%v), want %v", txSeq, got, err, step.storeHeld)
			}

			// A new process draws from both sequences: nothing the dead
			// one handed out comes again.
			db, err := sql.Open("seqshim", withStore(t, pg, storeURL))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for name, vals := range drawn {
				if name == txSeq && !step.storeHeld {
					continue // never existed: a new CREATE starts afresh, as in PostgreSQL
				}
				for range 20 {
					var v int64
					if err := db.QueryRowContext(ctx, "SELECT nextval($1)", name).Scan(&v); err != nil {
						t.Fatal(err)
					}
					for _, old := range vals {
						if v == old {
							t.Fatalf("%s: %d handed out again after the kill", name, v)
						}
					}
				}
			}
			// The transaction's sequence can be created anew when it did
			// not commit in the store (a retried migration succeeds).
			_, err = db.ExecContext(ctx, "CREATE SEQUENCE "+txSeq)
			if (err == nil) == step.storeHeld {
				t.Errorf("CREATE SEQUENCE %s afterwards: %v", txSeq, err)
			}
		})
	}
}

// TestCommitKillChild is the process TestCommitKill kills.
func TestCommitKillChild(t *testing.T) {
	at := os.Getenv(envKillAt)
	if at == "" {
		t.Skip("run by TestCommitKill")
	}
	hook, _ := strconv.Atoi(at)
	engine.SetTestHook(func(h engine.Hook) {
		if int(h) == hook {
			fmt.Println("killed", h)
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	})
	ctx := context.Background()
	db, err := sql.Open("seqshim", os.Getenv("CHILD_DSN"))
	if err != nil {
		t.Fatal(err)
	}
	table := os.Getenv("CHILD_TABLE")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	txSeq := os.Getenv("CHILD_SEQ")
	if _, err := tx.ExecContext(ctx, "CREATE SEQUENCE "+txSeq+" START 10"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		for _, name := range []string{"base_seq", txSeq} {
			var v int64
			if err := tx.QueryRowContext(ctx, "SELECT nextval($1)", name).Scan(&v); err != nil {
				t.Fatal(err)
			}
			fmt.Println("value", name, v)
			if _, err := tx.ExecContext(ctx, "INSERT INTO "+table+" VALUES ($1, $2)", v+int64(len(name))*1_000_000, name); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = tx.Commit()
	t.Fatalf("commit returned (%v): the hook did not kill the process", err)
}

func withStore(t *testing.T, dsn, store string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("seqshim.store", store)
	u.RawQuery = q.Encode()
	return u.String()
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
