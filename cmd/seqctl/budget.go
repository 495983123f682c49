package main

import (
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// registerDailyLimit registers --daily-limit, and for alter --no-daily-limit.
func (f *specFlags) registerDailyLimit(fs *flag.FlagSet, alter bool) {
	fs.Int64Var(&f.dailyLimit, "daily-limit", 0, "at most `N` values per UTC day, over every process (0: no limit)")
	if alter {
		fs.BoolVar(&f.noDailyLimit, "no-daily-limit", false, "remove the daily limit (the same as --daily-limit 0)")
	}
}

// dailyLimitClause sets c.DailyLimit from the flags that were given.
func (f *specFlags) dailyLimitClause(set map[string]bool, c *sequence.Clauses) error {
	switch {
	case set["daily-limit"] && set["no-daily-limit"]:
		return usagef("conflicting options: --daily-limit and --no-daily-limit")
	case set["daily-limit"]:
		if f.dailyLimit < 0 {
			return usagef("--daily-limit %d: want a number of values >= 0 (0 removes the limit)", f.dailyLimit)
		}
		c.DailyLimit = sequence.Int64(f.dailyLimit)
	case f.noDailyLimit:
		c.DailyLimit = sequence.Int64(0)
	}
	return nil
}

// usageJSON is a counter's count of the values reserved in one UTC day
// under its daily limit.
type usageJSON struct {
	Day  string `json:"day"` // 2006-01-02, UTC
	Used int64  `json:"used"`
}

// dailyJSON returns the daily_limit and daily_usage fields: null for none.
func dailyJSON(info sequence.Info) (*int64, *usageJSON) {
	var limit *int64
	if info.Spec.DailyLimit > 0 {
		limit = &info.Spec.DailyLimit
	}
	var usage *usageJSON
	if info.DayUsage != (sequence.Usage{}) {
		usage = &usageJSON{Day: info.DayUsage.Day.String(), Used: info.DayUsage.Used}
	}
	return limit, usage
}

// usedToday is what the counter used of its daily limit on now's UTC day,
// and that day.
func usedToday(info sequence.Info, now time.Time) (int64, sequence.Day) {
	day, _ := info.Spec.Allowance(info.DayUsage, now)
	return info.DayUsage.On(day), day
}

// fmtDailyLimit is show's line for the daily limit.
func fmtDailyLimit(info sequence.Info, now time.Time) string {
	limit := info.Spec.DailyLimit
	if limit <= 0 {
		return "none"
	}
	used, day := usedToday(info, now)
	state := "resets"
	if used >= limit {
		state = "reached; new values"
	}
	return fmt.Sprintf("%d values per UTC day; %d used on %s, %s at %s", limit, used, day, state,
		(day + 1).Start().Format(time.RFC3339))
}

// fmtDailyLimitShort is list's column: the limit and today's use.
func fmtDailyLimitShort(info sequence.Info, now time.Time) string {
	if info.Spec.DailyLimit <= 0 {
		return "-"
	}
	used, _ := usedToday(info, now)
	return strconv.FormatInt(info.Spec.DailyLimit, 10) + " (" + strconv.FormatInt(used, 10) + " today)"
}

// fmtDailyLimitSuffix ends create's and alter's line: the limit if there is
// one, or always when the command changed it.
func fmtDailyLimitSuffix(spec sequence.Spec, always bool) string {
	switch {
	case spec.DailyLimit > 0:
		return "; daily limit " + strconv.FormatInt(spec.DailyLimit, 10)
	case always:
		return "; no daily limit"
	}
	return ""
}
