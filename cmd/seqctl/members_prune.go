package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

const pruneDoc = `
Detaches the stale members of counters: the databases that declared a
counter and no longer exist (dropped, or renamed), as the PostgreSQL clusters
named by --check-db say (a URL of any database of the cluster, one per
cluster; at least one). Members of clusters not given are never touched, nor
is a counter without members (every database's), nor a member whose
database was renamed (its OID exists under another name): that database no
longer sees the counter under its new name, but its data drew from it, so
its membership is for the operator to decide ('seqctl members detach'). Each detach is the store's
own, atomic against databases attaching or detaching at the same time, as
DROP SEQUENCE in that database would have done it.

Every counter of the store is looked at, or only the NAMEs given. Detaching
the last member of a counter drops the counter, for good: a counter whose
members are all stale is pruned only with --drop-last. Without it such a
counter is left as it is and listed ("skip"), the others are pruned, and the
exit code is 1.

--dry-run prints what prune would do ("detach", "drop") and changes nothing.
The output lists each member detached ("detached", or "dropped" with the
counter), then a summary; -o json prints the list as an array.

examples:
  seqctl members prune --check-db postgres://ops@pg-a/postgres --dry-run
  seqctl members prune --check-db postgres://ops@pg-a/postgres --check-db postgres://ops@pg-b/postgres
  seqctl members prune --check-db postgres://ops@pg-a/postgres orders_seq --drop-last`

