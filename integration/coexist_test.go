package integration_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sqliteSplitLanded says whether importing the seqshim driver has stopped
// registering modernc.org/sqlite's "sqlite" (the SQLite store moving behind
// its own import). TEMPORARY: once it has landed, set this to true — or
// delete it and the block that reads it in TestCoexist.
const sqliteSplitLanded = false

// registerPanic is what the program prints today, before main runs.
const registerPanic = "sql: Register called twice for driver sqlite"

// TestCoexist builds and runs cmd/coexist: it must exit 0. The program is run
// as its own process because it cannot even start today, and a test linked
// with it would not either.
func TestCoexist(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the program: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "coexist")
	if out, err := exec.Command(gobin, "build", "-o", bin, "./cmd/coexist").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).CombinedOutput()

	if !sqliteSplitLanded {
		// TEMPORARY (delete with sqliteSplitLanded): skip on the known panic,
		// and only on it.
		if err != nil && strings.Contains(string(out), registerPanic) {
			t.Skipf("known bug: importing github.com/seqshim/seqshim/driver registers modernc.org/sqlite's \"sqlite\"; the program panics: %s", registerPanic)
		}
		if err == nil {
			t.Errorf("coexist exits 0 now: set sqliteSplitLanded = true in integration/coexist_test.go")
		}
	}

	if err != nil {
		t.Fatalf("coexist: %v\n%s", err, out)
	}
	want := "through github.com/glebarez/go-sqlite; through seqshim: inserted widget with id 1000 from nextval('orders_seq')"
	if !strings.Contains(string(out), want) {
		t.Errorf("coexist printed\n%s\nwant a line containing %q", out, want)
	}
}
