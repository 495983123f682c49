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
show NAME' lists them all).`

func (a *app) cmdList(ctx context.Context, args []string) error {
	fs := a.flagSet("list", "[flags]", listDoc)
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
	infos, err := st.List(ctx)
	if err != nil {
		return a.storeErr(err, "")
	}
	if a.output == "json" {
		out := make([]counterJSON, len(infos))
		for i, info := range infos {
			out[i] = toJSON(info)
		}
		return writeJSON(a.stdout, out)
	}
	now := a.now()
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "NAME\tTYPE\tINCREMENT\tMINVALUE\tMAXVALUE\tNEXT\tCYCLE\tRESERVED\tLAST RESERVATION\tDAILY LIMIT\tCACHE POLICY\tCOLUMN DEFAULTS")
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
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%t\t%d\t%s\t%s\t%s\t%s\n",
			info.Name, s.Type, s.Increment, s.Min, s.Max, next, s.Cycle, info.ValuesReserved, last,
			fmtDailyLimitShort(info, now), fmtCachePolicyShort(s.Policy), fmtDefaultsShort(s.Defaults))
	}
	return tw.Flush()
}
