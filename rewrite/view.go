package rewrite

// View is what seqshim reads of a view's definition, as PostgreSQL prints
// it (pg_get_viewdef): the one relation it selects from and which of that
// relation's columns each of its columns is. That is the shape of an
// automatically updatable view, through which PostgreSQL applies the base
// table's column defaults to an INSERT.
type View struct {
	// Base is the relation as the definition names it: regclass input,
	// resolved through the search_path of the session that printed it.
	Base string
	// Columns are the view's columns in order.
	Columns []ViewColumn
}

// ViewColumn is one column of a [View].
type ViewColumn struct {
	Name string // the view's column, as stored
	Base string // the base relation's column it is; "" for any other expression
}

// ParseView reads def, a view definition as pg_get_viewdef prints it. ok is
// false unless it is SELECT items FROM one relation, optionally ONLY,
// aliased, filtered by WHERE and ordered: anything else (a join, DISTINCT,
// GROUP BY, LIMIT, a set operation, a subquery in FROM, …) is a view
// PostgreSQL does not update automatically. (Neither does it update one
// whose items are aggregates, window functions or set-returning functions,
// which ParseView reads as expressions: pg_relation_is_updatable says.)
func ParseView(def string) (v View, ok bool) {
	l := lex(Postgres, def)
	if l.unreadable() {
		return View{}, false
	}
	sps := split(l)
	if len(sps) != 1 {
		return View{}, false
	}
	s := &stmt{l: l, sp: sps[0], toks: l.toks[sps[0].a:sps[0].b]}
	s.structure()
	if !s.is(0, "select") || s.is(1, "distinct") {
		return View{}, false
	}
	from := -1
	for i := 1; i < len(s.toks); i++ {
		if s.group[i] == 0 && s.is(i, "from") {
			from = i
			break
		}
	}
	if from < 0 {
		return View{}, false
	}
	for a, i := 1, 1; i <= from; i++ {
		if s.punct(i, '(') {
			i = s.match[i]
			continue
		}
		if i < from && !s.punct(i, ',') {
			continue
		}
		c, ok := s.viewColumn(a, i)
		if !ok {
			return View{}, false
		}
		v.Columns = append(v.Columns, c)
		a = i + 1
	}
	i := from + 1
	if s.is(i, "only") {
		i++
	}
	parts := s.chain(i)
	if parts == nil || len(parts) > 3 {
		return View{}, false
	}
	end := parts[len(parts)-1] + 1
	v.Base = l.s[s.tok(i).start:s.tok(end-1).end]
	if s.is(end, "as") {
		end++
	}
	if s.isName(end) && !s.is(end, "where") && !s.is(end, "order") {
		end++ // an alias
	}
	if end < len(s.toks) && !s.is(end, "where") && !s.is(end, "order") {
		return View{}, false // a join, GROUP BY, …
	}
	if end < len(s.toks) {
		for k := end; k < len(s.toks); k++ {
			if s.group[k] == 0 && (s.is(k, "group") || s.is(k, "having") || s.is(k, "limit") ||
				s.is(k, "offset") || s.is(k, "union") || s.is(k, "intersect") || s.is(k, "except") ||
				s.is(k, "window") || s.is(k, "fetch")) {
				return View{}, false
			}
		}
	}
	return v, len(v.Columns) > 0
}

// viewColumn reads the select item [a, b) of a view definition: a column
// reference, qualified by the one relation or not, with or without AS, or
// an expression, which must then be named by AS (PostgreSQL prints one).
func (s *stmt) viewColumn(a, b int) (ViewColumn, bool) {
	if b-a >= 2 && s.is(b-2, "as") {
		name, ok := s.columnName(b - 1)
		if !ok || name == "" {
			return ViewColumn{}, false // "" is no name: PostgreSQL refuses it
		}
		c, _ := s.columnRef(a, b-2)
		return ViewColumn{Name: name, Base: c}, true
	}
	c, ok := s.columnRef(a, b)
	return ViewColumn{Name: c, Base: c}, ok && c != ""
}

// columnRef returns the column [a, b) names, written c or r.c, or false.
func (s *stmt) columnRef(a, b int) (string, bool) {
	switch {
	case b == a+1:
		return s.columnName(a)
	case b == a+3 && s.isName(a) && s.punct(a+1, '.'):
		return s.columnName(a + 2)
	}
	return "", false
}
