package rewrite

import (
	"github.com/seqshim/seqshim/sequence"
)

// alterTableDDL plans ALTER TABLE [IF EXISTS] [ONLY] name with subcommands
// that concern sequence defaults.
func (s *stmt) alterTableDDL(st *Statement) bool {
	i := 2
	t := &TableDDL{Op: TableAlter, text: st.Text}
	if s.is(i, "if") && s.is(i+1, "exists") {
		t.IfExists, i = true, i+2
	}
	paren := false
	if s.is(i, "only") {
		t.Only, i = true, i+1
		if s.punct(i, '(') {
			paren, i = true, i+1
		}
	}
	name, unqualified, i, err := s.ddlName(i)
	if err != nil {
		return false
	}
	if paren {
		if !s.punct(i, ')') {
			return false
		}
		i++
	}
	if !t.Only && s.punct(i, '*') {
		i++
	}
	t.Names, t.Unqualified = []string{name}, []bool{unqualified}
	n := len(s.toks)
	if i >= n {
		return false
	}
	var errs tableErrs
	var covered [][2]int
	switch {
	case s.is(i, "rename"):
		c, ok := s.renameCmd(i, name)
		if !ok {
			return false
		}
		t.Cmds = []TableCmd{c}
	case s.is(i, "set") && s.is(i+1, "schema"):
		if !s.isName(i+2) || i+3 != n {
			return false
		}
		schema, err := s.colName(i + 2)
		if err != nil {
			return false
		}
		t.Cmds = []TableCmd{{Action: SetSchema, NewName: schema, Start: s.off(i), End: s.offEnd(n - 1)}}
	default:
		s.elements(i, n, func(a, b int) {
			t.Cmds = append(t.Cmds, s.tableCmd(a, b, name, &errs, &covered))
		})
	}
	if done, ours := s.syntaxOrUncovered(st, &errs, covered); done {
		return ours
	}
	relevant := false
	for k := range t.Cmds {
		switch c := &t.Cmds[k]; c.Action {
		case OtherCmd, SetNotNull: // SET NOT NULL matters only to the others
		case AddColumn:
			relevant = relevant || c.Def.Default != nil
		default:
			relevant = true
		}
	}
	if !relevant {
		return false
	}
	if err := errs.first(); err != nil {
		st.Kind, st.Err = Reject, err
		return true
	}
	cat := s.catalog()
	if cat == nil {
		cat = &Catalog{Op: ColumnDefaults}
	}
	st.Kind, st.Catalog, st.Table = CatalogDDL, cat, t
	return true
}

// renameCmd reads RENAME TO new and RENAME [COLUMN] a TO b from token i to
// the end of the statement.
func (s *stmt) renameCmd(i int, table string) (TableCmd, bool) {
	n := len(s.toks)
	c := TableCmd{Start: s.off(i), End: s.offEnd(n - 1)}
	j := i + 1
	switch {
	case s.is(j, "to"):
		if !s.isName(j+1) || j+2 != n {
			return c, false
		}
		to, _, err := s.identName([]int{j + 1})
		if err != nil {
			return c, false
		}
		c.Action, c.NewName = RenameTable, renamed(table, to)
		return c, true
	case s.is(j, "constraint"):
		return c, false
	}
	if s.is(j, "column") {
		j++
	}
	if !s.isName(j) || !s.is(j+1, "to") || !s.isName(j+2) || j+3 != n {
		return c, false
	}
	from, err := s.colName(j)
	if err != nil {
		return c, false
	}
	to, err := s.colName(j + 2)
	if err != nil {
		return c, false
	}
	c.Action, c.Column, c.NewName = RenameColumn, from, to
	return c, true
}

// seqOptWords are the sequence options of PostgreSQL's grammar (SeqOptElem):
// ALTER [COLUMN] c SET option is an identity's.
var seqOptWords = []string{"as", "cache", "cycle", "increment", "maxvalue", "minvalue", "no", "owned",
	"restart", "sequence", "start", "logged", "unlogged"}

