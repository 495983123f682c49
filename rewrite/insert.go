package rewrite

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/seqshim/seqshim/sequence"
)

// Store-backed column defaults. A table column whose default draws from a
// store sequence (serial, identity, DEFAULT nextval; see
// sequence.ColumnDefault) has no default in the database. [InjectDefaults]
// makes the default explicit in the SQL the application sends: a column an
// INSERT leaves out, or writes DEFAULT for, gets a nextval call of its
// sequence, which the planner then serves like any written one — values
// bound as parameters, a fresh value per row and per execution,
// currval/lastval, read-only transactions, sequence DDL held by a
// transaction. The forms that would need one value per row of a query
// (INSERT … SELECT, COPY, UPDATE … SET c = DEFAULT) fail with 0A000.

// TableDefaults describes a table with store-backed column defaults, as
// [InjectDefaults] needs it.
type TableDefaults struct {
	// Table is the table's canonical name (sequence.FormatName).
	Table string
	// Defaults are its columns whose default draws from a store sequence.
	Defaults []ColumnSequence
	// Columns are the table's columns in order, as the database numbers
	// them; needed only for an INSERT without a column list.
	Columns []string
	// Native: the database draws these defaults itself (a temporary
	// table's: Sequence may be ""). InjectDefaults writes nothing for them
	// and refuses nothing, but sets Drawn when a statement leaves one of
	// them to its default or writes DEFAULT for it, and MayDraw when it
	// cannot tell (INSERT … SELECT without a column list: the query may
	// give fewer columns than the table has).
	Native, Drawn, MayDraw bool
	// View: Table is an automatically updatable view, and Defaults are its
	// columns that write a base table's column with a store default
	// (ColumnSequence.Base): PostgreSQL applies the base table's default
	// to a base column an INSERT through the view leaves out, but not to
	// an UPDATE's SET … = DEFAULT (that is NULL, or the view column's own
	// default), and COPY into a view fails.
	View bool
	// Unserved, for a view, is why seqshim cannot serve an INSERT through
	// it (a base column with a store default the view does not expose
	// simply): InjectDefaults fails every INSERT into it with 0A000 and
	// this message.
	Unserved string
}

// ColumnSequence is a column whose default draws from a store sequence.
type ColumnSequence struct {
	Column   string            // the column's name as stored
	Sequence string            // the sequence's canonical name
	Kind     sequence.Identity // DEFAULT nextval (serial), or identity
	Base     string            // for a view's column: the base table's column it writes, which PostgreSQL's errors name
	Also     []string          // for a view's column: the view's other columns that write Base too
}

// is reports whether c, a column an INSERT or UPDATE names, is d's.
func (d *ColumnSequence) is(c string) bool { return c == d.Column || slices.Contains(d.Also, c) }

// base is the name PostgreSQL's errors give the column: the base table's,
// through a view.
func (d *ColumnSequence) base() string {
	if d.Base != "" {
		return d.Base
	}
	return d.Column
}

// column returns the default of column c, or nil.
func (t *TableDefaults) column(c string) *ColumnSequence {
	for i := range t.Defaults {
		if t.Defaults[i].is(c) {
			return &t.Defaults[i]
		}
	}
	return nil
}

// TableLookup returns the store-backed defaults of table (a canonical name;
// unqualified when written without a schema, for the front end to resolve
// through the search_path), or nil when it has none. columns says whether
// the caller needs TableDefaults.Columns.
type TableLookup func(table string, unqualified, columns bool) (*TableDefaults, error)

