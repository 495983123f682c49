package sequence

import (
	"math"
	"time"
)

// Day is a UTC calendar day, counted in days since 1970-01-01 (day 0). A
// daily limit ([Spec.DailyLimit]) counts the values reserved per Day.
type Day int64

// DayOf returns the UTC day of t.
func DayOf(t time.Time) Day {
	s := t.Unix()
	d := s / 86400
	if s%86400 < 0 {
		d-- // floor, for instants before 1970
	}
	return Day(d)
}

// Start returns the first instant of the day, midnight UTC.
func (d Day) Start() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// String returns the day as 2006-01-02.
func (d Day) String() string { return d.Start().Format(time.DateOnly) }

// Usage counts the values a sequence with a daily limit reserved in one UTC
// day. Stores keep it with the sequence ([Info.DayUsage]) and move it with
// [Spec.ReserveAt] only; the zero value is "nothing recorded".
type Usage struct {
	Day  Day   // the day counted
	Used int64 // values reserved that day
}

// On returns the values reserved on day d: Used if the usage is of that day,
// else 0 (a new day starts from nothing).
func (u Usage) On(d Day) int64 {
	if u.Day == d {
		return u.Used
	}
	return 0
}

// Allowance returns the UTC day a reservation made at now counts in, and how
// many values the daily limit still allows that day (math.MaxInt64 without
// a limit; 0 when it is used up). The day is now's, or the usage's own if it
// is later: a store whose clock is behind the clock of the process that
// reserved last counts into that process's day rather than starting an
// earlier one afresh.
func (s Spec) Allowance(u Usage, now time.Time) (Day, int64) {
	day := max(DayOf(now), u.Day)
	if s.DailyLimit <= 0 {
		return day, math.MaxInt64
	}
	return day, max(s.DailyLimit-u.On(day), 0)
}

// ReserveAt is [Spec.Reserve] under the spec's daily limit, for a
// reservation made at now by the store's clock with u the usage stored with
// the sequence: it returns the block, the new position and the new usage.
//
// Without a limit (DailyLimit 0) it is Reserve, and the usage is returned
// unchanged: values are counted only while a limit is in force. With one,
// the block holds at most the values the limit leaves that day (see
// [Spec.Allowance]): a reservation that would cross the limit is truncated to
// what is left, so every value of the day's budget is handed out before
// anything is refused, and one made when nothing is left fails with
// [DailyLimitError] (SQLSTATE 54000), the position unchanged. A sequence at
// MAXVALUE (MINVALUE) without CYCLE fails with [LimitError] first, whatever
// its budget. The day's count restarts at midnight UTC.
func (s Spec) ReserveAt(name string, pos Position, u Usage, now time.Time, n int64) (Block, Position, Usage, error) {
	if s.DailyLimit <= 0 {
		b, p, err := s.Reserve(name, pos, n)
		return b, p, u, err
	}
	day, left := s.Allowance(u, now)
	if left <= 0 {
		if _, _, err := s.Reserve(name, pos, 1); err != nil {
			return Block{}, pos, u, err
		}
		return Block{}, pos, u, DailyLimitError(name, s.DailyLimit, day)
	}
	b, p, err := s.Reserve(name, pos, min(max(n, 1), left))
	if err != nil {
		return Block{}, pos, u, err
	}
	return b, p, Usage{Day: day, Used: u.On(day) + b.Count}, nil
}
