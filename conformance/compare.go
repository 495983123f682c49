package conformance

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

// Mismatch is a step whose transcript differs from PostgreSQL's.
type Mismatch struct {
	Step   int    // index in Scenario.Steps
	Want   string // PostgreSQL's transcript of the step
	Got    string // the target's
	Reason string // why a per-row step was not accepted; "" for plain inequality
}

// Outcome of comparing a target's transcript with PostgreSQL's.
type Outcome struct {
	Mismatches []Mismatch
	// RejectedAt is the index of the per-row step the target rejected with
	// 0A000 or answered with other distinct values, after which the rest of
	// the scenario is not compared; -1 when every step was compared.
	RejectedAt int
}

// OK reports whether the target matched.
func (o Outcome) OK() bool { return len(o.Mismatches) == 0 }

// Compare compares a target's transcript got with PostgreSQL's want, step by
// step. A step must be identical, except a per-row step, which may also be
// an error with SQLSTATE 0A000 (seqshim refuses a call PostgreSQL evaluates
// once per row) or have the same columns and row count with distinct values
// in its per-row columns. Either way the steps after it are not compared:
// they depend on what the refused statement did.
func Compare(sc *Scenario, want, got Transcript) Outcome {
	return compare(sc, want, got, true)
}

// CompareExact compares like [Compare] but requires every step to be
// identical: it checks PostgreSQL against a scenario's expectations.
func CompareExact(sc *Scenario, want, got Transcript) Outcome {
	return compare(sc, want, got, false)
}

func compare(sc *Scenario, want, got Transcript, lenient bool) Outcome {
	o := Outcome{RejectedAt: -1}
	for i, st := range sc.Steps {
		if i >= len(want) {
			o.Mismatches = append(o.Mismatches, Mismatch{Step: i, Reason: "no PostgreSQL transcript for the step"})
			continue
		}
		w := want[i]
		if i >= len(got) {
			o.Mismatches = append(o.Mismatches, Mismatch{Step: i, Want: w, Reason: "step not run"})
			continue
		}
		g := got[i]
		if g == w {
			continue
		}
		if !st.PerRow || !lenient {
			o.Mismatches = append(o.Mismatches, Mismatch{Step: i, Want: w, Got: g})
			continue
		}
		if strings.HasPrefix(g, "ERROR "+sequence.CodeFeatureNotSupported+": ") {
			o.RejectedAt = i
			return o
		}
		if err := distinctLike(&st, w, g); err != nil {
			o.Mismatches = append(o.Mismatches, Mismatch{Step: i, Want: w, Got: g,
				Reason: "per-row step: want PostgreSQL's transcript, an error 0A000, or distinct values: " + err.Error()})
			continue
		}
		o.RejectedAt = i
		return o
	}
	return o
}

// CheckPerRow checks that PostgreSQL's transcript of a per-row query step
// has at least two rows with distinct values in the per-row columns, so the
// step tests what it claims to.
func CheckPerRow(st *Step, out string) error {
	if !st.PerRow || st.Verb != Query {
		return nil
	}
	cols, rows, err := parseTable(out)
	if err != nil {
		return err
	}
	if len(rows) < 2 {
		return fmt.Errorf("per-row step gives %d rows; a useful one gives several", len(rows))
	}
	return distinct(st, cols, rows)
}

// distinctLike reports whether got has the columns and row count of want and
// distinct values in the per-row columns.
func distinctLike(st *Step, want, got string) error {
	if st.Verb != Query {
		return fmt.Errorf("an exec step has no values to check")
	}
	wc, wr, err := parseTable(want)
	if err != nil {
		return err
	}
	gc, gr, err := parseTable(got)
	if err != nil {
		return err
	}
	if strings.Join(wc, " | ") != strings.Join(gc, " | ") || len(wr) != len(gr) {
		return fmt.Errorf("columns or row count differ")
	}
	return distinct(st, gc, gr)
}

func distinct(st *Step, cols []string, rows [][]string) error {
	check := st.PerRowCols
	if len(check) == 0 {
		for _, c := range cols {
			name, _, _ := strings.Cut(c, " ")
			check = append(check, name)
		}
	}
	for _, name := range check {
		ci := -1
		for i, c := range cols {
			if n, _, _ := strings.Cut(c, " "); n == name {
				ci = i
			}
		}
		if ci < 0 {
			return fmt.Errorf("no column %q", name)
		}
		seen := map[string]bool{}
		for _, r := range rows {
			if seen[r[ci]] {
				return fmt.Errorf("column %s has the value %s more than once", name, r[ci])
			}
			seen[r[ci]] = true
		}
	}
	return nil
}

var rowCount = regexp.MustCompile(`^\((\d+) rows?\)$`)

// parseTable reads back a one-result-set query transcript.
func parseTable(out string) (cols []string, rows [][]string, err error) {
	lines := strings.Split(out, "\n")
	if len(lines) < 2 || !rowCount.MatchString(lines[len(lines)-1]) || strings.HasPrefix(out, "ERROR") {
		return nil, nil, fmt.Errorf("not a single result set")
	}
	cols = strings.Split(lines[0], " | ")
	for _, l := range lines[1 : len(lines)-1] {
		cells := strings.Split(l, " | ")
		if len(cells) != len(cols) {
			return nil, nil, fmt.Errorf("not a single result set")
		}
		rows = append(rows, cells)
	}
	return cols, rows, nil
}

// Diff renders the mismatches of target against PostgreSQL readably: each
// differing step with its line, verb and SQL, then both transcripts.
func Diff(sc *Scenario, target string, o Outcome) string {
	var b strings.Builder
	for _, m := range o.Mismatches {
		st := sc.Steps[m.Step]
		fmt.Fprintf(&b, "%s:%d: step %d (%s", sc.Path, st.Line, m.Step+1, st.Verb)
		if st.Session != DefaultSession {
			fmt.Fprintf(&b, " session=%s", st.Session)
		}
		if st.Stmt != "" {
			fmt.Fprintf(&b, " stmt=%s", st.Stmt)
		}
		if st.Mode != "" {
			fmt.Fprintf(&b, " mode=%s", st.Mode)
		}
		b.WriteString(")")
		if m.Reason != "" {
			b.WriteString(": " + m.Reason)
		}
		b.WriteByte('\n')
		if st.SQL != "" {
			b.WriteString(indent(st.SQL, "    "))
		}
		fmt.Fprintf(&b, "  postgresql:\n%s", indent(m.Want, "  - "))
		fmt.Fprintf(&b, "  %s:\n%s", target, indent(m.Got, "  + "))
	}
	return b.String()
}

func indent(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return b.String()
}
