package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// recordingReserver records the blocks a running process's cache receives.
type recordingReserver struct {
	sequence.Reserver
	mu     sync.Mutex
	blocks []sequence.Block
}

func (r *recordingReserver) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	b, err := r.Reserver.Reserve(ctx, name, n)
	if err == nil {
		r.mu.Lock()
		r.blocks = append(r.blocks, b)
		r.mu.Unlock()
	}
	return b, err
}

func (r *recordingReserver) since(i int) []sequence.Block {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sequence.Block(nil), r.blocks[min(i, len(r.blocks)):]...)
}

// TestCachePolicyReachesRunningProcess is the acceptance test of the cache
// policy: a process keeps drawing from a counter through its own cache on
// its own store client; 'seqctl alter --min-block' changes the policy in the
// store, and the process's next reservations have the new size, without a
// restart; 'seqctl alter --min-block 0' gives it its own setting back. On
// SQLite and on dynalite.
func TestCachePolicyReachesRunningProcess(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		ctx := t.Context()
		ts.ok("create", "s")
		rec := &recordingReserver{Reserver: ts.open()}
		// The process's own setting: blocks of exactly 10 values.
		cache := seqcache.New(rec, func(o *seqcache.Options) { o.MinBlock, o.MaxBlock = 10, 10 })
		defer cache.Close()
		h := cache.Handle("s")
		seen := map[int64]bool{}
		draw := func(n int) {
			t.Helper()
			for range n {
				v, err := h.Next(ctx)
				if err != nil {
					t.Fatalf("Next: %v", err)
				}
				if seen[v] {
					t.Fatalf("value %d handed out twice", v)
				}
				seen[v] = true
			}
		}
		// drawUntil draws until the process received a block carrying p and
		// one more after it (at most limit values), and returns the blocks
		// reserved after the one that carried p.
		drawUntil := func(from int, p sequence.Policy, limit int) []sequence.Block {
			t.Helper()
			for drawn := 0; drawn < limit; drawn += 10 {
				blocks := rec.since(from)
				for i, b := range blocks {
					if b.Policy == p && i+1 < len(blocks) {
						return blocks[i+1:]
					}
				}
				draw(10)
			}
			t.Fatalf("no block after the policy %v reached the process within %d values; blocks %+v", p, limit, rec.since(from))
			return nil
		}

		draw(100)
		for _, b := range rec.since(0) {
			if b.Count != 10 || !b.Policy.IsZero() {
				t.Fatalf("block %+v before any policy, want 10 values (the process's MinBlock)", b)
			}
		}

		mark := len(rec.since(0))
		out := ts.ok("alter", "s", "--min-block", "500", "--revalidate", "5s")
		if !strings.Contains(out, "; cache policy min-block=500 revalidate=5s\n") {
			t.Errorf("alter output %q: want the policy", out)
		}
		want := sequence.Policy{MinBlock: 500, Revalidate: 5 * time.Second}
		for _, b := range drawUntil(mark, want, 5000) {
			if b.Count != 500 {
				t.Errorf("block %+v reserved under the policy, want 500 values", b)
			}
		}
		if p := h.Policy(); p != want {
			t.Errorf("the process's policy %+v, want %+v", p, want)
		}
		if out := ts.ok("show", "s", "--sample", "0"); !strings.Contains(out, "cache policy:      min-block=500 revalidate=5s (each process's defaults for the rest)\n") {
			t.Errorf("show: no cache policy line:\n%s", out)
		}
		var list []counterJSON
		decode(t, ts.ok("list", "-o", "json"), &list)
		if len(list) != 1 || list[0].CachePolicy == nil || *list[0].CachePolicy != (cachePolicyJSON{MinBlock: 500, RevalidateMS: 5000}) {
			t.Errorf("list -o json: %+v, want cache_policy {min_block 500, revalidate_ms 5000}", list)
		}

		// Back to the process's own setting.
		mark = len(rec.since(0))
		ts.ok("alter", "s", "--min-block", "0")
		want = sequence.Policy{Revalidate: 5 * time.Second}
		for _, b := range drawUntil(mark, want, 5000) {
			if b.Count != 10 {
				t.Errorf("block %+v after --min-block 0, want 10 values (the process's MinBlock)", b)
			}
		}
	})
}

// TestCachePolicyFlags: create takes the policy too, show and -o json print
// it, 0 resets a setting, and what is invalid is refused naming the fix.
func TestCachePolicyFlags(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		steps := []struct {
			args   []string
			code   int
			stdout string
			stderr string
		}{
			{[]string{"create", "s", "--buffer", "30s", "--max-block", "100000"}, 0, "; cache policy buffer=30s max-block=100000\n", ""},
			{[]string{"show", "s", "--sample", "0"}, 0, "cache policy:      buffer=30s max-block=100000 (each process's defaults for the rest)\n", ""},
			{[]string{"list"}, 0, "buffer=30s max-block=100000", ""},
			{[]string{"alter", "s", "--min-block", "1000"}, 0, "; cache policy buffer=30s min-block=1000 max-block=100000\n", ""},
			{[]string{"alter", "s", "--min-block", "200000"}, exitUsage, "", "min block (200000) must not be greater than max block (100000)"},
			{[]string{"alter", "s", "--buffer", "-1s"}, exitUsage, "", "buffer (-1s) must be between 0 and 24h0m0s"},
			{[]string{"alter", "s", "--revalidate", "10ms"}, exitUsage, "", "revalidate (10ms) must be at least 100ms"},
			{[]string{"alter", "s", "--min-block", "5", "--max-block", "4"}, exitUsage, "", "min block (5) must not be greater than max block (4)"},
			{[]string{"alter", "s", "--buffer", "x"}, exitUsage, "", "invalid value"},
			{[]string{"alter", "s", "--buffer", "0", "--min-block", "0", "--max-block", "0"}, 0, "; cache policy: process defaults\n", ""},
			{[]string{"show", "s", "--sample", "0"}, 0, "cache policy:      none (each process's defaults)\n", ""},
		}
		for _, st := range steps {
			r := ts.run(st.args...)
			if r.code != st.code || !strings.Contains(r.stdout, st.stdout) || !strings.Contains(r.stderr, st.stderr) {
				t.Fatalf("seqctl %s: exit %d, want %d\nstdout (want %q):\n%s\nstderr (want %q):\n%s",
					strings.Join(st.args, " "), r.code, st.code, st.stdout, r.stdout, st.stderr, r.stderr)
			}
		}
		if c := ts.describe("s"); c.CachePolicy != nil {
			t.Errorf("show -o json after the reset: cache_policy %+v, want null", c.CachePolicy)
		}
	})
}
