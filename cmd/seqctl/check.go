package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

const checkDoc = `
Checks the counters (all, or the NAMEs given) against thresholds, for cron
jobs, Kubernetes probes and alerting: it prints each counter's burn per day,
its runway (the time until MAXVALUE, MINVALUE when descending, at that
burn) and the time since its last reservation, and exits 0 when every
threshold holds, 6 when any does not (after printing every counter, the
failed ones marked), or another code when the check itself failed (1 the
store, 2 usage, 3 a named counter does not exist).

  --min-runway D       fail when a counter reaches its limit sooner than D
                       at the measured burn (a counter already at its limit
                       fails whatever its burn; CYCLE counters wrap rather
                       than run out, and are not checked)
  --max-burn-per-day N fail when a counter burns more than N values a day
  --stale D            fail when a counter's last reservation is older than
                       D, or it never had one (a service that stopped
                       taking ids)

Durations take Go's units (90s, 36h) and also d (days) and w (weeks): 30d,
2w. The burn is measured as show and watch measure it: the values reserved
by all processes between two reads of the store --sample apart. Processes
reserve in blocks, so a short sample of a slow counter is lumpy; give a
longer --sample for a steadier figure (a Kubernetes probe needs a
timeoutSeconds above it). --sample 0 measures nothing: only --stale can then
be checked. The time since the last reservation compares the store's stamp
with this machine's clock.

examples:
  seqctl check --min-runway 90d --stale 1h
  seqctl check orders_seq --max-burn-per-day 50000000 -o json`

// exitCheck is check's exit code when a threshold does not hold.
const exitCheck = 6

// checkOpts are check's thresholds; a nil one is not checked.
type checkOpts struct {
	sample     time.Duration // 0: no burn measured
	minRunway  *time.Duration
	maxPerDay  *float64
	stale      *time.Duration
	names      []string // canonical; none: every counter
	sampleNote string   // --sample as given, for the table
}

// checkRow is one counter in check's output.
type checkRow struct {
	Name           string     `json:"name"`
	Remaining      uint64     `json:"remaining"`
	Cycle          bool       `json:"cycle"`
	RatePerSecond  *float64   `json:"rate_per_second"`  // null: not measured
	BurnPerDay     *float64   `json:"burn_per_day"`     // null: not measured
	SecondsToLimit *float64   `json:"seconds_to_limit"` // null: never at this burn, or not measured
	LastReserved   *time.Time `json:"last_reserved"`    // null: never
	SecondsSince   *float64   `json:"seconds_since_last_reservation"`
	DailyLimit     *int64     `json:"daily_limit"`
	OK             bool       `json:"ok"`
	Failures       []string   `json:"failures"` // why not OK: [] when OK

	info sequence.Info
	rate *burn
}

// checkJSON is check's -o json output.
type checkJSON struct {
	OK            bool       `json:"ok"`
	SampleSeconds float64    `json:"sample_seconds"`
	MinRunway     *float64   `json:"min_runway_seconds"`
	MaxBurnPerDay *float64   `json:"max_burn_per_day"`
	Stale         *float64   `json:"stale_seconds"`
	Counters      []checkRow `json:"counters"`
}

// checkFailed is check's error when thresholds do not hold: exit code 6.
type checkFailed struct {
	failed, total int
	summary       []string
}

func (e *checkFailed) Error() string {
	return fmt.Sprintf("%d of %d counters fail their thresholds: %s", e.failed, e.total, strings.Join(e.summary, "; "))
}

