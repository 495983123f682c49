package main

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/seqshim/seqshim/internal/fence"
	"github.com/seqshim/seqshim/sequence"
)

const fenceDoc = `
Fences the native sequences of a live PostgreSQL database off the store's
range, so that a writer still calling the native nextval after the migration
fails loudly instead of handing out values the store hands out too.

For each native sequence with a counter of the same name in the store (NAMEs
or --schema restrict it to some), fence runs, in one transaction:

  ALTER SEQUENCE s MAXVALUE <first value of the store's range - 1> NO CYCLE
  (MINVALUE <first value + 1> for a descending sequence)

The store's range starts at the counter's START (import sets it to the first
value it hands out), or at its next value if that is lower. Legacy writers
keep working through the margin left by import, then get PostgreSQL's own
error 2200H "nextval: reached maximum value of sequence" - visible at once
in their logs - and can never produce a value inside the store's range.
NO CYCLE keeps the native sequence from wrapping around to old values.

Why not move the native sequence far above the store's range instead? It
would keep forgotten writers silently working, on values no other writer
uses but that look like the store's and hide that the rollout is incomplete;
a limit below the store's range makes them fail where someone will notice,
leaves the native values where they are, and needs no room above.

--final is the last step, once every writer draws through seqshim: each
native sequence becomes its store counter's fenced twin, the state the
driver keeps for the sequences it creates itself. In one transaction:

  ALTER SEQUENCE s AS <type> INCREMENT BY … MINVALUE … MAXVALUE … START WITH …
    CACHE … NO CYCLE RESTART WITH <its end>;
  SELECT setval('s', <its end>, true)

with the store counter's options: the catalog (pg_sequences,
information_schema) shows them as PostgreSQL would, every native nextval
fails at once with 2200H, and the driver keeps the twin in step with the
sequence DDL it serves from then on (ALTER, RENAME, DROP, OWNER TO, GRANT).

A native sequence already inside the store's range is reported and nothing
is altered (exit code 1): values may have collided, investigate first.
Sequences without a counter in the store are left alone. --dry-run prints
the statements without running them. Needs ownership of the sequences (or
superuser) in PostgreSQL.`

// fenceItem is one line of the fence plan.
type fenceItem struct {
	Name       string `json:"name"`
	StoreFirst *int64 `json:"store_range_start"`
	NativeLast int64  `json:"native_last_value"`
	Bound      *int64 `json:"native_new_bound"`
	Statement  string `json:"statement,omitempty"`
	Action     string `json:"action"` // fence, fenced, skip, error
	Reason     string `json:"reason,omitempty"`
}

