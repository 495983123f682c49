package rewrite

import (
	"errors"
	"strconv"
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

// sequenceDDL recognises CREATE [TEMP|TEMPORARY|UNLOGGED] SEQUENCE, ALTER
// SEQUENCE and DROP SEQUENCE: it returns the DDL with its Op and flags set,
// and leaves the token index after SEQUENCE in s.ddlPos for parseDDL, and
// TEMP in s.ddlTemp (a temporary sequence is the database's).
func (s *stmt) sequenceDDL() (*DDL, bool) {
	d := &DDL{}
	i := 1
	switch {
	case s.is(0, "create"):
		d.Op = Create
		switch {
		case s.isAny(i, "temp", "temporary"):
			s.ddlTemp, i = true, i+1
		case s.isAny(i, "local", "global") && s.isAny(i+1, "temp", "temporary"):
			s.ddlTemp, i = true, i+2
		case s.is(i, "unlogged"):
			d.Unlogged, i = true, i+1
		}
	case s.is(0, "alter"):
		d.Op = Alter
	case s.is(0, "drop"):
		d.Op = Drop
	default:
		return nil, false
	}
	if !s.is(i, "sequence") {
		return nil, false
	}
	s.ddlPos = i + 1
	return d, true
}

// syntaxAt is PostgreSQL's syntax error at token i (or at the end).
func (s *stmt) syntaxAt(i int) error {
	if i >= len(s.toks) {
		if s.ident != nil && s.ident.end != "" {
			return syntaxErr("syntax error at or near %q", s.ident.end)
		}
		if s.sp.terminated {
			return syntaxErr(`syntax error at or near ";"`)
		}
		return syntaxErr("syntax error at end of input")
	}
	return syntaxErr("syntax error at or near %q", s.text(i))
}

// parseDDL parses the rest of a sequence DDL statement by PostgreSQL's
// grammar and reports the errors PostgreSQL reports, in its order: syntax
// first, then conflicting options, then option values. CREATE TEMPORARY
// SEQUENCE reaches it only in the MySQL and SQLite dialects, which refuse
// it then (0A000).
func (s *stmt) parseDDL(d *DDL) (*DDL, error) {
	i := s.ddlPos
	switch d.Op {
	case Create:
		if s.is(i, "if") && s.is(i+1, "not") && s.is(i+2, "exists") {
			d.IfNotExists, i = true, i+3
		}
	default:
		if s.is(i, "if") && s.is(i+1, "exists") {
			d.IfExists, i = true, i+2
		}
	}
	for {
		name, unqualified, next, err := s.ddlName(i)
		if err != nil {
			return nil, err
		}
		d.Names = append(d.Names, name)
		d.Unqualified = append(d.Unqualified, unqualified)
		i = next
		if d.Op != Drop || !s.punct(i, ',') {
			break
		}
		i++
	}
	switch d.Op {
	case Drop:
		if s.isAny(i, "cascade", "restrict") {
			d.Cascade = s.is(i, "cascade")
			i++
		}
		if i != len(s.toks) {
			return nil, s.syntaxAt(i)
		}
		return d, nil
	case Alter:
		switch {
		case s.is(i, "rename") && s.is(i+1, "to"):
			if !s.isName(i + 2) {
				return nil, s.syntaxAt(i + 2)
			}
			if i+3 != len(s.toks) {
				return nil, s.syntaxAt(i + 3)
			}
			to, _, err := s.identName([]int{i + 2})
			if err != nil {
				return nil, err
			}
			schema, _ := sequence.SplitName(d.Names[0])
			_, rel := sequence.SplitName(to)
			d.Op, d.RenameTo = Rename, sequence.FormatName(schema, rel)
			return d, nil
		case s.is(i, "set") && s.is(i+1, "schema"):
			if !s.isName(i + 2) {
				return nil, s.syntaxAt(i + 2)
			}
			if i+3 != len(s.toks) {
				return nil, s.syntaxAt(i + 3)
			}
			schema, _, err := s.identName([]int{i + 2})
			if err != nil {
				return nil, err
			}
			_, rel := sequence.SplitName(d.Names[0])
			d.Op, d.RenameTo = Move, sequence.FormatName(sequence.RelName(schema), rel)
			return d, nil
		case s.is(i, "set") && s.isAny(i+1, "logged", "unlogged"):
			// ALTER SEQUENCE takes ALTER TABLE's subcommands: SET LOGGED
			// and SET UNLOGGED are the ones that apply to a sequence.
			if s.punct(i+2, ',') {
				return nil, unsupported("seqshim: ALTER SEQUENCE with several subcommands is not supported: PostgreSQL's answer depends on the sequence's persistence, which a store sequence does not have; send SET LOGGED or SET UNLOGGED alone")
			}
			if i+2 != len(s.toks) {
				return nil, s.syntaxAt(i + 2)
			}
			d.Op, d.Unlogged = SetLogged, s.is(i+1, "unlogged")
			return d, nil
		case s.is(i, "owner") && s.is(i+1, "to"):
			return nil, unsupported("ALTER SEQUENCE … OWNER TO is not supported: seqshim sequences live in its store, not in the database")
		}
		if i == len(s.toks) {
			return nil, s.syntaxAt(i) // ALTER SEQUENCE needs an option
		}
	}
	if err := s.options(d, i); err != nil {
		return nil, err
	}
	if s.ddlTemp {
		// MySQL and SQLite: the database has no sequences of its own for
		// a session to keep (a PostgreSQL one is the database's: analyze).
		return nil, unsupported("seqshim: temporary sequences are not supported in the %s dialect: a store sequence is shared by every session", s.l.d)
	}
	return d, nil
}

// tempDDLName reports whether sequence DDL names a sequence in a temporary
// schema (CREATE SEQUENCE pg_temp.s, DROP SEQUENCE s, pg_temp.t): the
// session's own, which the database serves. A DROP that also names store
// sequences then fails in the database, whose 42P01 about them seqshim
// turns into a 0A000 naming them (Session.DatabaseError).
func (s *stmt) tempDDLName() bool {
	i := s.ddlPos
	for _, w := range []string{"if", "not", "exists"} {
		if s.is(i, w) {
			i++
		}
	}
	for {
		parts := s.chain(i)
		if parts == nil {
			return false
		}
		if name, unqualified, err := s.identName(parts); err == nil && !unqualified && IsTempName(name) {
			return true
		}
		if i = parts[len(parts)-1] + 1; !s.punct(i, ',') {
			return false
		}
		i++
	}
}

// ddlName reads a qualified sequence name at token i.
func (s *stmt) ddlName(i int) (string, bool, int, error) {
	parts := s.chain(i)
	switch {
	case parts == nil:
		return "", false, i, s.syntaxAt(i)
	case len(parts) > 3:
		return "", false, i, syntaxErr("improper qualified name (too many dotted names): %s", s.plainName(parts))
	case len(parts) == 3:
		return "", false, i, unsupported("cross-database references are not implemented: %s", s.plainName(parts))
	}
	name, unqualified, err := s.identName(parts)
	return name, unqualified, parts[len(parts)-1] + 1, err
}

// plainName joins name parts as PostgreSQL's NameListToString does.
func (s *stmt) plainName(parts []int) string {
	var b strings.Builder
	for k, p := range parts {
		if k > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.aliasNamePG(p))
	}
	return b.String()
}