func (a *app) cmdCheck(ctx context.Context, args []string) error {
	fs := a.flagSet("check", "[NAME...] [flags]", checkDoc)
	sample := fs.Duration("sample", 5*time.Second, "how long to measure the burn (0: do not measure)")
	var minRunway, stale spanFlag
	fs.Var(&minRunway, "min-runway", "fail when a counter reaches its limit sooner than `duration` (90m, 36h, 30d, 2w) at the measured burn")
	maxPerDay := fs.Float64("max-burn-per-day", 0, "fail when a counter burns more than `N` values a day")
	fs.Var(&stale, "stale", "fail when a counter's last reservation is older than `duration` (90m, 36h, 2d), or it never had one")
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	o := checkOpts{sample: *sample, sampleNote: sample.String()}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["min-runway"] {
		o.minRunway = &minRunway.d
	}
	if set["max-burn-per-day"] {
		if *maxPerDay < 0 {
			return usagef("--max-burn-per-day %v: want a number of values >= 0", *maxPerDay)
		}
		o.maxPerDay = maxPerDay
	}
	if set["stale"] {
		o.stale = &stale.d
	}
	if o.sample < 0 {
		return usagef("--sample %v: want a duration >= 0", o.sample)
	}
	if o.sample == 0 && (o.minRunway != nil || o.maxPerDay != nil) {
		return usagef("--min-runway and --max-burn-per-day need the burn: --sample must be above 0")
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
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	rows, err := a.check(ctx, st, o)
	if err != nil {
		return a.storeErr(err, strings.Join(o.names, " "))
	}
	if err := a.renderCheck(o, rows); err != nil {
		return err
	}
	var failed []string
	for _, r := range rows {
		if !r.OK {
			failed = append(failed, r.Name+" ("+strings.Join(r.Failures, ", ")+")")
		}
	}
	if len(failed) > 0 {
		return &checkFailed{failed: len(failed), total: len(rows), summary: failed}
	}
	return nil
}

// check reads the counters twice, o.sample apart, and evaluates the
// thresholds on each.
func (a *app) check(ctx context.Context, st sequence.Store, o checkOpts) ([]checkRow, error) {
	before, err := readCounters(ctx, st, o.names)
	if err != nil {
		return nil, err
	}
	after := before
	var elapsed time.Duration
	if o.sample > 0 {
		start := a.now()
		if err := a.sleep(ctx, o.sample); err != nil {
			return nil, err
		}
		if after, err = readCounters(ctx, st, o.names); err != nil {
			return nil, err
		}
		elapsed = a.now().Sub(start)
	}
	prev := make(map[string]sequence.Info, len(before))
	for _, info := range before {
		prev[info.Name] = info
	}
	now := a.now()
	rows := make([]checkRow, len(after))
	for i, info := range after {
		var b *burn
		if p, ok := prev[info.Name]; ok && elapsed > 0 {
			m := measure(p, info, elapsed)
			b = &m
		}
		rows[i] = evaluate(info, b, now, o)
	}
	return rows, nil
}

// evaluate is one counter's row: its figures and the thresholds it fails.
func evaluate(info sequence.Info, b *burn, now time.Time, o checkOpts) checkRow {
	r := checkRow{Name: info.Name, Remaining: info.Spec.Remaining(info.Position), Cycle: info.Spec.Cycle,
		Failures: []string{}, info: info, rate: b}
	r.DailyLimit, _ = dailyJSON(info)
	if b != nil {
		r.RatePerSecond, r.BurnPerDay, r.SecondsToLimit = &b.PerSecond, &b.PerDay, b.SecondsToLimit
	}
	if !info.LastReserved.IsZero() {
		t := info.LastReserved.UTC()
		since := max(now.Sub(t), 0).Seconds()
		r.LastReserved, r.SecondsSince = &t, &since
	}
	exhausted := r.Remaining == 0 && !info.Spec.Cycle
	if o.minRunway != nil && !info.Spec.Cycle {
		switch {
		case exhausted:
			r.Failures = append(r.Failures, limitName(info.Spec)+" reached")
		case r.SecondsToLimit != nil && *r.SecondsToLimit < o.minRunway.Seconds():
			r.Failures = append(r.Failures, fmt.Sprintf("runway %s < %s", fmtSpan(*r.SecondsToLimit), fmtSpan(o.minRunway.Seconds())))
		}
	}
	if o.maxPerDay != nil && r.BurnPerDay != nil && *r.BurnPerDay > *o.maxPerDay {
		r.Failures = append(r.Failures, fmt.Sprintf("burn %s/day > %s/day", fmtQty(*r.BurnPerDay), fmtQty(*o.maxPerDay)))
	}
	if o.stale != nil {
		switch {
		case r.SecondsSince == nil:
			r.Failures = append(r.Failures, "never reserved")
		case *r.SecondsSince > o.stale.Seconds():
			r.Failures = append(r.Failures, fmt.Sprintf("last reservation %s ago > %s", fmtSpan(*r.SecondsSince), fmtSpan(o.stale.Seconds())))
		}
	}
	r.OK = len(r.Failures) == 0
	return r
}

func (a *app) renderCheck(o checkOpts, rows []checkRow) error {
	if a.output == "json" {
		out := checkJSON{OK: true, SampleSeconds: o.sample.Seconds(), Counters: rows}
		if rows == nil {
			out.Counters = []checkRow{}
		}
		for _, r := range rows {
			out.OK = out.OK && r.OK
		}
		secs := func(d *time.Duration) *float64 {
			if d == nil {
				return nil
			}
			s := d.Seconds()
			return &s
		}
		out.MinRunway, out.MaxBurnPerDay, out.Stale = secs(o.minRunway), o.maxPerDay, secs(o.stale)
		return writeJSON(a.stdout, out)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(a.stdout, "no counters")
		return err
	}
	tw := newTable(a.stdout)
	fmt.Fprintf(tw, "NAME\tBURN/DAY\tRUNWAY\tLAST RESERVATION\tSTATUS\n")
	for _, r := range rows {
		perDay, runway := "-", "-"
		switch {
		case r.Remaining == 0 && !r.Cycle:
			runway = limitName(r.info.Spec) + " reached"
		case r.rate != nil:
			runway = untilLimit(r.info.Spec, *r.rate)
		}
		if r.rate != nil {
			perDay = fmtQty(r.rate.PerDay)
		}
		status := "ok"
		if !r.OK {
			status = "FAIL: " + strings.Join(r.Failures, ", ")
		}
		last := "never"
		if r.SecondsSince != nil {
			last = fmtSpan(*r.SecondsSince) + " ago"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, perDay, runway, last, status)
	}
	if o.sample > 0 {
		fmt.Fprintf(tw, "(burn measured over %s)\n", o.sampleNote)
	}
	return tw.Flush()
}

// spanFlag is a duration that also takes days and weeks: 30d, 1.5d, 2w.
type spanFlag struct{ d time.Duration }

func (f *spanFlag) String() string {
	if f == nil || f.d == 0 {
		return ""
	}
	return f.d.String()
}

func (f *spanFlag) Set(s string) error {
	d, err := parseSpan(s)
	if err != nil {
		return err
	}
	f.d = d
	return nil
}

// parseSpan parses a Go duration, or a number of days (d) or weeks (w).
func parseSpan(s string) (time.Duration, error) {
	unit := time.Duration(0)
	switch {
	case strings.HasSuffix(s, "d"):
		unit = 24 * time.Hour
	case strings.HasSuffix(s, "w"):
		unit = 7 * 24 * time.Hour
	}
	var d time.Duration
	if unit != 0 {
		f, err := strconv.ParseFloat(s[:len(s)-1], 64)
		// Written so that NaN fails too: a float conversion out of range
		// is no error in Go, it gives a negative duration.
		if err != nil || !(f >= 0 && f*float64(unit) < math.MaxInt64) {
			return 0, errors.New("want a duration such as 90s, 36h, 30d or 2w")
		}
		d = time.Duration(f * float64(unit))
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d < 0 {
			return 0, errors.New("want a duration such as 90s, 36h, 30d or 2w")
		}
	}
	return d, nil
}