func (a *app) cmdFence(ctx context.Context, args []string) error {
	fs := a.flagSet("fence", "--from postgres://... [NAME...] [flags]", fenceDoc)
	from := fs.String("from", "", "`URL` of the live PostgreSQL database whose sequences to fence")
	schemas := fs.String("schema", "", "fence only the sequences of these `schemas` (comma-separated)")
	dryRun := fs.Bool("dry-run", false, "print the statements, run nothing")
	final := fs.Bool("final", false, "make each native sequence its store counter's fenced twin: the store's options, at its end")
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	ctx, cancel := a.bounded(ctx)
	defer cancel()
	conn, seqs, err := a.openNative(ctx, *from, args, *schemas)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)

	plan := make([]fenceItem, len(seqs))
	failures, todo := 0, 0
	for i, n := range seqs {
		plan[i] = planFence(ctx, st, n, *final)
		switch plan[i].Action {
		case "error":
			failures++
		case "fence":
			todo++
		}
	}
	if failures > 0 {
		a.printFence(plan)
		return fmt.Errorf("%d sequence(s) cannot be fenced; nothing altered", failures)
	}
	if !*dryRun && todo > 0 {
		tx, err := conn.Begin(ctx)
		if err != nil {
			return fmt.Errorf("fence: %w", err)
		}
		for _, it := range plan {
			if it.Action != "fence" {
				continue
			}
			if _, err := tx.Exec(ctx, it.Statement); err != nil {
				_ = tx.Rollback(context.WithoutCancel(ctx))
				return fmt.Errorf("%s: %w; nothing altered", it.Statement, err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("fence: commit: %w", err)
		}
		for i := range plan {
			if plan[i].Action == "fence" {
				plan[i].Action = "fenced"
			}
		}
	}
	if err := a.printFence(plan); err != nil {
		return err
	}
	if *dryRun && a.output == "table" {
		_, err = fmt.Fprintln(a.stdout, "dry run: nothing altered")
	}
	return err
}

// planFence decides the bound of one native sequence; final: make it the
// store counter's fenced twin instead.
func planFence(ctx context.Context, st sequence.Store, n nativeSeq, final bool) fenceItem {
	it := fenceItem{Name: n.Name, NativeLast: n.Pos.Last}
	info, err := st.Describe(ctx, n.Name)
	if errors.Is(err, sequence.ErrNotFound) {
		it.Action, it.Reason = "skip", "no counter in the store"
		return it
	}
	if err != nil {
		it.Action, it.Reason = "error", err.Error()
		return it
	}
	if info.Spec.Descending() != n.Spec.Descending() {
		it.Action, it.Reason = "error", "the store counter and the native sequence count in opposite directions"
		return it
	}
	r := rangeStart(info)
	it.StoreFirst = &r
	if isTwin(n, info.Spec) {
		it.Action, it.Reason = "skip", "already the store's fenced twin"
		return it
	}
	s := n.Spec
	desc := s.Descending()
	// The furthest value the native sequence has reached: its last value
	// (also when not called: then it is the value it hands out next).
	if beyond(s, n.Pos.Last, r) {
		it.Action = "error"
		it.Reason = fmt.Sprintf("the native sequence is at %d, inside the store's range (from %d): values may have collided, investigate", n.Pos.Last, r)
		return it
	}
	if final {
		return planTwin(n, info.Spec, it)
	}
	var bound int64
	if desc {
		if r == math.MaxInt64 {
			it.Action, it.Reason = "error", "no room above the store's range"
			return it
		}
		bound = r + 1
	} else {
		if r == math.MinInt64 {
			it.Action, it.Reason = "error", "no room below the store's range"
			return it
		}
		bound = r - 1
	}
	// Never loosen a limit that is tighter already.
	if desc {
		bound = max(bound, s.Min)
	} else {
		bound = min(bound, s.Max)
	}
	it.Bound = &bound
	switch {
	case !s.Cycle && bound == limitValue(s):
		it.Action, it.Reason = "skip", "already fenced"
		return it
	case !desc && (bound <= s.Min || bound < s.Start), desc && (bound >= s.Max || bound > s.Start):
		it.Action = "error"
		it.Reason = fmt.Sprintf("the bound %d would leave no valid range (MINVALUE %d, MAXVALUE %d, START %d)", bound, s.Min, s.Max, s.Start)
		return it
	}
	clause := "MAXVALUE"
	if desc {
		clause = "MINVALUE"
	}
	it.Statement = fmt.Sprintf("ALTER SEQUENCE %s %s %d NO CYCLE", n.ident(), clause, bound)
	it.Action = "fence"
	return it
}

func (a *app) printFence(plan []fenceItem) error {
	if a.output == "json" {
		return writeJSON(a.stdout, plan)
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "NAME\tNATIVE LAST\tSTORE RANGE FROM\tACTION")
	for _, it := range plan {
		first := "-"
		if it.StoreFirst != nil {
			first = fmt.Sprint(*it.StoreFirst)
		}
		action := it.Action
		switch {
		case it.Statement != "" && (it.Action == "fence" || it.Action == "fenced"):
			action += ": " + it.Statement
		case it.Reason != "":
			action += ": " + it.Reason
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", it.Name, it.NativeLast, first, action)
	}
	return tw.Flush()
}

// isTwin reports whether native sequence n is the fenced twin of a store
// counter of spec: its options, standing at its end (it can hand out
// nothing).
func isTwin(n nativeSeq, spec sequence.Spec) bool {
	return n.Pos.Called && n.Pos.Last == fence.End(n.Spec) && fence.Same(n.Spec, spec)
}

// planTwin plans seqctl fence --final of native sequence n, whose store
// counter has spec: the statements that give it spec's options and stand it
// at its end (package fence, as the driver's twins), unless it is so
// already.
func planTwin(n nativeSeq, spec sequence.Spec, it fenceItem) fenceItem {
	end := fence.End(spec)
	it.Bound = &end
	it.Statement = fence.Alter(n.ident(), spec)
	it.Action = "fence"
	return it
}
