package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// counterJSON is a counter as -o json prints it; the spec fields are named
// after the columns of PostgreSQL's pg_sequences.
type counterJSON struct {
	Name           string     `json:"name"`
	DataType       string     `json:"data_type"`
	StartValue     int64      `json:"start_value"`
	MinValue       int64      `json:"min_value"`
	MaxValue       int64      `json:"max_value"`
	IncrementBy    int64      `json:"increment_by"`
	Cycle          bool       `json:"cycle"`
	CacheSize      int64      `json:"cache_size"`
	LastValue      int64      `json:"last_value"`
	IsCalled       bool       `json:"is_called"`
	NextValue      *int64     `json:"next_value"` // null: exhausted
	Remaining      uint64     `json:"remaining"`  // values before the limit
	Version        int64      `json:"version"`
	Reservations   int64      `json:"reservations"`
	ValuesReserved int64      `json:"values_reserved"`
	LastReserved   *time.Time `json:"last_reserved"` // null: never
	// ColumnDefaults are the columns whose default draws from the counter
	// in every database ([] for none, and for a counter with members, whose
	// column defaults are each member's).
	ColumnDefaults []columnDefaultJSON `json:"column_defaults"`
	// Members are the databases that declared the counter, each with its
	// OWNED BY and column defaults ([] for none: every database's).
	Members []memberJSON `json:"members"`
	// DailyLimit is the most values handed out per UTC day (null: none);
	// DailyUsage the values counted on the last day a reservation was made
	// under it (null: none yet).
	DailyLimit *int64     `json:"daily_limit"`
	DailyUsage *usageJSON `json:"daily_usage"`
	// CachePolicy is the counter's cache policy, the settings made only
	// (null: none, each process's defaults).
	CachePolicy *cachePolicyJSON `json:"cache_policy"`
}

// toJSON is info as -o json prints it, its members with what the clusters
// cl say of them (nil: nothing checked).
func toJSON(info sequence.Info, cl clusters) counterJSON {
	c := counterJSON{
		Name:           info.Name,
		DataType:       info.Spec.Type.String(),
		StartValue:     info.Spec.Start,
		MinValue:       info.Spec.Min,
		MaxValue:       info.Spec.Max,
		IncrementBy:    info.Spec.Increment,
		Cycle:          info.Spec.Cycle,
		CacheSize:      info.Spec.Cache,
		LastValue:      info.Position.Last,
		IsCalled:       info.Position.Called,
		Remaining:      info.Spec.Remaining(info.Position),
		Version:        info.Version,
		Reservations:   info.Reservations,
		ValuesReserved: info.ValuesReserved,
		ColumnDefaults: defaultsJSON(info.Spec.Defaults),
		Members:        membersJSON(info.Spec.Members, cl),
	}
	if len(info.Spec.Members) > 0 {
		// No database sees the spec's own: each member has its view.
		c.ColumnDefaults = []columnDefaultJSON{}
	}
	if v, ok := nextValue(info); ok {
		c.NextValue = &v
	}
	if !info.LastReserved.IsZero() {
		t := info.LastReserved.UTC()
		c.LastReserved = &t
	}
	c.DailyLimit, c.DailyUsage = dailyJSON(info)
	c.CachePolicy = policyJSON(info.Spec.Policy)
	return c
}

// nextValue is the value the next reservation starts with, if any is left.
func nextValue(info sequence.Info) (int64, bool) {
	b, _, err := info.Spec.Reserve(info.Name, info.Position, 1)
	if err != nil {
		return 0, false
	}
	return b.First, true
}