// InjectDefaults returns sql with the store-backed column defaults of its
// INSERT statements written out as nextval calls, and whether it changed
// anything. lookup says which tables have such defaults; it is called once
// per INSERT, UPDATE, MERGE or COPY target. Errors are PostgreSQL's for an
// explicit value in a GENERATED ALWAYS column (428C9), and 0A000 for the
// forms seqshim cannot serve; a text it cannot read is returned unchanged
// (the database reports its errors).
func InjectDefaults(d Dialect, sql string, lookup TableLookup) (string, bool, error) {
	if d != Postgres || strings.IndexByte(sql, 0) >= 0 || !utf8.ValidString(sql) {
		return sql, false, nil // PostgreSQL refuses the last two whole
	}
	l := lex(d, sql)
	if l.unreadable() {
		return sql, false, nil
	}
	var edits []insertEdit
	for _, sp := range split(l) {
		s := &stmt{l: l, sp: sp, toks: l.toks[sp.a:sp.b]}
		s.structure()
		e, err := s.injectDefaults(lookup)
		if err != nil {
			return sql, false, err
		}
		for i := range e {
			e[i].at += sp.a
			if e[i].through > 0 {
				e[i].through += sp.a
			}
		}
		edits = append(edits, e...)
	}
	if len(edits) == 0 {
		return sql, false, nil
	}
	span := func(e insertEdit) (start, end int) {
		t := l.toks[e.at]
		switch {
		case e.replace:
			return t.start, l.toks[max(e.at, e.through)].end
		case e.after:
			return t.end, t.end
		}
		return t.start, t.start
	}
	slices.SortStableFunc(edits, func(a, b insertEdit) int {
		sa, _ := span(a)
		sb, _ := span(b)
		return sa - sb
	})
	var b strings.Builder
	b.Grow(len(sql) + 40*len(edits))
	pos := 0
	for _, e := range edits {
		start, end := span(e)
		b.WriteString(sql[pos:start])
		b.WriteString(e.text)
		pos = end
	}
	b.WriteString(sql[pos:])
	return b.String(), true, nil
}

// insertEdit is a change of the text at a token (an index in the whole text's
// tokens once InjectDefaults collected it): text inserted before it, after
// it, or in its place.
type insertEdit struct {
	at             int
	text           string
	after, replace bool
	through        int // replace: the last token replaced, if after at
}

// injectDefaults finds the INSERT, UPDATE and COPY statements of s (an
// INSERT may be the body of a WITH query) and returns their edits, in
// text order.
func (s *stmt) injectDefaults(lookup TableLookup) ([]insertEdit, error) {
	var edits []insertEdit
	for i := range s.toks {
		switch {
		case s.is(i, "insert") && s.is(i+1, "into") && s.startsQuery(i):
			e, err := s.injectInsert(i, lookup)
			if err != nil {
				return nil, err
			}
			edits = append(edits, e...)
		case s.is(i, "update") && s.startsQuery(i):
			if err := s.checkUpdate(i, lookup); err != nil {
				return nil, err
			}
		case s.is(i, "merge") && s.startsQuery(i):
			e, err := s.mergeEdits(i, lookup)
			if err != nil {
				return nil, err
			}
			edits = append(edits, e...)
		case i == 0 && s.is(i, "copy"):
			if err := s.checkCopy(i, lookup); err != nil {
				return nil, err
			}
		}
	}
	return edits, nil
}

// startsQuery reports whether token i starts a query: the statement's
// first token, the body of a WITH query (after '('), or the main query
// after a WITH list (after ')').
func (s *stmt) startsQuery(i int) bool {
	return i == 0 || s.punct(i-1, '(') || s.punct(i-1, ')')
}

// target reads a table name at token i: its canonical name, whether it was
// unqualified, and the token after it.
func (s *stmt) target(i int) (string, bool, int, bool) {
	if s.is(i, "only") {
		i++
	}
	parts := s.chain(i)
	if parts == nil || len(parts) > 2 {
		return "", false, i, false
	}
	name, unqualified, err := s.identName(parts)
	if err != nil {
		return "", false, i, false
	}
	return name, unqualified, parts[len(parts)-1] + 1, true
}

// columnName is the identifier at token i as PostgreSQL stores it.
func (s *stmt) columnName(i int) (string, bool) {
	switch s.tok(i).kind {
	case tIdent:
		return strings.ToLower(s.text(i)), true
	case tQIdent:
		if t := s.text(i); t[0] == '"' {
			return strings.ReplaceAll(t[1:len(t)-1], `""`, `"`), true
		}
	}
	return "", false
}

