package rewrite

import (
	"slices"

	"github.com/seqshim/seqshim/sequence"
)

// mergeEdits plans the MERGE at token i against the store-backed column
// defaults of its target. PostgreSQL evaluates the defaults of a MERGE's
// INSERT action, and the DEFAULT of its UPDATE action, once per row the
// action applies to. From a source of one row (one VALUES row, or a
// SELECT without FROM of constants and parameters: at most one row) an
// INSERT action gets them written out as an INSERT … VALUES does (a value
// drawn for a row that matched is a gap); from any other source seqshim,
// which draws once per statement, refuses such an action with 0A000, and
// an UPDATE action's DEFAULT always. What PostgreSQL refuses when it reads
// the statement is refused likewise (428C9: a value for a GENERATED ALWAYS
// column without OVERRIDING SYSTEM VALUE). The rest — every store default
// given a value — goes to the database as written.
func (s *stmt) mergeEdits(i int, lookup TableLookup) ([]insertEdit, error) {
	if !s.is(i+1, "into") {
		return nil, nil
	}
	table, unqualified, j, ok := s.target(i + 2)
	if !ok {
		return nil, nil
	}
	one := s.oneRowSource(j)
	var actions []int // each action's INSERT or UPDATE
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
		actions = append(actions, k+1)
	}
	if len(actions) == 0 {
		return nil, nil
	}
	t, err := lookup(table, unqualified, columns)
	if err != nil || t == nil || t.View || len(t.Defaults) == 0 {
		return nil, err // MERGE into a view: the database's error
	}
	if t.Native {
		t.Drawn = true // the database draws its temporary table's defaults: lastval may be its
		return nil, nil
	}
	var edits []insertEdit
	for _, a := range actions {
		if s.is(a, "update") {
			if err := s.mergeUpdate(t, a+1); err != nil {
				return nil, err
			}
			continue
		}
		e, err := s.mergeInsert(t, a, one)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e...)
	}
	return edits, nil
}

// oneRowSource reports whether the MERGE source after its target, from
// token j (the target's alias, or USING), gives at most one row: VALUES
// with one row, or a SELECT without FROM whose select list calls no
// function (a set-returning one would give rows).
func (s *stmt) oneRowSource(j int) bool {
	for j < len(s.toks) && !s.is(j, "using") {
		j++
	}
	open := j + 1
	if !s.punct(open, '(') {
		return false // a table or a view
	}
	close := s.match[open]
	switch {
	case s.is(open+1, "values"):
		return s.punct(open+2, '(') && s.match[open+2]+1 == close
	case s.is(open+1, "select"):
		_, one := s.oneRowSelect(open+1, close)
		return one
	}
	return false
}

// mergeInsert plans the INSERT action at token i of a MERGE into t, whose
// source gives one row at most when one is true.
func (s *stmt) mergeInsert(t *TableDefaults, i int, one bool) ([]insertEdit, error) {
	j := i + 1
	var cols []string
	listed := s.punct(j, '(')
	listOpen := -1
	if listed {
		var ok bool
		if cols, ok = s.columnList(j); !ok {
			return nil, nil // the database decides
		}
		listOpen, j = j, s.match[j]+1
	}
	overriding, j := s.overridingAt(j)
	var values [][2]int // nil: DEFAULT VALUES
	source := 0
	switch {
	case s.is(j, "default") && s.is(j+1, "values"):
	case s.is(j, "values") && s.punct(j+1, '('):
		values, source = s.items(j+1), 1
		if !listed {
			cols = t.Columns[:min(len(values), len(t.Columns))]
		}
		if len(cols) != len(values) {
			return nil, nil // the database's error
		}
	default:
		return nil, nil
	}
	if one {
		return s.injectValues(t, j, source, listOpen, i, cols, overriding)
	}
	for _, d := range t.Defaults {
		at := slices.IndexFunc(cols, d.is)
		switch {
		case at < 0 || values == nil || isDefault(s, values[at]):
			return nil, mergePerRow(t, &d, "its INSERT action leaves column %s to its default")
		case d.Kind == sequence.IdentityAlways && overriding == "":
			return nil, generatedAlways(d.base())
		case d.Kind.IsIdentity() && overriding == "user":
			return nil, mergePerRow(t, &d, "OVERRIDING USER VALUE in its INSERT action draws identity column %s from its sequence")
		}
	}
	return nil, nil
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
	return perRow("MERGE into %s: "+what+", which PostgreSQL draws from sequence %s for every row the action applies to, and seqshim serves once per statement: give the column a value in the action, merge one row at a time (USING (VALUES (…)) with one row is served), or insert the rows with INSERT … VALUES",
		t.Table, sequence.QuoteIdent(d.Column), d.Sequence)
}
