package torture

import (
	"cmp"
	"math"
	"slices"
)

// Regression is one value going backwards: handed out by a call that began
// after another call of the same incarnation had returned a value at least
// as large.
type Regression struct {
	Value Drawn // the value that went backwards
	After Drawn // the largest value returned by a call that ended before Value's call began
}

// Regressions lists the values of rec going backwards, as [Check] counts
// them in Report.Backwards (the same rule: real time, across the
// incarnation's goroutines), in the order their calls began, for a test
// that wants to tell what each one followed.
func Regressions(rec Record) []Regression {
	byEnd := slices.Clone(rec.Values)
	slices.SortFunc(byEnd, func(a, b Drawn) int { return cmp.Compare(a.End, b.End) })
	byStart := slices.Clone(rec.Values)
	slices.SortFunc(byStart, func(a, b Drawn) int { return cmp.Compare(a.Start, b.Start) })
	var out []Regression
	j := 0
	maxV, maxOf := int64(math.MinInt64), Drawn{}
	for _, d := range byStart {
		for j < len(byEnd) && byEnd[j].End < d.Start {
			if byEnd[j].Value > maxV {
				maxV, maxOf = byEnd[j].Value, byEnd[j]
			}
			j++
		}
		if maxV >= d.Value {
			out = append(out, Regression{Value: d, After: maxOf})
		}
	}
	return out
}
