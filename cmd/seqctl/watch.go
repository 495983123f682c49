package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

const watchDoc = `
A live view of the counters (all, or the NAMEs given), refreshed every
--interval: the next value, the burn rate, the burn per day, the time until
the counter reaches its limit at that rate, and the last reservation.

The rate is the change of the values reserved (by all processes, in blocks)
over the last --window, so it needs two refreshes before it shows. Blocks make
it lumpy over short windows; the default window spans several blocks of a
busy counter.

On a terminal the screen is redrawn at every refresh. Otherwise (a pipe, a
file, a log collector) each refresh appends one line per counter, as
key=value pairs; with -o json each refresh is one line of JSON (JSON Lines).
A failed refresh is reported on stderr and the watch goes on. Stop it with
Ctrl-C, or bound it with --count.`

// watchRow is one counter at one refresh.
type watchRow struct {
	Name           string     `json:"name"`
	NextValue      *int64     `json:"next_value"` // null: limit reached
	ValuesReserved int64      `json:"values_reserved"`
	Remaining      uint64     `json:"remaining"`
	RatePerSecond  *float64   `json:"rate_per_second"` // null: not known yet
	BurnPerDay     *float64   `json:"burn_per_day"`
	SecondsToLimit *float64   `json:"seconds_to_limit"` // null: never at this rate, or not known yet
	LastReserved   *time.Time `json:"last_reserved"`    // null: never

	info sequence.Info
	rate *burn
}

type watchSample struct {
	t        time.Time
	reserved int64
}

func (a *app) cmdWatch(ctx context.Context, args []string) error {
	fs := a.flagSet("watch", "[NAME...] [flags]", watchDoc)
	interval := fs.Duration("interval", 5*time.Second, "time between refreshes")
	window := fs.Duration("window", time.Minute, "span the rate is measured over")
	count := fs.Int("count", 0, "stop after this many refreshes (0: run until interrupted)")
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	if *interval <= 0 || *window <= 0 || *count < 0 {
		return usagef("--interval and --window must be positive, --count >= 0")
	}
	var names []string
	for _, s := range args {
		n, err := nameArg(s)
		if err != nil {
			return err
		}
		names = append(names, n)
	}
	openCtx, cancel := a.bounded(ctx)
	st, err := a.store(openCtx)
	cancel()
	if err != nil {
		return err
	}
	defer closeStore(st)

	history := map[string][]watchSample{}
	for i := 0; *count == 0 || i < *count; i++ {
		if i > 0 {
			if err := a.sleep(ctx, *interval); err != nil {
				return nil // interrupted: the normal end of a watch
			}
		}
		now := a.now()
		readCtx, cancel := a.bounded(ctx)
		infos, err := readCounters(readCtx, st, names)
		cancel()
		if err != nil {
			if i == 0 {
				return a.storeErr(err, strings.Join(names, " "))
			}
			fmt.Fprintf(a.stderr, "time=%s error=%q\n", now.UTC().Format(time.RFC3339), err.Error())
			continue
		}
		rows := make([]watchRow, len(infos))
		for j, info := range infos {
			rows[j] = watchRowOf(info, now, *window, history)
		}
		if err := a.renderWatch(now, *interval, rows); err != nil {
			return err
		}
	}
	return nil
}

func readCounters(ctx context.Context, st sequence.Store, names []string) ([]sequence.Info, error) {
	if len(names) == 0 {
		return st.List(ctx)
	}
	infos := make([]sequence.Info, len(names))
	for i, n := range names {
		info, err := st.Describe(ctx, n)
		if err != nil {
			return nil, err
		}
		infos[i] = info
	}
	return infos, nil
}

// watchRowOf computes a counter's row, measuring the rate against the oldest
// sample within the window and recording this one.
func watchRowOf(info sequence.Info, now time.Time, window time.Duration, history map[string][]watchSample) watchRow {
	r := watchRow{Name: info.Name, ValuesReserved: info.ValuesReserved,
		Remaining: info.Spec.Remaining(info.Position), info: info}
	if v, ok := nextValue(info); ok {
		r.NextValue = &v
	}
	if !info.LastReserved.IsZero() {
		t := info.LastReserved.UTC()
		r.LastReserved = &t
	}
	h := history[info.Name]
	// Keep the samples within the window, and at least the latest one.
	for len(h) > 1 && now.Sub(h[0].t) > window {
		h = h[1:]
	}
	if len(h) > 0 {
		before := info
		before.ValuesReserved = h[0].reserved
		b := measure(before, info, now.Sub(h[0].t))
		if b.Over > 0 {
			r.rate = &b
			r.RatePerSecond, r.BurnPerDay, r.SecondsToLimit = &b.PerSecond, &b.PerDay, b.SecondsToLimit
		}
	}
	history[info.Name] = append(h, watchSample{t: now, reserved: info.ValuesReserved})
	return r
}

func (a *app) renderWatch(now time.Time, interval time.Duration, rows []watchRow) error {
	ts := now.UTC().Format(time.RFC3339)
	if a.output == "json" {
		line, err := json.Marshal(struct {
			Time     string     `json:"time"`
			Counters []watchRow `json:"counters"`
		}{ts, rows})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", line)
		return err
	}
	if !a.terminal {
		var b strings.Builder
		for _, r := range rows {
			next := "none"
			if r.NextValue != nil {
				next = strconv.FormatInt(*r.NextValue, 10)
			}
			rate, perDay, until := "-", "-", "-"
			if r.rate != nil {
				rate, perDay, until = fmtRate(r.rate.PerSecond)+"/s", fmtRate(r.rate.PerDay), untilLimit(r.info.Spec, *r.rate)
			}
			fmt.Fprintf(&b, "time=%s name=%s next=%s reserved=%d remaining=%d rate=%s per_day=%s until_limit=%s last_reservation=%s\n",
				ts, logfmt(r.Name), next, r.ValuesReserved, r.Remaining, rate, perDay, logfmt(until),
				logfmt(fmtLastReserved(r.info.LastReserved, now)))
		}
		_, err := fmt.Fprint(a.stdout, b.String())
		return err
	}
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J") // home and clear: redraw in place
	fmt.Fprintf(&b, "seqctl watch  %s  every %s  (Ctrl-C to stop)\n\n", ts, interval)
	tw := newTable(&b)
	fmt.Fprintln(tw, "NAME\tNEXT\tRATE\tPER DAY\tREMAINING\tUNTIL LIMIT\tLAST RESERVATION")
	for _, r := range rows {
		next := "none"
		if r.NextValue != nil {
			next = strconv.FormatInt(*r.NextValue, 10)
		}
		rate, perDay, until := "-", "-", "-"
		if r.rate != nil {
			rate, perDay, until = fmtRate(r.rate.PerSecond)+"/s", fmtQty(r.rate.PerDay), untilLimit(r.info.Spec, *r.rate)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Name, next, rate, perDay, r.Remaining, until,
			fmtLastReserved(r.info.LastReserved, now))
	}
	tw.Flush()
	_, err := fmt.Fprint(a.stdout, b.String())
	return err
}

// logfmt quotes a value that contains spaces, quotes or '='.
func logfmt(s string) string {
	if s == "" || strings.ContainsAny(s, " \"=\t") {
		return strconv.Quote(s)
	}
	return s
}