// tableCmd reads one ALTER TABLE subcommand, tokens [a, b).
func (s *stmt) tableCmd(a, b int, table string, errs *tableErrs, covered *[][2]int) TableCmd {
	if a == b {
		errs.note(phaseSyntax, s.syntaxAt(b)) // ALTER TABLE t ADD c int,, …
		return TableCmd{}
	}
	c := TableCmd{Start: s.off(a), End: s.offEnd(b - 1)}
	switch {
	case s.is(a, "add"):
		j := a + 1
		if s.is(j, "column") {
			j++
		} else if s.constraintStart(j) {
			return c
		}
		ifNotExists := false
		if s.is(j, "if") && s.is(j+1, "not") && s.is(j+2, "exists") {
			ifNotExists, j = true, j+3
		}
		// PostgreSQL checks that the column is new (IF NOT EXISTS skips
		// it) before it analyses the definition: only syntax errors come
		// first.
		var defErrs tableErrs
		def, ok := s.columnDef(j, b, false, table, &defErrs, covered)
		errs.note(phaseSyntax, defErrs[phaseSyntax])
		if ok {
			c.Action, c.Def, c.Column, c.IfNotExists = AddColumn, &def, def.Name, ifNotExists
			defErrs[phaseSyntax] = nil
			c.Err = defErrs.first()
		}
	case s.is(a, "alter"):
		j := a + 1
		if s.is(j, "column") {
			j++
		} else if s.is(j, "constraint") {
			return c
		}
		if !s.isName(j) {
			return c // ALTER [COLUMN] 3 SET STATISTICS …
		}
		col, err := s.colName(j)
		if err != nil {
			errs.note(phaseSyntax, err)
			return c
		}
		c.Column = col
		s.alterColumn(&c, j+1, b, errs, covered)
	case s.is(a, "drop"):
		j := a + 1
		if s.is(j, "constraint") {
			return c
		}
		if s.is(j, "column") {
			j++
		}
		ifExists := false
		if s.is(j, "if") && s.is(j+1, "exists") {
			ifExists, j = true, j+2
		}
		if !s.isName(j) {
			return c
		}
		col, err := s.colName(j)
		if err != nil {
			return c
		}
		j++
		cascade := s.is(j, "cascade")
		if s.isAny(j, "cascade", "restrict") {
			j++
		}
		if j == b {
			c.Action, c.Column, c.IfExists, c.Cascade = DropColumn, col, ifExists, cascade
		}
	}
	return c
}

// alterColumn reads what follows ALTER [COLUMN] c, tokens [j, b).
func (s *stmt) alterColumn(c *TableCmd, j, b int, errs *tableErrs, covered *[][2]int) {
	switch {
	case s.is(j, "set") && s.is(j+1, "default"):
		if j+2 >= b {
			errs.note(phaseSyntax, s.syntaxAt(b))
			return
		}
		c.Action = SetDefault
		if d, err, isNext := s.nextvalDefault(j+2, b); isNext {
			errs.note(phaseAnalysis, err)
			c.Default = d
			*covered = append(*covered, [2]int{j + 2, b})
		}
	case s.is(j, "drop") && s.is(j+1, "default"):
		if j+2 != b {
			errs.note(phaseSyntax, s.syntaxAt(j+2))
			return
		}
		c.Action = DropDefault
	case s.is(j, "drop") && s.is(j+1, "not") && s.is(j+2, "null"):
		if j+3 != b {
			errs.note(phaseSyntax, s.syntaxAt(j+3))
			return
		}
		c.Action = DropNotNull
	case s.is(j, "set") && s.is(j+1, "not") && s.is(j+2, "null") && j+3 == b:
		c.Action = SetNotNull
	case s.is(j, "add") && s.is(j+1, "generated"):
		kind, open, end := s.identityClause(j+1, b, errs)
		if end < 0 {
			return
		}
		if end != b {
			errs.note(phaseSyntax, s.syntaxAt(end))
			return
		}
		d := &DefaultDef{Kind: kind}
		errs.note(phaseSequence, s.identityOptions(open, &identOpts{create: true}, d, errs))
		c.Action, c.Default = AddIdentity, d
	case s.is(j, "drop") && s.is(j+1, "identity"):
		k := j + 2
		ifExists := s.is(k, "if") && s.is(k+1, "exists")
		if ifExists {
			k += 2
		}
		if k != b {
			errs.note(phaseSyntax, s.syntaxAt(k))
			return
		}
		c.Action, c.IfExists = DropIdentity, ifExists
	case s.is(j, "type"), s.is(j, "set") && s.is(j+1, "data") && s.is(j+2, "type"):
		k := j + 1
		if !s.is(j, "type") {
			k = j + 3
		}
		if k >= b {
			errs.note(phaseSyntax, s.syntaxAt(b))
			return
		}
		e := k + 1
		for e < b && !s.isAny(e, "collate", "using") {
			if s.punct(e, '(') {
				e = s.match[e]
			}
			e++
		}
		e = min(e, b)
		c.Action, c.TypeText = AlterType, s.src(k, e)
		c.Type, c.TypeErr = s.columnSeqType(k, e)
	case s.is(j, "restart"), s.is(j, "set") && (s.is(j+1, "generated") || s.isAny(j+1, seqOptWords...)):
		s.setIdentity(c, j, b, errs)
	}
}

