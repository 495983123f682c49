package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
)

func TestMainHelp(t *testing.T) {
	ts := &tester{t: t}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		r := ts.runRaw(args...)
		if strings.Count(r.stdout, "usage: ") != 1 {
			t.Errorf("seqctl %v does not print the usage once:\n%s", args, r.stdout)
		}
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("seqctl %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		for _, c := range commands {
			if !strings.Contains(r.stdout, "\n  "+c.name+" ") {
				t.Errorf("seqctl %v does not list command %s", args, c.name)
			}
		}
		for _, want := range []string{"-store URL", "-o format", "SEQSHIM_STORE", "sqlite:PATH", "dynamodb://", "postgres://", "memory:"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("seqctl %v does not mention %q", args, want)
			}
		}
		for _, f := range storeurl.Forms() {
			if !strings.Contains(r.stdout, "\n  "+f.Syntax+" ") && !strings.Contains(r.stdout, "\n  "+f.Syntax+"\n") {
				t.Errorf("seqctl %v does not list the store URL form %s", args, f.Syntax)
			}
		}
		for c := exitOK; c <= exitCheck; c++ {
			if !strings.Contains(r.stdout, fmt.Sprintf("\n  %d  ", c)) {
				t.Errorf("seqctl %v does not document exit code %d", args, c)
			}
		}
	}
}

// TestCommandHelp checks that every command's help exists and documents
// every flag the command accepts.
func TestCommandHelp(t *testing.T) {
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			for _, args := range [][]string{{c.name, "--help"}, {"help", c.name}} {
				var out, errb strings.Builder
				a := newApp(&out, &errb)
				if err := a.run(t.Context(), args); err != nil || errb.Len() > 0 {
					t.Fatalf("seqctl %v: %v, stderr %q", args, err, errb.String())
				}
				help := out.String()
				if !strings.HasPrefix(help, "usage: seqctl "+c.name+" ") || strings.Count(help, "usage: ") != 1 {
					t.Errorf("help does not start with the usage line:\n%s", help)
				}
				// A description of the command between the usage and the flags.
				usage, rest, _ := strings.Cut(help, "\n\n")
				desc, _, _ := strings.Cut(rest, "\nflags:\n")
				if len(desc) < 100 {
					t.Errorf("help of %s has too short a description (%q after %q)", c.name, desc, usage)
				}
				n := 0
				a.fs.VisitAll(func(f *flag.Flag) {
					n++
					if len(f.Usage) < 10 {
						t.Errorf("flag -%s has no real description: %q", f.Name, f.Usage)
					}
					if !strings.Contains(help, "\n  -"+f.Name+" ") && !strings.Contains(help, "\n  -"+f.Name+"\n") {
						t.Errorf("help does not document flag -%s", f.Name)
					}
				})
				if n < 2 {
					t.Errorf("only %d flags registered: global flags missing", n)
				}
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	ts := &tester{t: t, store: "memory:usage"}
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{nil, "no command given"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"--bogus"}, "flag provided but not defined"},
		{[]string{"list", "--bogus"}, "run 'seqctl list --help'"},
		{[]string{"list", "-o", "yaml"}, "want table or json"},
		{[]string{"show"}, "want one counter name"},
		{[]string{"show", `"unterminated`}, "invalid name syntax"},
		{[]string{"list"}, "no store: pass --store URL or set SEQSHIM_STORE (memory:, sqlite:PATH"},
		{[]string{"--store", "mysql://x", "list"}, `unknown scheme "mysql"`},
		{[]string{"--store", "dynamodb://x", "list"}, "dynamodb"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := ts.runRaw(tt.args...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %q", r.code, exitUsage, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("a usage error printed on stdout:\n%s", r.stdout)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr %q does not contain %q", r.stderr, tt.want)
			}
		})
	}
}

func TestCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{errors.New("boom"), exitFailed},
		{usagef("bad"), exitUsage},
		{fmt.Errorf("x: %w", sequence.NotFoundError("s")), exitNotFound},
		{sequence.ExistsError("s"), exitExists},
		{fmt.Errorf("x: %w", sequence.LimitError("s", sequence.DefaultSpec())), exitLimit},
		{&sequence.Error{Kind: sequence.ErrInvalid}, exitUsage},
		{fmt.Errorf("x: %w", errDeclined), exitFailed},
		{&checkFailed{failed: 1, total: 2}, exitCheck},
		{fmt.Errorf("x: %w", sequence.DailyLimitError("s", 10, 0)), exitLimit},
	}
	for _, tt := range tests {
		if got := code(tt.err); got != tt.want {
			t.Errorf("code(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// TestFlagPlacement checks that global flags work before and after the
// command and its arguments, and that negative numbers are arguments.
func TestFlagPlacement(t *testing.T) {
	ts := &tester{t: t, store: "memory:placement"}
	ts.ok("create", "down", "--increment", "-1")
	for _, args := range [][]string{
		{"-o", "json", "show", "down", "--sample", "0"},
		{"show", "down", "-o", "json", "--sample=0"},
		{"show", "--sample", "0", "down", "-o", "json"},
	} {
		var c counterJSON
		decode(t, ts.ok(args...), &c)
		if c.Name != "down" || c.IncrementBy != -1 {
			t.Errorf("%v: got %+v", args, c)
		}
	}
	ts.ok("setval", "down", "-5")
	if c := ts.describe("down"); c.LastValue != -5 {
		t.Errorf("setval down -5: last value %d", c.LastValue)
	}
	ts.ok("setval", "--", "down", "-7")
	if c := ts.describe("down"); c.LastValue != -7 {
		t.Errorf("setval -- down -7: last value %d", c.LastValue)
	}
}

func TestEnvStore(t *testing.T) {
	var out, errb strings.Builder
	a := newApp(&out, &errb)
	a.getenv = func(k string) string {
		if k == envStore {
			return "memory:envstore"
		}
		return ""
	}
	if err := a.run(t.Context(), []string{"create", "from_env"}); err != nil {
		t.Fatalf("create with %s set: %v (%s)", envStore, err, errb.String())
	}
	ts := &tester{t: t, store: "memory:envstore"}
	if c := ts.describe("from_env"); c.Name != "from_env" {
		t.Errorf("counter not created in the store of %s: %+v", envStore, c)
	}
}