// pruneItem is one stale member in prune's output.
type pruneItem struct {
	Name string `json:"name"` // the counter
	dbJSON
	// Action is what prune does (--dry-run: detach, drop) or did
	// (detached, dropped: the counter went with it); skip for a member
	// of a counter whose members are all stale, without --drop-last;
	// gone when the counter was dropped meanwhile; error when the store
	// refused.
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`

	member string // sequence.Member.DB
}

// pruneOpts are prune's flags.
type pruneOpts struct {
	checkDB  checkDBFlag
	dryRun   bool
	dropLast bool
	names    []string // canonical; none: every counter
}

func (a *app) cmdMembersPrune(ctx context.Context, args []string) error {
	fs := a.flagSet("members prune", "--check-db postgres://... [NAME...] [flags]", pruneDoc)
	var o pruneOpts
	registerCheckDB(fs, &o.checkDB)
	fs.BoolVar(&o.dryRun, "dry-run", false, "print what would be detached and dropped, change nothing")
	fs.BoolVar(&o.dropLast, "drop-last", false, "also prune a counter whose members are all stale, which drops the counter with its last member")
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	for _, s := range args {
		n, err := nameArg(s)
		if err != nil {
			return err
		}
		o.names = append(o.names, n)
	}
	ctx, cancel := a.bounded(ctx)
	defer cancel()
	return a.prune(ctx, o)
}

func (a *app) prune(ctx context.Context, o pruneOpts) error {
	if len(o.checkDB) == 0 {
		return usagef("no cluster to check: pass --check-db postgres://… for each cluster whose stale members to prune")
	}
	if _, err := a.storeURLOrEnv(); err != nil {
		return err
	}
	cl, err := readClusters(ctx, o.checkDB)
	if err != nil {
		return err
	}
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	infos, err := readCounters(ctx, st, o.names)
	if err != nil {
		return a.storeErr(err, strings.Join(o.names, " "))
	}
	plan, left := planPrune(infos, cl, o.dropLast)
	if !o.dryRun {
		for i := range plan {
			a.detachStale(ctx, st, &plan[i])
		}
	}
	if err := a.printPrune(plan, len(infos), left, cl, o.dryRun); err != nil {
		return err
	}
	return pruneResult(plan)
}

// pruneCounts are the members prune leaves alone.
type pruneCounts struct {
	unchecked int // of clusters not checked
	renamed   int // of databases renamed since
}

// planPrune lists the stale members of infos and what to do with each, and
// counts the members it cannot judge.
func planPrune(infos []sequence.Info, cl clusters, dropLast bool) (plan []pruneItem, n pruneCounts) {
	for _, info := range infos {
		var gone []string
		for _, m := range info.Spec.Members {
			switch st, _ := cl.state(m.DB); st {
			case stale:
				gone = append(gone, m.DB)
			case unknown:
				n.unchecked++
			case renamed:
				n.renamed++
			}
		}
		allGone := len(gone) > 0 && len(gone) == len(info.Spec.Members)
		for i, db := range gone {
			it := pruneItem{Name: info.Name, dbJSON: toDBJSON(db), member: db, Action: "detach"}
			switch {
			case allGone && !dropLast:
				it.Action, it.Reason = "skip", "every database of the counter is gone: detaching the last drops the counter (--drop-last)"
			case allGone && i == len(gone)-1:
				it.Action, it.Reason = "drop", "its last database: the counter goes with it"
			}
			plan = append(plan, it)
		}
	}
	return plan, n
}

// detachStale detaches the member of it and says what happened. The
// counter's other members may have changed since the plan: Detach drops the
// counter if it was the last after all, and keeps it if another database
// attached meanwhile.
func (a *app) detachStale(ctx context.Context, st sequence.Store, it *pruneItem) {
	if it.Action != "detach" && it.Action != "drop" {
		return
	}
	dropped, err := st.Detach(ctx, it.Name, it.member)
	switch {
	case errors.Is(err, sequence.ErrNotFound):
		it.Action, it.Reason = "gone", "the counter was dropped meanwhile"
	case err != nil:
		it.Action, it.Reason = "error", a.storeErr(err, it.Name).Error()
	case dropped && it.Action == "drop":
		it.Action = "dropped"
	case dropped:
		it.Action, it.Reason = "dropped", "its other databases detached meanwhile: the counter went with its last"
	case it.Action == "drop":
		it.Action, it.Reason = "detached", "another database attached meanwhile: the counter is kept"
	default:
		it.Action = "detached"
	}
}

func (a *app) printPrune(plan []pruneItem, counters int, left pruneCounts, cl clusters, dryRun bool) error {
	if a.output == "json" {
		if plan == nil {
			plan = []pruneItem{}
		}
		return writeJSON(a.stdout, plan)
	}
	if len(plan) == 0 {
		_, err := fmt.Fprintf(a.stdout, "no stale members in %d %s (clusters checked: %s)%s\n",
			counters, plural(counters, "counter", "counters"), cl.ids(), left)
		return err
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "NAME\tDATABASE\tACTION")
	var detached, dropped, skipped int
	for _, it := range plan {
		action := it.Action
		if it.Reason != "" {
			action += ": " + it.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", it.Name, fmtDB(it.DB), action)
		switch it.Action {
		case "detach", "detached":
			detached++
		case "drop", "dropped":
			detached++
			dropped++
		case "skip":
			skipped++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	verb, drop := "detached", "dropped"
	if dryRun {
		verb, drop = "dry run: would detach", "drop"
	}
	_, err := fmt.Fprintf(a.stdout, "%s %d stale %s, %s %d %s; %d skipped%s\n", verb, detached, plural(detached, "member", "members"),
		drop, dropped, plural(dropped, "counter", "counters"), skipped, left)
	return err
}

// String ends prune's summary: the members it could not judge.
func (n pruneCounts) String() string {
	var s string
	if n.unchecked > 0 {
		s += fmt.Sprintf("; %d %s of clusters not checked left as %s", n.unchecked,
			plural(n.unchecked, "member", "members"), plural(n.unchecked, "it is", "they are"))
	}
	if n.renamed > 0 {
		s += fmt.Sprintf("; %d %s of databases renamed since left as %s ('seqctl show --check-db' names them)", n.renamed,
			plural(n.renamed, "member", "members"), plural(n.renamed, "it is", "they are"))
	}
	return s
}

// pruneResult is prune's error: the counters it did not prune, or failed
// to.
func pruneResult(plan []pruneItem) error {
	var skipped, failed []string
	for _, it := range plan {
		switch it.Action {
		case "skip":
			skipped = appendOnce(skipped, it.Name)
		case "error":
			failed = appendOnce(failed, it.Name)
		}
	}
	switch {
	case len(failed) > 0:
		return fmt.Errorf("could not prune %s (see above)", strings.Join(failed, ", "))
	case len(skipped) > 0:
		return fmt.Errorf("not pruned: %s, whose databases are all gone; pass --drop-last to drop %s with %s last member",
			strings.Join(skipped, ", "), plural(len(skipped), "it", "them"), plural(len(skipped), "its", "their"))
	}
	return nil
}

func appendOnce(s []string, v string) []string {
	if len(s) > 0 && s[len(s)-1] == v {
		return s
	}
	return append(s, v)
}
