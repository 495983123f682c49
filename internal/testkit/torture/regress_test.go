package torture

import "testing"

func TestRegressions(t *testing.T) {
	v := func(g int, start, end, value int64) Drawn { return Drawn{G: g, Start: start, End: end, Value: value} }
	recs := []Record{
		{Name: "clean", Values: []Drawn{v(0, 0, 1, 1), v(0, 2, 3, 2), v(1, 0, 5, 4)}},
		{Name: "one goroutine", Values: []Drawn{v(0, 0, 1, 5), v(0, 2, 3, 4), v(0, 4, 5, 3)}},
		{Name: "across goroutines", Values: []Drawn{v(0, 0, 1, 5), v(1, 2, 3, 4)}},
		{Name: "overlapping", Values: []Drawn{v(0, 0, 10, 5), v(1, 2, 3, 4)}},
	}
	want := map[string][][2]int64{ // value, after
		"one goroutine":     {{4, 5}, {3, 5}},
		"across goroutines": {{4, 5}},
	}
	for _, rec := range recs {
		got := Regressions(rec)
		var pairs [][2]int64
		for _, r := range got {
			pairs = append(pairs, [2]int64{r.Value.Value, r.After.Value})
		}
		w := want[rec.Name]
		if len(pairs) != len(w) {
			t.Errorf("%s: Regressions = %v, want %v", rec.Name, pairs, w)
			continue
		}
		for i := range w {
			if pairs[i] != w[i] {
				t.Errorf("%s: Regressions = %v, want %v", rec.Name, pairs, w)
				break
			}
		}
		if rep := Check([]Record{rec}, 1, 5); rep.Backwards != len(got) {
			t.Errorf("%s: Check counts %d backwards, Regressions lists %d", rec.Name, rep.Backwards, len(got))
		}
	}
}