// identityClause reads GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY [(…)]
// from token k: the kind, the options' '(' (-1: none) and the token after
// the clause, or end -1 after a syntax error.
func (s *stmt) identityClause(k, b int, errs *tableErrs) (kind sequence.Identity, open, end int) {
	j := k + 1
	switch {
	case s.is(j, "always"):
		kind, j = sequence.IdentityAlways, j+1
	case s.is(j, "by") && s.is(j+1, "default"):
		kind, j = sequence.IdentityByDefault, j+2
	default:
		errs.note(phaseSyntax, s.syntaxAt(j+btoi(s.is(j, "by"))))
		return 0, -1, -1
	}
	if !s.is(j, "as") || !s.is(j+1, "identity") {
		errs.note(phaseSyntax, s.syntaxAt(j+btoi(s.is(j, "as"))))
		return 0, -1, -1
	}
	j += 2
	open = -1
	if s.punct(j, '(') && s.match[j] < b {
		open, j = j, s.match[j]+1
	}
	return kind, open, j
}

// setIdentity reads an identity column's list of SET GENERATED …, SET
// option and RESTART [[WITH] n], tokens [j, b), into c.
func (s *stmt) setIdentity(c *TableCmd, j, b int, errs *tableErrs) {
	end := ""
	if b < len(s.toks) {
		end = s.text(b)
	}
	// elemEnd returns the start of the next element after token k.
	elemEnd := func(k int) int {
		for k < b && !s.isAny(k, "set", "restart") {
			k++
		}
		return k
	}
	// check parses one element's option alone, for its syntax errors at
	// the place PostgreSQL finds them.
	check := func(a, e int) bool {
		after := end
		if e < b {
			after = s.text(e)
		}
		sub := &stmt{l: s.l, sp: s.sp, toks: s.toks[a:e], ident: &identOpts{end: after}}
		if syntax, _ := sub.parseOptions(&DDL{}, 0); syntax != nil {
			errs.note(phaseSyntax, syntax)
			return false
		}
		return true
	}
	var opts []token
	var gen sequence.Identity
	for k := j; k < b; {
		switch {
		case s.is(k, "restart"):
			e := elemEnd(k + 1)
			if !check(k, e) {
				return
			}
			opts = append(opts, s.toks[k:e]...)
			k = e
		case s.is(k, "set") && s.is(k+1, "generated"):
			m := k + 2
			var kind sequence.Identity
			switch {
			case s.is(m, "always"):
				kind, m = sequence.IdentityAlways, m+1
			case s.is(m, "by") && s.is(m+1, "default"):
				kind, m = sequence.IdentityByDefault, m+2
			default:
				errs.note(phaseSyntax, s.syntaxAt(m+btoi(s.is(m, "by"))))
				return
			}
			if m < b && !s.isAny(m, "set", "restart") {
				errs.note(phaseSyntax, s.syntaxAt(m))
				return
			}
			if gen != 0 {
				errs.note(phaseTable, syntaxErr("conflicting or redundant options"))
			}
			gen, k = kind, m
		case s.is(k, "set") && s.isAny(k+1, "as", "restart", "owned"):
			name := s.word(k + 1)
			if name == "owned" {
				name = "owned_by"
			}
			errs.note(phaseSyntax, syntaxErr("sequence option %q not supported here", name))
			return
		case s.is(k, "set"):
			e := elemEnd(k + 1)
			if e == k+1 {
				errs.note(phaseSyntax, s.syntaxAt(e))
				return
			}
			if !check(k+1, e) {
				return
			}
			opts = append(opts, s.toks[k+1:e]...)
			k = e
		default:
			errs.note(phaseSyntax, s.syntaxAt(k))
			return
		}
	}
	var d DDL
	sub := &stmt{l: s.l, sp: s.sp, toks: opts, ident: &identOpts{end: end}}
	syntax, err := sub.parseOptions(&d, 0)
	errs.note(phaseSyntax, syntax)
	errs.note(phaseSequence, err)
	c.Action, c.Generated, c.Clauses = SetIdentity, gen, d.Clauses
}

// dropTable plans DROP TABLE [IF EXISTS] names [CASCADE | RESTRICT].
func (s *stmt) dropTable(st *Statement) bool {
	i := 2
	t := &TableDDL{Op: TableDrop, text: st.Text}
	if s.is(i, "if") && s.is(i+1, "exists") {
		t.IfExists, i = true, i+2
	}
	for {
		name, unqualified, next, err := s.ddlName(i)
		if err != nil {
			return false
		}
		t.Names, t.Unqualified = append(t.Names, name), append(t.Unqualified, unqualified)
		if i = next; !s.punct(i, ',') {
			break
		}
		i++
	}
	if s.isAny(i, "cascade", "restrict") {
		t.Cascade = s.is(i, "cascade")
		i++
	}
	if i != len(s.toks) || len(s.found) > 0 {
		return false
	}
	st.Kind, st.Catalog, st.Table = CatalogDDL, s.catalog(), t
	return true
}
