package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
)

// fuzzStore is the store FuzzRun runs seqctl on, emptied before each run.
const fuzzStore = "memory:seqctl-fuzz"

// fuzzCommands are the commands FuzzRun runs: those that need nothing but
// the store (import and fence read a live PostgreSQL, watch runs until
// interrupted).
var fuzzCommands = []string{"create", "alter", "drop", "list", "show", "setval", "next", "check", "policy", "version", "help", "nosuch"}

// FuzzRun runs seqctl in process on a memory store with a command of
// fuzzCommands (by the byte) and the arguments of the text (one a line;
// never --store, so that nothing but the memory store is reached), the
// clock advancing only by the command's own waits, and checks: no panic;
// the exit code is one of those documented; a failure is reported on
// stderr; output asked as JSON is JSON; and every counter left in the
// store has a valid spec, a position within its bounds and a canonical
// name (no flag value reaches the store unchecked). The seed corpus is in
// testdata/fuzz/FuzzRun.
func FuzzRun(f *testing.F) {
	for _, c := range []struct {
		cmd  byte
		args string
	}{
		{0, "orders_seq\n--start\n5\n--increment\n-2\n--minvalue\n-100\n--maxvalue\n100\n--cycle"},
		{0, `"Orders"` + "\n--as\nsmallint\n--default\nshop.orders.id:always\n--daily-limit\n1000\n--buffer\n30s\n--min-block\n10"},
		{0, "app.s\n--if-not-exists\n-o\njson"}, {0, "s\n--increment\n0"}, {0, "s\n--buffer\n-1s"}, {0, "s\n--as\nint4\n--maxvalue\n99999999999"},
		{0, "s\n--revalidate\n1ms"}, {0, "s\n--min-block\n100\n--max-block\n10"}, {0, "a.b.c"}, {0, "\xff"}, {0, ""},
		{1, "s\n--restart=7\n--rename-to\nt"}, {1, "s\n--no-defaults\n--default\nt.c"}, {2, "s\n--yes"}, {2, "s\n--if-exists"},
		{3, "-o\njson"}, {4, "s\n--sample\n1s\n-o\njson"}, {5, "s\n-5\n--is-called=false"}, {6, "s\n-n\n3\n-o\njson"},
		{7, "--min-runway\n30d\n--stale\n2w\n--sample\n1s"}, {7, "--min-runway\n106751.99116730063d"}, {8, "--table\nseqs\n--admin"},
		{9, ""}, {10, "create"}, {11, ""}, {3, "--help"}, {0, "s\n--timeout\n1ns"},
	} {
		f.Add(c.cmd, c.args)
	}
	st, err := memstore.Open(fuzzStore)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd byte, text string) {
		ctx := context.Background()
		name := fuzzCommands[int(cmd)%len(fuzzCommands)]
		var rest []string
		if text != "" {
			rest = strings.Split(text, "\n")
		}
		for i, a := range rest {
			if strings.Contains(strings.ToLower(a), "store") {
				return
			}
			// next -n N prints N values: a few are enough.
			if v, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), "n="); ok && strings.HasPrefix(a, "-") {
				rest[i] = "-n=" + smallN(v)
			} else if strings.TrimLeft(a, "-") == "n" && strings.HasPrefix(a, "-") && i+1 < len(rest) {
				rest[i+1] = smallN(rest[i+1])
			}
		}
		infos, err := st.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range infos {
			if err := st.Drop(ctx, info.Name); err != nil {
				t.Fatal(err)
			}
		}
		if name == "alter" || name == "drop" || name == "show" || name == "setval" || name == "next" {
			// Something to act on.
			if err := st.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
				t.Fatal(err)
			}
		}

		var out, errb bytes.Buffer
		a := newApp(&out, &errb)
		a.stdin = strings.NewReader("")
		a.getenv = func(string) string { return "" }
		now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		a.now = func() time.Time { return now }
		a.sleep = func(ctx context.Context, d time.Duration) error {
			now = now.Add(d)
			return ctx.Err()
		}
		err = a.run(ctx, append([]string{"--store", fuzzStore, name}, rest...))
		if c := code(err); c < exitOK || c > exitCheck {
			t.Fatalf("seqctl %s %q: exit code %d", name, rest, c)
		}
		if err != nil && !strings.Contains(errb.String(), "seqctl "+name+": "+err.Error()+"\n") && !strings.Contains(errb.String(), "seqctl: "+err.Error()+"\n") {
			t.Fatalf("seqctl %s %q: %v, yet stderr %q", name, rest, err, errb.String())
		}
		// Help (the help command, or usage) is for people, in any format.
		if err == nil && a.output == "json" && out.Len() > 0 && name != "help" && !strings.HasPrefix(out.String(), "usage:") && !json.Valid(out.Bytes()) {
			t.Fatalf("seqctl %s %q -o json printed %q", name, rest, out.String())
		}
		infos, err = st.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range infos {
			if got, err := sequence.ParseName(info.Name); err != nil || got != info.Name {
				t.Fatalf("seqctl %s %q left a counter named %q (%q, %v)", name, rest, info.Name, got, err)
			}
			if err := info.Spec.Validate(); err != nil {
				t.Fatalf("seqctl %s %q left %s with an invalid spec %+v: %v", name, rest, info.Name, info.Spec, err)
			}
			if _, err := info.Spec.SetVal(info.Name, info.Position.Last, info.Position.Called); err != nil {
				t.Fatalf("seqctl %s %q left %s at %+v: %v", name, rest, info.Name, info.Position, err)
			}
		}
	})
}

// smallN keeps -n's value as it is if it is at most 100 (or no number),
// else makes it 100.
func smallN(v string) string {
	if n, err := strconv.ParseInt(v, 0, 64); err == nil && n > 100 {
		return "100"
	}
	return v
}

// FuzzParseSpan checks that a span check reads is never negative and
// reads back from its Go form.
func FuzzParseSpan(f *testing.F) {
	for _, s := range []string{"90s", "36h", "30d", "2w", "1.5d", "-1d", "106751.99116730063d", "15250.284452471518w", "1e300w", "Infd", "NaNd", "d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseSpan(s)
		if err != nil {
			return
		}
		if d < 0 {
			t.Fatalf("parseSpan(%q) = %v", s, d)
		}
		if again, err := parseSpan(d.String()); err != nil || again != d {
			t.Fatalf("parseSpan(%q) = %v, which reads back as %v, %v", s, d, again, err)
		}
	})
}