// items splits the parenthesised group opened at token open at its
// top-level commas ([stmt.args]); nil when it is not closed.
func (s *stmt) items(open int) [][2]int {
	close := s.match[open]
	if close >= len(s.toks) {
		return nil
	}
	return s.args(open, close)
}

// columnList reads the column list opened at token open: the columns as
// stored; false for one the database decides (c.field, c[1]).
func (s *stmt) columnList(open int) ([]string, bool) {
	var cols []string
	for _, it := range s.items(open) {
		c, ok := s.columnName(it[0])
		if !ok || it[1] != it[0]+1 {
			return nil, false
		}
		cols = append(cols, c)
	}
	return cols, true
}

// overridingAt reads OVERRIDING {SYSTEM | USER} VALUE at token j: "system",
// "user", or "" when there is none, and the token after it.
func (s *stmt) overridingAt(j int) (string, int) {
	if s.is(j, "overriding") && (s.is(j+1, "system") || s.is(j+1, "user")) && s.is(j+2, "value") {
		return strings.ToLower(s.text(j + 1)), j + 3
	}
	return "", j
}

// injectInsert plans the edits of the INSERT at token i.
func (s *stmt) injectInsert(i int, lookup TableLookup) ([]insertEdit, error) {
	table, unqualified, j, ok := s.target(i + 2)
	if !ok {
		return nil, nil
	}
	afterTable := j - 1 // a column list, if added, goes after the table (or its alias)
	if s.is(j, "as") {
		afterTable, j = j+1, j+2
	}
	var cols []string
	listOpen := -1
	if s.punct(j, '(') && !s.is(j+1, "select") && !s.is(j+1, "values") && !s.is(j+1, "with") && !s.is(j+1, "table") {
		listOpen = j
		if cols, ok = s.columnList(j); !ok {
			return nil, nil
		}
		j = s.match[j] + 1
	}
	overriding, j := s.overridingAt(j)
	var source int // 0: DEFAULT VALUES, 1: VALUES, 2: a query
	switch {
	case s.is(j, "default") && s.is(j+1, "values"):
	case s.is(j, "values"):
		source = 1
	default:
		source = 2
	}
	t, err := lookup(table, unqualified, listOpen < 0 && source == 1)
	if err == nil && t != nil && t.Unserved != "" {
		err = unsupported("%s", t.Unserved)
	}
	if err != nil || t == nil || len(t.Defaults) == 0 {
		return nil, err // none: DEFAULT VALUES would become () VALUES ()
	}
	if t.Native {
		if source == 2 && listOpen < 0 && overriding != "user" {
			t.MayDraw = true
		} else {
			t.Drawn = t.Drawn || s.drawsNative(t, j, source, listOpen, cols, overriding)
		}
		return nil, nil
	}
	if source == 2 {
		return s.injectSelect(t, j, listOpen, cols, overriding)
	}
	return s.injectValues(t, j, source, listOpen, afterTable, cols, overriding)
}

