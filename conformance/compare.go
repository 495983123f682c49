package conformance

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

// Mismatch is a step whose transcript differs from PostgreSQL's.
type Mismatch struct {
	Step   int    // index in Scenario.Steps
	Want   string // PostgreSQL's transcript of the step, or its ---- seqshim section
	Got    string // the target's
	Reason string // why a per-row or id step was not accepted; "" for plain inequality
	// Seqshim is true when Want is the step's ---- seqshim section (a
	// differs step), not PostgreSQL's transcript.
	Seqshim bool
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
// step. A step must be identical, except:
//
//   - a per-row step, which may also be an error with SQLSTATE 0A000
//     (seqshim refuses a call PostgreSQL evaluates once per row) or have the
//     same columns and row count with distinct values in its per-row
//     columns. Either way the steps after it are not compared: they depend
//     on what the refused statement did.
//   - a step with ids= or seen= columns: the same columns, rows in the same
//     order and the same cells, except those of the id columns, which hold
//     integers (or NULL where PostgreSQL has NULL). An ids= value must be
//     new in its id space: no ids= cell before it in the run, on any
//     database, had it. A seen= value must be the one an ids= cell got for
//     the same row: the same database (since its last recreate) and the
//     same PostgreSQL value.
//   - a differs step, compared with its ---- seqshim section instead of
//     PostgreSQL's transcript, where "..." matches any text within a line
//     (id columns as above).
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
	ids := &idSpaces{sc: sc, owners: map[string]map[string]idOwner{}}
	gens := generations(sc)
	for i, st := range sc.Steps {
		if i >= len(want) {
			o.Mismatches = append(o.Mismatches, Mismatch{Step: i, Reason: "no PostgreSQL transcript for the step"})
			continue
		}
		w, pattern := want[i], false
		if lenient && st.Differs {
			w, pattern = st.Seqshim, true
		}
		if i >= len(got) {
			o.Mismatches = append(o.Mismatches, Mismatch{Step: i, Want: w, Reason: "step not run", Seqshim: pattern})
			continue
		}
		g := got[i]
		if lenient && (st.IDs != nil || st.Seen != nil) {
			if reason := ids.check(i, gens[i], w, g, pattern); reason != "" {
				o.Mismatches = append(o.Mismatches, Mismatch{Step: i, Want: w, Got: g, Reason: reason, Seqshim: pattern})
			}
			continue
		}
		if match(w, g, pattern) {
			continue
		}
		if pattern {
			o.Mismatches = append(o.Mismatches, Mismatch{Step: i, Want: w, Got: g, Seqshim: true})
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

// generations returns for each step how many recreate steps of its
// database come before it: a database's rows, and PostgreSQL's ids, start
// again after each.
func generations(sc *Scenario) []int {
	out := make([]int, len(sc.Steps))
	n := map[string]int{}
	for i, st := range sc.Steps {
		out[i] = n[st.DB]
		if st.Verb == Recreate {
			n[st.DB]++
		}
	}
	return out
}

// match reports whether got is want, or, for a ---- seqshim section
// (pattern), matches it with "..." standing for any text within a line.
func match(want, got string, pattern bool) bool {
	if want == got {
		return true
	}
	if !pattern || !strings.Contains(want, "...") {
		return false
	}
	parts := strings.Split(want, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`\A` + strings.Join(parts, `[^\n]*`) + `\z`).MatchString(got)
}

// idOwner is where an id was handed out: the step, and the row's database,
// the database's generation (recreate steps before) and PostgreSQL's value.
type idOwner struct {
	step   int
	db     string
	gen    int
	native string
}

// idSpaces checks the id columns of a run's steps, in order: the values
// handed out so far in each id space, and to which row.
type idSpaces struct {
	sc     *Scenario
	owners map[string]map[string]idOwner // space → value → where it was handed out
}

// check compares a step with id columns: the same transcript as want with
// the id cells masked, ids= values new, seen= values those of the same rows.
// It returns why the step is not accepted, "" when it is. Every ids= value
// of got is recorded, even in a step that differs otherwise, so that a
// value handed out twice is reported where it happens.
func (sp *idSpaces) check(step, gen int, want, got string, pattern bool) string {
	st := &sp.sc.Steps[step]
	wc, wr, err := parseTable(want)
	if err != nil { // PostgreSQL's answer is no table (an error): seqshim's must be the same
		if match(want, got, pattern) {
			return ""
		}
		return "id step: want the same transcript"
	}
	gc, gr, err := parseTable(got)
	if err != nil {
		return "id step: PostgreSQL's transcript is a result set, the target's is not"
	}
	if len(gc) != len(wc) {
		return "id step: columns differ"
	}
	for k := range wc {
		if !match(wc[k], gc[k], pattern) {
			return "id step: columns differ"
		}
	}
	if len(gr) != len(wr) {
		return "id step: row counts differ"
	}
	kinds, err := idColumns(st, wc)
	if err != nil {
		return "id step: " + err.Error()
	}
	var reasons []string
	for r := range wr {
		for k, w := range wr[r] {
			g := gr[r][k]
			col := colName(wc[k])
			c := kinds[k]
			switch {
			case c == nil:
				if !match(w, g, pattern) {
					reasons = append(reasons, fmt.Sprintf("row %d: column %s is %s, want %s", r+1, col, g, w))
				}
				continue
			case w == "NULL" || g == "NULL":
				if w != g {
					reasons = append(reasons, fmt.Sprintf("row %d: id column %s is %s, want %s", r+1, col, g, w))
				}
				continue
			}
			if _, err := strconv.ParseInt(g, 10, 64); err != nil {
				reasons = append(reasons, fmt.Sprintf("row %d: id column %s is %s, not an integer", r+1, col, g))
				continue
			}
			owners := sp.owners[c.space]
			if owners == nil {
				owners = map[string]idOwner{}
				sp.owners[c.space] = owners
			}
			here := idOwner{step: step, db: st.DB, gen: gen, native: w}
			prev, seen := owners[g]
			switch {
			case c.fresh && seen:
				reasons = append(reasons, fmt.Sprintf("row %d: id %s (column %s, space %s) was handed out before, %s",
					r+1, g, col, c.space, sp.describe(prev)))
			case c.fresh:
				owners[g] = here
			case !seen:
				reasons = append(reasons, fmt.Sprintf("row %d: id %s (column %s, space %s) was never handed out by an ids= step",
					r+1, g, col, c.space))
			case prev.db != here.db || prev.gen != here.gen || prev.native != here.native:
				reasons = append(reasons, fmt.Sprintf("row %d: id %s (column %s, space %s) was handed out %s, not for PostgreSQL's %s on database %s",
					r+1, g, col, c.space, sp.describe(prev), w, sp.dbName(st.DB, gen)))
			}
		}
	}
	return strings.Join(reasons, "; ")
}

// describe says where an id was handed out.
func (sp *idSpaces) describe(o idOwner) string {
	return fmt.Sprintf("at line %d for PostgreSQL's %s on database %s", sp.sc.Steps[o.step].Line, o.native, sp.dbName(o.db, o.gen))
}

func (sp *idSpaces) dbName(db string, gen int) string {
	if gen == 0 {
		return db
	}
	return fmt.Sprintf("%s (re-created %d×)", db, gen)
}

// idColumn is what an ids= or seen= option makes of a result column.
type idColumn struct {
	space string
	fresh bool // ids=: handed out by the step; seen=: handed out before
}

// idColumns maps the columns of a result (header cells) to the step's id
// columns, nil for the others; every column named must be there.
func idColumns(st *Step, header []string) ([]*idColumn, error) {
	out := make([]*idColumn, len(header))
	add := func(cols []IDCol, fresh bool) error {
		for _, c := range cols {
			found := false
			for k, h := range header {
				if colName(h) == c.Col {
					if out[k] != nil {
						return fmt.Errorf("column %s named twice in ids= or seen=", c.Col)
					}
					out[k] = &idColumn{space: c.Space, fresh: fresh}
					found = true
				}
			}
			if !found {
				return fmt.Errorf("no column %q", c.Col)
			}
		}
		return nil
	}
	if err := add(st.IDs, true); err != nil {
		return nil, err
	}
	if err := add(st.Seen, false); err != nil {
		return nil, err
	}
	return out, nil
}

// colName is the name of a header cell "name TYPE".
func colName(h string) string {
	name, _, _ := strings.Cut(h, " ")
	return name
}

// CheckIDs checks that PostgreSQL's transcript of a step with ids= or
// seen= columns is a result set with rows in which those columns hold
// integers (or NULL), so the step tests what it claims to.
func CheckIDs(st *Step, out string) error {
	if st.IDs == nil && st.Seen == nil {
		return nil
	}
	cols, rows, err := parseTable(out)
	if err != nil {
		return fmt.Errorf("ids= or seen= on a step PostgreSQL answers with no result set: %v", err)
	}
	if len(rows) == 0 {
		return errors.New("ids= or seen= on a step whose result has no rows: it tests nothing")
	}
	kinds, err := idColumns(st, cols)
	if err != nil {
		return err
	}
	for _, r := range rows {
		for k, v := range r {
			if kinds[k] == nil || v == "NULL" {
				continue
			}
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				return fmt.Errorf("id column %s holds %s, not an integer", colName(cols[k]), v)
			}
		}
	}
	return nil
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
		if st.DB != DefaultDB {
			fmt.Fprintf(&b, " db=%s", st.DB)
		}
		if st.Session != "" && st.Session != DefaultSession && st.Session != st.DB {
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
		want := "postgresql"
		if m.Seqshim {
			want = "expected (" + SeqshimSection + ")"
		}
		fmt.Fprintf(&b, "  %s:\n%s", want, indent(m.Want, "  - "))
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