// aliasNamePG is an identifier's value with PostgreSQL's folding.
func (s *stmt) aliasNamePG(i int) string {
	if s.tok(i).kind == tIdent {
		return strings.ToLower(s.text(i))
	}
	return s.aliasName(i)
}

// options parses a SeqOptList from token i to the end.
func (s *stmt) options(d *DDL, i int) error {
	syntax, err := s.parseOptions(d, i)
	if syntax != nil {
		return syntax
	}
	return err
}

// parseOptions is options that tells syntax errors, which PostgreSQL's
// parser reports before anything else in the statement, from the others.
// With s.ident set, the list is an identity column's (see identOpts).
func (s *stmt) parseOptions(d *DDL, i int) (syntax, err error) {
	type opt struct {
		key   string
		first int    // token of the option, for the conflict message position
		num   string // numeric argument as written, sign included
	}
	var opts []opt
	seen := map[string]bool{}
	add := func(key string, at int, num string) error {
		if seen[key] {
			return syntaxErr("conflicting or redundant options")
		}
		seen[key] = true
		opts = append(opts, opt{key: key, first: at, num: num})
		return nil
	}
	// number reads NumericOnly at token j.
	number := func(j int) (string, int, bool) {
		sign := ""
		if s.punct(j, '-') || s.punct(j, '+') {
			if s.punct(j, '-') {
				sign = "-"
			}
			j++
		}
		if s.tok(j).kind != tNumber {
			return "", j, false
		}
		return sign + s.text(j), j + 1, true
	}
	var asType sequence.Type
	var asErr error
	var conflict error
	note := func(err error) {
		if conflict == nil {
			conflict = err
		}
	}
	create := s.ident != nil && s.ident.create
	if create {
		// PostgreSQL gives the sequence AS the column's type: one written
		// too conflicts, and a column type that is no integer type is
		// reported where AS is checked.
		seen["as"] = true
		asType, asErr = s.ident.typ, s.ident.typeErr
	}
	for i < len(s.toks) && syntax == nil {
		at := i
		switch w := s.word(i); w {
		case "as":
			j := i + 1
			if !s.isName(j) {
				syntax = s.syntaxAt(j)
				break
			}
			parts := s.chain(j)
			j = parts[len(parts)-1] + 1
			suffix := ""
			if s.isAny(j, "precision", "varying") {
				suffix = s.word(j)
				j++
			}
			asType, asErr = s.seqType(parts, suffix)
			if s.punct(j, '(') && s.match != nil {
				j = s.match[j] + 1
			} else if s.punct(j, '(') {
				for j < len(s.toks) && !s.punct(j, ')') {
					j++
				}
				j++
			}
			note(add("as", at, ""))
			i = j
		case "cache", "maxvalue", "minvalue":
			n, j, ok := number(i + 1)
			if !ok {
				syntax = s.syntaxAt(j)
				break
			}
			note(add(w, at, n))
			i = j
		case "increment", "start", "restart":
			j := i + 1
			if w == "increment" && s.is(j, "by") || w != "increment" && s.is(j, "with") {
				j++
			}
			n, k, ok := number(j)
			switch {
			case ok:
				j = k
			case w == "restart" && j == i+1:
				n = "" // RESTART alone
			default:
				syntax = s.syntaxAt(k)
			}
			if syntax != nil {
				break
			}
			note(add(w, at, n))
			i = j
		case "cycle":
			note(add("cycle", at, "1"))
			i++
		case "no":
			switch s.word(i + 1) {
			case "cycle":
				note(add("cycle", at, "0"))
			case "maxvalue", "minvalue":
				note(add(s.word(i+1), at, ""))
			default:
				syntax = s.syntaxAt(i + 1)
			}
			i += 2
		case "owned":
			if create && s.is(i+1, "by") && s.isName(i+2) {
				note(unsupported("seqshim: OWNED BY is not supported in the options of an identity column, which owns its sequence: leave it out"))
			}
			if !s.is(i+1, "by") || !s.isName(i+2) {
				syntax = s.syntaxAt(i + 1 + btoi(s.is(i+1, "by")))
				break
			}
			parts := s.chain(i + 2)
			note(add("owned_by", at, ""))
			if len(parts) == 1 && s.is(parts[0], "none") {
				d.OwnedBy = "none"
			} else if len(parts) == 1 {
				note(syntaxErr("invalid OWNED BY option"))
			} else {
				quoted := make([]string, len(parts))
				for k, p := range parts {
					quoted[k] = sequence.QuoteIdent(s.aliasNamePG(p))
				}
				d.OwnedBy = strings.Join(quoted, ".")
			}
			i = parts[len(parts)-1] + 1
		case "sequence":
			if !s.is(i+1, "name") || !s.isName(i+2) {
				syntax = s.syntaxAt(i + 1)
				break
			}
			parts := s.chain(i + 2)
			if create {
				note(add("sequence_name", at, ""))
				note(s.ident.named(s, parts))
			} else {
				note(syntaxErr("invalid sequence option SEQUENCE NAME"))
			}
			i = parts[len(parts)-1] + 1
		case "logged", "unlogged":
			if create {
				note(add("logged", at, ""))
			} else {
				note(sqlError(codeInternalError, "option %q not recognized", w))
			}
			i++
		default:
			syntax = s.syntaxAt(i)
		}
	}
	if syntax != nil {
		return syntax, nil
	}
	if conflict != nil {
		return nil, conflict
	}
	// Values, in the order PostgreSQL's init_params converts them.
	c := &d.Clauses
	if seen["as"] {
		if asErr != nil {
			return nil, asErr
		}
		if !create || s.ident.typeKnown {
			c.Type = sequence.TypeOf(asType)
		}
	}
	get := func(key string) (*int64, error) {
		for _, o := range opts {
			if o.key != key || o.num == "" {
				continue
			}
			v, err := strconv.ParseInt(o.num, 10, 64)
			if err == nil {
				return &v, nil
			}
			if errors.Is(err, strconv.ErrRange) {
				return nil, sqlError(sequence.CodeNumericOutOfRange, "value %q is out of range for type bigint", o.num)
			}
			return nil, sqlError(codeInvalidTextRepresentation, "invalid input syntax for type bigint: %q", o.num)
		}
		return nil, nil
	}
	if c.Increment, err = get("increment"); err != nil {
		return nil, err
	}
	for _, o := range opts {
		if o.key == "cycle" {
			c.Cycle = sequence.Bool(o.num == "1")
		}
	}
	if c.MaxValue, err = get("maxvalue"); err != nil {
		return nil, err
	}
	c.NoMaxValue = seen["maxvalue"] && c.MaxValue == nil
	if c.MinValue, err = get("minvalue"); err != nil {
		return nil, err
	}
	c.NoMinValue = seen["minvalue"] && c.MinValue == nil
	if c.Start, err = get("start"); err != nil {
		return nil, err
	}
	if c.RestartAt, err = get("restart"); err != nil {
		return nil, err
	}
	c.Restart = seen["restart"]
	if c.Cache, err = get("cache"); err != nil {
		return nil, err
	}
	return nil, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