func fmtNext(info sequence.Info) string {
	if v, ok := nextValue(info); ok {
		return strconv.FormatInt(v, 10)
	}
	return "none (limit reached)"
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

// writeCounter prints one counter as "key: value" lines, its members with
// what the clusters cl say of them; the caller flushes tw, after adding
// lines of its own.
func writeCounter(tw *tabwriter.Writer, info sequence.Info, now time.Time, cl clusters) {
	s, p := info.Spec, info.Position
	called := "not yet called: the next value is the last value itself"
	if p.Called {
		called = "called"
	}
	fmt.Fprintf(tw, "name:\t%s\n", info.Name)
	fmt.Fprintf(tw, "type:\t%s\n", s.Type)
	fmt.Fprintf(tw, "increment:\t%d\n", s.Increment)
	fmt.Fprintf(tw, "minvalue:\t%d\n", s.Min)
	fmt.Fprintf(tw, "maxvalue:\t%d\n", s.Max)
	fmt.Fprintf(tw, "start:\t%d\n", s.Start)
	fmt.Fprintf(tw, "cache:\t%d\n", s.Cache)
	fmt.Fprintf(tw, "cycle:\t%t\n", s.Cycle)
	switch {
	case len(s.Members) > 0:
		fmt.Fprintf(tw, "column defaults:\teach member's, below\n")
	case len(s.Defaults) == 0:
		fmt.Fprintf(tw, "column defaults:\tnone\n")
	default:
		for i, d := range s.Defaults {
			label := "column defaults:"
			if i > 0 {
				label = ""
			}
			fmt.Fprintf(tw, "%s\t%s\n", label, d)
		}
	}
	fmt.Fprintf(tw, "last value:\t%d (%s)\n", p.Last, called)
	fmt.Fprintf(tw, "next value:\t%s\n", fmtNext(info))
	fmt.Fprintf(tw, "remaining:\t%d values before %s\n", s.Remaining(p), limitName(s))
	fmt.Fprintf(tw, "version:\t%d\n", info.Version)
	fmt.Fprintf(tw, "reservations:\t%d\n", info.Reservations)
	fmt.Fprintf(tw, "values reserved:\t%d\n", info.ValuesReserved)
	fmt.Fprintf(tw, "last reservation:\t%s\n", fmtLastReserved(info.LastReserved, now))
	fmt.Fprintf(tw, "daily limit:\t%s\n", fmtDailyLimit(info, now))
	fmt.Fprintf(tw, "cache policy:\t%s\n", fmtCachePolicy(info.Spec.Policy))
	writeMembers(tw, s, cl)
}

func limitName(s sequence.Spec) string {
	if s.Descending() {
		return "MINVALUE"
	}
	return "MAXVALUE"
}

func fmtLastReserved(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	ago := now.Sub(t)
	if ago < 0 {
		ago = 0 // clocks of store and operator differ
	}
	return t.UTC().Format(time.RFC3339) + " (" + fmtSpan(ago.Seconds()) + " ago)"
}

// fmtRate prints values per second or per day compactly: integers as such,
// small rates with two significant decimals.
func fmtRate(r float64) string {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0):
		return "-"
	case r >= 100 || r == math.Trunc(r):
		return strconv.FormatFloat(math.Round(r), 'f', -1, 64)
	default:
		return strconv.FormatFloat(r, 'g', 3, 64)
	}
}

// fmtQty prints a large quantity compactly for people: 864000 is 864k,
// 43193578 is 43.2M.
func fmtQty(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 10000 {
		return fmtRate(v)
	}
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.div {
			return strconv.FormatFloat(v/u.div, 'g', 3, 64) + u.suffix
		}
	}
	return fmtRate(v)
}

// fmtSpan prints a duration given in seconds, from seconds to (many) years.
func fmtSpan(sec float64) string {
	const day = 86400
	switch {
	case math.IsInf(sec, 1):
		return "never"
	case sec < 60:
		return fmt.Sprintf("%.0fs", sec)
	case sec < 3600:
		return fmt.Sprintf("%.1fm", sec/60)
	case sec < 2*day:
		return fmt.Sprintf("%.1fh", sec/3600)
	case sec < 2*365*day:
		return fmt.Sprintf("%.1fd", sec/day)
	case sec < 1e6*365*day:
		return fmt.Sprintf("%.1f years", sec/(365*day))
	default:
		return fmt.Sprintf("%.2g years", sec/(365*day))
	}
}

// burn is a measured consumption rate and what it implies.
type burn struct {
	PerSecond      float64  `json:"rate_per_second"`
	PerDay         float64  `json:"burn_per_day"`
	Over           float64  `json:"measured_over_seconds"`
	SecondsToLimit *float64 `json:"seconds_to_limit"` // null: never at this rate
}

// measure computes the rate between two readings of a counter.
func measure(before, after sequence.Info, elapsed time.Duration) burn {
	if elapsed <= 0 {
		return burn{}
	}
	r := float64(after.ValuesReserved-before.ValuesReserved) / elapsed.Seconds()
	if r < 0 {
		r = 0 // counters were reset by a re-create
	}
	b := burn{PerSecond: r, PerDay: r * 86400, Over: elapsed.Seconds()}
	if r > 0 {
		s := float64(after.Spec.Remaining(after.Position)) / r
		b.SecondsToLimit = &s
	}
	return b
}

// untilLimit says when the counter reaches its limit at rate b.
func untilLimit(s sequence.Spec, b burn) string {
	if b.SecondsToLimit == nil {
		return "never at this rate"
	}
	span := fmtSpan(*b.SecondsToLimit)
	if s.Cycle {
		return "wraps around (CYCLE) in " + span
	}
	return span
}
