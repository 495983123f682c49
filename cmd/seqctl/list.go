package main

import (
	"context"
	"fmt"
)

const listDoc = `
Lists every counter of the store, ordered by name: type, increment, bounds,
the next value, cycle, the reservation counters (values reserved in blocks by
all processes, and when the last block was taken), the daily limit with the
values used of it today (UTC), the cache policy, and the table columns
whose default draws from the counter (the first, and how many more: 'seqctl
show NAME' lists them all).

DATABASES lists the databases that declared each counter, its members (the
first three, and how many more): "every database" for a counter without
members. A counter with members has column defaults per member, each shown
after its database's name. --check-db URL, one per PostgreSQL cluster, reads
that cluster's databases and marks the members whose database is gone
"(stale)"; in -o json each member has "stale": true, false, or null when its
cluster was not checked. See 'seqctl members --help'.`

func (a *app) cmdList(ctx context.Context, args []string) error {
	fs := a.flagSet("list", "[flags]", listDoc)
	var checkDB checkDBFlag
	registerCheckDB(fs, &checkDB)
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	ctx, cancel := a.bounded(ctx)
	defer cancel()
	if len(args) != 0 {
		return usagef("list takes no arguments (for one counter: seqctl show NAME)")
	}
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	cl, err := readClusters(ctx, checkDB)
	if err != nil {
		return err
	}
	infos, err := st.List(ctx)
	if err != nil {
		return a.storeErr(err, "")
	}
	if a.output == "json" {
		out := make([]counterJSON, len(infos))
		for i, info := range infos {
			out[i] = toJSON(info, cl)
		}
		return writeJSON(a.stdout, out)
	}
	now := a.now()
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "NAME\tTYPE\tINCREMENT\tMINVALUE\tMAXVALUE\tNEXT\tCYCLE\tRESERVED\tLAST RESERVATION\tDAILY LIMIT\tCACHE POLICY\tDATABASES\tCOLUMN DEFAULTS")
	for _, info := range infos {
		s := info.Spec
		last := "never"
		if !info.LastReserved.IsZero() {
			last = fmtSpan(max(now.Sub(info.LastReserved).Seconds(), 0)) + " ago"
		}
		next := "-"
		if v, ok := nextValue(info); ok {
			next = fmt.Sprint(v)
		}
		defaults := fmtDefaultsShort(s.Defaults)
		if len(s.Members) > 0 {
			defaults = fmtMemberDefaultsShort(s.Members)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%t\t%d\t%s\t%s\t%s\t%s\t%s\n",
			info.Name, s.Type, s.Increment, s.Min, s.Max, next, s.Cycle, info.ValuesReserved, last,
			fmtDailyLimitShort(info, now), fmtCachePolicyShort(s.Policy), fmtMembersShort(s.Members, cl), defaults)
	}
	return tw.Flush()
}
