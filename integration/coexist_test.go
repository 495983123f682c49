package integration_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCoexist builds and runs cmd/coexist: it must exit 0. The program is run
// as its own process because a program that registers a database/sql driver
// name twice panics before main, and a test linked with it would not start
// either.
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
	if err != nil {
		t.Fatalf("coexist: %v\n%s", err, out)
	}
	want := "through github.com/glebarez/go-sqlite; through seqshim: inserted widget with id 1000 from nextval('orders_seq')"
	if !strings.Contains(string(out), want) {
		t.Errorf("coexist printed\n%s\nwant a line containing %q", out, want)
	}
}
