package main

import (
	"context"
	"fmt"
	"time"
)

const showDoc = `
Shows one counter: its spec, its daily limit (and how much of it the current
UTC day used), the table columns whose default draws from it
(one a line, with the kind: default, always or by-default), its position
(last value, next value), the values left before its limit, the reservation
counters, and the burn rate with the time until MAXVALUE (MINVALUE when
descending) at that rate.

The rate is measured by reading the counter twice, --sample apart: the
values reserved in between divided by the time. Processes reserve values in
blocks (sized to last seconds at their own rate), so a short sample of a slow
counter is lumpy; use a longer --sample or 'seqctl watch' for a steadier
figure. --sample 0 skips the measurement.

It also lists the databases that declared the counter, its members, each
with its own OWNED BY and column defaults (a counter without members is
every database's; see 'seqctl members --help'). --check-db URL, one per
PostgreSQL cluster, reads that cluster's databases and marks the members
whose database is gone "(stale: database gone)"; members of clusters not
given are not checked. In -o json each member has "stale": true, false, or
null when not checked.`

// showJSON is show's -o json output.
type showJSON struct {
	counterJSON
	Burn *burn `json:"burn"` // null: not measured
}

func (a *app) cmdShow(ctx context.Context, args []string) error {
	fs := a.flagSet("show", "NAME [flags]", showDoc)
	sample := fs.Duration("sample", 3*time.Second, "how long to measure the burn rate (0: do not measure)")
	var checkDB checkDBFlag
	registerCheckDB(fs, &checkDB)
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	ctx, cancel := a.bounded(ctx)
	defer cancel()
	name, err := oneName(args)
	if err != nil {
		return err
	}
	if *sample < 0 {
		return usagef("--sample %v: want a duration >= 0", *sample)
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
	info, err := st.Describe(ctx, name)
	if err != nil {
		return a.storeErr(err, name)
	}
	var b *burn
	if *sample > 0 {
		start := a.now()
		if err := a.sleep(ctx, *sample); err != nil {
			return err
		}
		after, err := st.Describe(ctx, name)
		if err != nil {
			return a.storeErr(err, name)
		}
		m := measure(info, after, a.now().Sub(start))
		info, b = after, &m
	}
	if a.output == "json" {
		return writeJSON(a.stdout, showJSON{counterJSON: toJSON(info, cl), Burn: b})
	}
	tw := newTable(a.stdout)
	writeCounter(tw, info, a.now(), cl)
	if b == nil {
		fmt.Fprintf(tw, "burn rate:\tnot measured (--sample 0)\n")
	} else {
		fmt.Fprintf(tw, "burn rate:\t%s/s over %s (%s per day)\n", fmtRate(b.PerSecond), *sample, fmtQty(b.PerDay))
		fmt.Fprintf(tw, "until %s:\t%s\n", limitName(info.Spec), untilLimit(info.Spec, *b))
	}
	return tw.Flush()
}