// injectSelect plans the edits of an INSERT into t whose source at token j
// is a query, its column list cols opened at listOpen (-1: none). A store
// default it leaves out is drawn per row of the query in PostgreSQL: seqshim
// refuses that (0A000), unless the query is a SELECT without FROM that
// gives one row at most (INSERT … SELECT $1 WHERE NOT EXISTS (…), the
// insert-if-absent idiom), whose select list then gets the nextval calls.
func (s *stmt) injectSelect(t *TableDefaults, j, listOpen int, cols []string, overriding string) ([]insertEdit, error) {
	if j >= len(s.toks) || s.punct(j, ')') {
		return nil, nil // no source: the database's syntax error
	}
	var missing []*ColumnSequence
	for k := range t.Defaults {
		d := &t.Defaults[k]
		switch {
		case listOpen < 0 || !slices.ContainsFunc(cols, d.is):
			missing = append(missing, d)
		case d.Kind == sequence.IdentityAlways && overriding == "":
			return nil, generatedAlways(d.base())
		case d.Kind.IsIdentity() && overriding == "user":
			return nil, perRow("INSERT … OVERRIDING USER VALUE SELECT into %s draws column %s from sequence %s for every row, which seqshim serves once per statement: leave the column out of a VALUES insert instead",
				t.Table, sequence.QuoteIdent(d.Column), d.Sequence)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	end := len(s.toks)
	if g := s.group[j]; g != 0 {
		end = s.grps[g].close
	}
	listEnd, one := 0, false
	if listOpen >= 0 && s.is(j, "select") {
		listEnd, one = s.oneRowSelect(j, end)
	}
	if !one {
		d := missing[0]
		return nil, perRow("INSERT … SELECT into %s leaves column %s to its default, which seqshim draws from sequence %s once per statement, not per row: list the columns and insert with VALUES, or select nextval('%s') in the query (SELECT nextval('%s') FROM generate_series(1, n) is served)",
			t.Table, sequence.QuoteIdent(d.Column), d.Sequence, d.Sequence, d.Sequence)
	}
	var names, values strings.Builder
	for _, m := range missing {
		names.WriteString(", " + sequence.QuoteIdent(m.Column))
		values.WriteString(", " + nextvalText(m.Sequence))
	}
	edits := []insertEdit{
		{at: s.match[listOpen], text: names.String()},
		{at: listEnd - 1, text: values.String(), after: true},
	}
	if needsSystemValue(t.Defaults, overriding) && overriding == "" {
		edits = append(edits, insertEdit{at: j, text: "OVERRIDING SYSTEM VALUE "})
	}
	return edits, nil
}

// oneRowSelect reads the SELECT at token sel, which ends before token end:
// whether it gives one row at most — no FROM, no set operation, no function
// in its select list (a set-returning one would give rows) — and the token
// after its select list.
func (s *stmt) oneRowSelect(sel, end int) (listEnd int, ok bool) {
	g := s.group[sel]
	listEnd = end
	for k := sel + 1; k < end; k++ {
		switch {
		case s.group[k] != g:
		case s.isAny(k, "from", "union", "intersect", "except"):
			return 0, false
		case k >= listEnd:
		case s.isAny(k, "where", "group", "having", "window", "order", "limit", "offset", "fetch", "for", "on", "returning"):
			listEnd = k
		case s.isName(k) && s.punct(k+1, '('):
			return 0, false
		}
	}
	return listEnd, listEnd > sel+1
}

// injectValues plans the edits of an INSERT into t (or a MERGE's INSERT
// action) whose source at token j is DEFAULT VALUES (source 0) or VALUES
// rows (1): its column list cols is opened at listOpen (-1: none, and one
// added goes after token afterTable), overriding is its OVERRIDING.
func (s *stmt) injectValues(t *TableDefaults, j, source, listOpen, afterTable int, cols []string, overriding string) ([]insertEdit, error) {
	if source == 0 {
		// DEFAULT VALUES: every store default, in the table's order.
		var names, values []string
		for _, d := range t.Defaults {
			names = append(names, sequence.QuoteIdent(d.Column))
			values = append(values, nextvalText(d.Sequence))
		}
		overrides := ""
		if needsSystemValue(t.Defaults, overriding) && overriding == "" {
			overrides = " OVERRIDING SYSTEM VALUE"
		}
		edits := []insertEdit{{at: j, through: j + 1, text: "(" + strings.Join(names, ", ") + ")" + overrides + " VALUES (" + strings.Join(values, ", ") + ")", replace: true}}
		if overriding == "user" && needsSystemValue(t.Defaults, overriding) {
			edits = append([]insertEdit{{at: j - 2, text: "SYSTEM", replace: true}}, edits...)
		}
		return edits, nil
	}

	// VALUES rows.
	var rows []int // '(' of each row
	for k := j + 1; s.punct(k, '('); k = s.match[k] + 2 {
		rows = append(rows, k)
		if !s.punct(s.match[k]+1, ',') {
			break
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	width := len(s.items(rows[0]))
	if width == 0 {
		return nil, nil // the database's error: VALUES ()
	}
	if listOpen < 0 {
		if len(t.Columns) == 0 {
			return nil, nil
		}
		cols = t.Columns[:min(width, len(t.Columns))]
	}
	if len(cols) != width {
		return nil, nil // the database's error: more, or fewer, expressions than columns
	}
	var missing []*ColumnSequence // store defaults the INSERT leaves out
	given := make([]*ColumnSequence, len(cols))
	for k := range t.Defaults {
		d := &t.Defaults[k]
		at := -1
		for c := range cols {
			if d.is(cols[c]) {
				at = c
			}
		}
		if at < 0 {
			missing = append(missing, d)
		} else {
			given[at] = d
		}
	}
	var edits []insertEdit
	if len(missing) > 0 {
		var b strings.Builder
		if listOpen < 0 {
			b.WriteString(" (")
			for k, c := range cols {
				if k > 0 {
					b.WriteString(", ")
				}
				b.WriteString(sequence.QuoteIdent(c))
			}
		}
		for _, m := range missing {
			if listOpen >= 0 || len(cols) > 0 {
				b.WriteString(", ")
			}
			b.WriteString(sequence.QuoteIdent(m.Column))
		}
		if listOpen < 0 {
			b.WriteString(")")
			edits = append(edits, insertEdit{at: afterTable, text: b.String(), after: true})
		} else {
			edits = append(edits, insertEdit{at: s.match[listOpen], text: b.String()})
		}
	}
	// Check every row before any value is drawn, as PostgreSQL's rewriter
	// does.
	for _, open := range rows {
		items := s.items(open)
		if len(items) != width {
			return nil, nil // the database's error: VALUES lists of different lengths
		}
		for _, it := range items {
			if it[1] == it[0] {
				return nil, nil // the database's error: VALUES (1, )
			}
		}
		for k, it := range items {
			d := given[k]
			if d == nil || isDefault(s, it) {
				continue
			}
			if d.Kind == sequence.IdentityAlways && overriding == "" {
				return nil, generatedAlways(d.base())
			}
		}
	}
	for _, open := range rows {
		items := s.items(open)
		for k, it := range items {
			d := given[k]
			switch {
			case d == nil:
			case isDefault(s, it):
				edits = append(edits, insertEdit{at: it[0], text: nextvalText(d.Sequence), replace: true})
			case overriding == "user" && d.Kind.IsIdentity():
				// PostgreSQL ignores the value written: so does the text
				// sent, which has the default in its place.
				for k := it[0]; k < it[1]; k++ {
					if t := s.tok(k).kind; t == tParam || t == tNamedParam {
						return nil, perRow("OVERRIDING USER VALUE ignores the parameter given for identity column %s, which the database would then not know: leave the column out, or write DEFAULT for it", sequence.QuoteIdent(d.Column))
					}
				}
				edits = append(edits, insertEdit{at: it[0], through: it[1] - 1, text: nextvalText(d.Sequence), replace: true})
			}
		}
		if len(missing) > 0 {
			var b strings.Builder
			for _, m := range missing {
				b.WriteString(", ")
				b.WriteString(nextvalText(m.Sequence))
			}
			edits = append(edits, insertEdit{at: s.match[open], text: b.String()})
		}
	}
	// The values written for identity columns must reach a column that is
	// an identity in the database too (one imported from a live schema):
	// OVERRIDING SYSTEM VALUE, which PostgreSQL accepts for any table.
	if len(edits) > 0 && needsSystemValue(t.Defaults, overriding) {
		switch overriding {
		case "":
			edits = append(edits, insertEdit{at: j, text: "OVERRIDING SYSTEM VALUE "})
		case "user":
			edits = append(edits, insertEdit{at: j - 2, text: "SYSTEM", replace: true})
		}
	}
	return edits, nil
}

// drawsNative reports whether the INSERT whose source (0: DEFAULT VALUES,
// 1: VALUES, 2: a query with a column list) starts at token j evaluates a
// default of t, a table whose defaults the database draws: a column left
// out or written DEFAULT, or an identity column whose value OVERRIDING
// USER VALUE ignores. Without a column list, a VALUES row shorter than the
// table leaves the columns after it to their defaults (t.Columns says
// which).
func (s *stmt) drawsNative(t *TableDefaults, j, source, listOpen int, cols []string, overriding string) bool {
	switch {
	case source == 0:
		return true
	case source == 1 && listOpen < 0:
		var rows []int
		for k := j + 1; s.punct(k, '('); k = s.match[k] + 2 {
			rows = append(rows, k)
			if !s.punct(s.match[k]+1, ',') {
				break
			}
		}
		if len(rows) == 0 {
			return false
		}
		cols = t.Columns[:min(len(s.items(rows[0])), len(t.Columns))]
	}
	given := map[string]int{}
	for k, c := range cols {
		given[c] = k
	}
	for _, d := range t.Defaults {
		k, ok := given[d.Column]
		if !ok || overriding == "user" {
			return true // left out; or its value ignored for the default (for a column that is not an identity, the database then draws nothing: taken to draw)
		}
		if source != 1 {
			continue
		}
		for r := j + 1; s.punct(r, '('); r = s.match[r] + 2 {
			if items := s.items(r); k < len(items) && isDefault(s, items[k]) {
				return true
			}
			if !s.punct(s.match[r]+1, ',') {
				break
			}
		}
	}
	return false
}

// needsSystemValue reports whether an INSERT giving values to the columns
// defs, with OVERRIDING overriding ("", "system" or "user"), must say
// OVERRIDING SYSTEM VALUE for a database whose columns are identities:
// an ALWAYS identity refuses values without it, and OVERRIDING USER VALUE
// would make the database ignore them.
func needsSystemValue(defs []ColumnSequence, overriding string) bool {
	for _, d := range defs {
		switch {
		case d.Kind == sequence.IdentityAlways && overriding != "system":
			return true
		case d.Kind == sequence.IdentityByDefault && overriding == "user":
			return true
		}
	}
	return false
}

// isDefault reports whether the item [it[0], it[1]) is the word DEFAULT.
func isDefault(s *stmt, it [2]int) bool { return it[1] == it[0]+1 && s.is(it[0], "default") }

// nextvalText is a nextval call of sequence name (canonical), schema
// written out so that no search_path changes which sequence it is.
func nextvalText(name string) string {
	schema, rel := sequence.SplitName(name)
	if schema == "" {
		schema = sequence.DefaultSchema
	}
	lit := sequence.QuoteIdent(schema) + "." + sequence.QuoteIdent(rel)
	return "nextval('" + strings.ReplaceAll(lit, "'", "''") + "')"
}

// generatedAlways is PostgreSQL's error for a value written into a
// GENERATED ALWAYS identity column.
func generatedAlways(column string) error {
	return &sequence.Error{Code: codeGeneratedAlways, Kind: sequence.ErrInvalid,
		Message: `cannot insert a non-DEFAULT value into column "` + column + `"`,
		Detail:  `Column "` + column + `" is an identity column defined as GENERATED ALWAYS.`,
		Hint:    "Use OVERRIDING SYSTEM VALUE to override."}
}

// codeGeneratedAlways is PostgreSQL's generated_always.
const codeGeneratedAlways = "428C9"

// checkUpdate refuses UPDATE … SET c = DEFAULT for a column with a store
// default (one value per row), and a value other than DEFAULT for a
// GENERATED ALWAYS identity column, as PostgreSQL does.
func (s *stmt) checkUpdate(i int, lookup TableLookup) error {
	table, unqualified, j, ok := s.target(i + 1)
	if !ok {
		return nil
	}
	if s.is(j, "as") {
		j += 2
	} else if s.tok(j).kind == tIdent && !s.is(j, "set") {
		j++ // an alias
	}
	if !s.is(j, "set") {
		return nil
	}
	g := s.group[j]
	end := len(s.toks)
	for k := j + 1; k < len(s.toks); k++ {
		if s.group[k] == g && (s.is(k, "from") || s.is(k, "where") || s.is(k, "returning")) {
			end = k
			break
		}
	}
	type set struct {
		col      string
		defaults bool
	}
	var sets []set
	for k := j + 1; k < end; {
		c, ok := s.columnName(k)
		if !ok {
			return nil // (a, b) = …: the database decides
		}
		if !s.punct(k+1, '=') {
			return nil
		}
		a := k + 2
		b := a
		for b < end && !(s.punct(b, ',') && s.group[b] == g) {
			if s.punct(b, '(') {
				b = s.match[b]
			}
			b++
		}
		sets = append(sets, set{c, b == a+1 && s.is(a, "default")})
		k = b + 1
	}
	t, err := lookup(table, unqualified, false)
	if err != nil || t == nil {
		return err
	}
	if t.Native {
		for _, st := range sets {
			t.Drawn = t.Drawn || st.defaults && t.column(st.col) != nil
		}
		return nil
	}
	for _, st := range sets {
		d := t.column(st.col)
		switch {
		case d == nil:
		case st.defaults && t.View:
			// Through a view, DEFAULT is the view column's default, NULL
			// without one: not the base table's, which seqshim serves.
			if d.Kind == sequence.IdentityAlways {
				return updatedAlways(d.base())
			}
		case st.defaults:
			return perRow("UPDATE … SET %s = DEFAULT draws one value per row from sequence %s, which seqshim serves once per statement: set it to nextval('%s') row by row, or update one row at a time",
				sequence.QuoteIdent(st.col), d.Sequence, d.Sequence)
		case d.Kind == sequence.IdentityAlways:
			return updatedAlways(d.base())
		}
	}
	return nil
}

// updatedAlways is PostgreSQL's error for an UPDATE that sets a GENERATED
// ALWAYS identity column to a value.
func updatedAlways(column string) error {
	return &sequence.Error{Code: codeGeneratedAlways, Kind: sequence.ErrInvalid,
		Message: `column "` + column + `" can only be updated to DEFAULT`,
		Detail:  `Column "` + column + `" is an identity column defined as GENERATED ALWAYS.`}
}

// checkCopy refuses COPY t FROM a source with a column list that leaves out
// a column with a store default: each row would need a value.
func (s *stmt) checkCopy(i int, lookup TableLookup) error {
	table, unqualified, j, ok := s.target(i + 1)
	if !ok {
		return nil
	}
	var cols []string
	if s.punct(j, '(') {
		for _, it := range s.items(j) {
			c, ok := s.columnName(it[0])
			if !ok {
				return nil
			}
			cols = append(cols, c)
		}
		j = s.match[j] + 1
	}
	if !s.is(j, "from") || cols == nil {
		return nil // COPY t TO, or every column given
	}
	t, err := lookup(table, unqualified, false)
	if err != nil || t == nil || t.View {
		return err // COPY into a view: the database's error
	}
	for _, d := range t.Defaults {
		if t.Native {
			t.Drawn = t.Drawn || !slices.Contains(cols, d.Column)
			continue
		}
		found := false
		for _, c := range cols {
			found = found || c == d.Column
		}
		if !found {
			return perRow("COPY %s FROM leaves column %s to its default, which seqshim draws from sequence %s and cannot draw per row of a COPY: include the column in the COPY with values drawn with SELECT nextval('%s') FROM generate_series(1, n), or insert with VALUES",
				t.Table, sequence.QuoteIdent(d.Column), d.Sequence, d.Sequence)
		}
	}
	return nil
}

// perRow is the 0A000 of a column default seqshim cannot draw per row.
func perRow(format string, args ...any) error { return unsupported("seqshim: "+format, args...) }
