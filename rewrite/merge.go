package rewrite

import (
	"slices"

	"github.com/seqshim/seqshim/sequence"
)

// checkMerge checks the MERGE at token i against the store-backed column
// defaults of its target. PostgreSQL evaluates the defaults of a MERGE's
// INSERT action, and the DEFAULT of its UPDATE action, once per row the
// action applies to, which seqshim cannot do (it draws once per
// statement): such an action is refused with 0A000. What PostgreSQL
// refuses when it reads the statement is refused likewise (428C9: a value
// for a GENERATED ALWAYS column without OVERRIDING SYSTEM VALUE). The
// rest — every store default given a value — goes to the database as
// written.
func (s *stmt) checkMerge(i int, lookup TableLookup) error {
	if !s.is(i+1, "into") {
		return nil
	}
	table, unqualified, _, ok := s.target(i + 2)
	if !ok {
		return nil
	}
	type action struct{ at, then int } // the action's INSERT or UPDATE; its THEN
	var actions []action
	columns := false
	g := s.group[i]
	for k := i + 3; k+1 < len(s.toks); k++ {
		if s.group[k] != g || !s.is(k, "then") {
			continue
		}
		switch {
		case s.is(k+1, "insert"):
			columns = columns || !s.punct(k+2, '(')
		case s.is(k+1, "update") && s.is(k+2, "set"):
		default:
			continue
		}
		actions = append(actions, action{k + 1, k})
	}
	if len(actions) == 0 {
		return nil
	}
	t, err := lookup(table, unqualified, columns)
	if err != nil || t == nil || t.View || len(t.Defaults) == 0 {
		return err // MERGE into a view: the database's error
	}
	if t.Native {
		t.Drawn = true // the database draws its temporary table's defaults: lastval may be its
		return nil
	}
	for _, a := range actions {
		if s.is(a.at, "update") {
			if err := s.mergeUpdate(t, a.at+1); err != nil {
				return err
			}
			continue
		}
		if err := s.mergeInsert(t, a.at); err != nil {
			return err
		}
	}
	return nil
}

// mergeInsert checks the INSERT action at token i of a MERGE into t.
func (s *stmt) mergeInsert(t *TableDefaults, i int) error {
	j := i + 1
	var cols []string
	listed := s.punct(j, '(')
	if listed {
		var ok bool
		if cols, ok = s.columnList(j); !ok {
			return nil // the database decides
		}
		j = s.match[j] + 1
	}
	overriding, j := s.overridingAt(j)
	var values [][2]int // nil: DEFAULT VALUES
	switch {
	case s.is(j, "default") && s.is(j+1, "values"):
	case s.is(j, "values") && s.punct(j+1, '('):
		values = s.items(j + 1)
		if !listed {
			cols = t.Columns[:min(len(values), len(t.Columns))]
		}
		if len(cols) != len(values) {
			return nil // the database's error
		}
	default:
		return nil
	}
	for _, d := range t.Defaults {
		at := slices.IndexFunc(cols, d.is)
		switch {
		case at < 0 || values == nil || isDefault(s, values[at]):
			return mergePerRow(t, &d, "its INSERT action leaves column %s to its default")
		case d.Kind == sequence.IdentityAlways && overriding == "":
			return generatedAlways(d.base())
		case d.Kind.IsIdentity() && overriding == "user":
			return mergePerRow(t, &d, "OVERRIDING USER VALUE in its INSERT action draws identity column %s from its sequence")
		}
	}
	return nil
}

// mergeUpdate checks the UPDATE action whose SET is at token i of a MERGE
// into t.
func (s *stmt) mergeUpdate(t *TableDefaults, i int) error {
	for k := i + 1; k+2 < len(s.toks) && s.group[k] == s.group[i]; {
		c, ok := s.columnName(k)
		if !ok || !s.punct(k+1, '=') {
			return nil // (a, b) = …: the database decides
		}
		a := k + 2
		b := a
		for b < len(s.toks) && s.group[b] == s.group[i] && !s.punct(b, ',') && !s.is(b, "when") {
			if s.punct(b, '(') {
				b = s.match[b]
			}
			b++
		}
		if d := t.column(c); d != nil {
			switch {
			case b == a+1 && s.is(a, "default"):
				return mergePerRow(t, d, "its UPDATE action sets column %s to DEFAULT")
			case d.Kind == sequence.IdentityAlways:
				return updatedAlways(d.base())
			}
		}
		if !s.punct(b, ',') {
			return nil
		}
		k = b + 1
	}
	return nil
}

// mergePerRow is the 0A000 for a MERGE action on t that would draw d's
// default once per row; what is a format with the column's name.
func mergePerRow(t *TableDefaults, d *ColumnSequence, what string) error {
	return perRow("MERGE into %s: "+what+", which PostgreSQL draws from sequence %s for every row the action applies to, and seqshim serves once per statement: give the column a value in the action, or insert the rows with INSERT … VALUES",
		t.Table, sequence.QuoteIdent(d.Column), d.Sequence)
}
