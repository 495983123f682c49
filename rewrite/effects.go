package rewrite

import "strings"

// What a statement does to a PostgreSQL session beyond its result —
// transaction control, the search_path, the read-only mode, DISCARD, a
// schema dropped, temporary relations — is decided once, in the lexing pass
// that plans the text ([Statement.Tx], [Statement.Path], [Statement.Mode],
// [Statement.Discards], [Statement.SchemaDrop], [Statement.Temps],
// [Statement.Verb]), and
// read from the plan afterwards. Only the postgres dialect has them.

// ModeEffect is what a statement sent to the database may do to its
// transaction's read-only mode.
type ModeEffect uint8

const (
	// ModeNone: it does not touch it.
	ModeNone ModeEffect = iota
	// ModeDefault: it ends the transaction block, or begins one in the
	// session's default mode (BEGIN, COMMIT, ROLLBACK, PREPARE
	// TRANSACTION).
	ModeDefault
	// ModeUnclear: it may set the mode (BEGIN READ ONLY, SET TRANSACTION,
	// SET default_transaction_read_only, RESET ALL, set_config, … AND
	// CHAIN, ROLLBACK TO): ask the database.
	ModeUnclear
)

// effects fills in the effects of statement st from its tokens, and adds
// them to the plan's.
func (p *Plan) effects(l *lexer, toks []token, st *Statement) {
	st.Tx = txControl(l, toks)
	st.Path = statementPathEffect(l, toks)
	st.Mode = modeEffect(l, toks)
	st.Verb = dmlVerb(l, toks)
	st.Rows = mayReturnRows(l, toks, st.Verb)
	st.SchemaDrop = schemaDrop(l, toks)
	st.Discards = len(toks) >= 2 && l.is(toks[0], "discard") && (l.is(toks[1], "sequences") || l.is(toks[1], "all"))
	st.Temps = tempEffect(l, toks)
	for i, t := range toks {
		// set_config anywhere (a SELECT, a function's argument) may change
		// the search_path or the transaction's mode.
		if (l.is(t, "set_config") || t.kind == tQIdent && strings.EqualFold(l.text(t), `"set_config"`)) && i+1 < len(toks) && l.punct(toks[i+1], '(') {
			st.Path |= ChangesPath
			st.Mode = ModeUnclear
		}
	}
	if len(toks) > 0 && (l.is(toks[0], "create") || l.is(toks[0], "alter") || l.is(toks[0], "drop") ||
		l.is(toks[0], "grant") || l.is(toks[0], "revoke") || l.is(toks[0], "reassign")) {
		p.Redefines = true
	}
	if len(toks) > 0 && (l.is(toks[0], "insert") || l.is(toks[0], "with") || l.is(toks[0], "copy") || l.is(toks[0], "update") || l.is(toks[0], "merge")) {
		p.Inserts = true
	}
	p.Path |= st.Path
	p.Temps |= st.Temps
	p.hasEffects = p.hasEffects || st.Tx.Op != TxNone || st.Path != 0 || st.Mode != ModeNone || st.Discards || st.SchemaDrop != nil || st.Temps != 0
}

// Effects reports whether a statement of the plan has an effect on the
// session (transaction control, the search_path, the read-only mode,
// DISCARD, a schema dropped, temporary relations).
func (p *Plan) Effects() bool { return p.hasEffects }

// Discards reports whether a statement of the plan is DISCARD SEQUENCES or
// DISCARD ALL, which clear the session's currval and lastval.
func (p *Plan) Discards() bool {
	for i := range p.Statements {
		if p.Statements[i].Discards {
			return true
		}
	}
	return false
}

// Control returns the plan's transaction control: its one statement that
// controls the transaction, and mixed when the string has other statements
// too.
func (p *Plan) Control() (c TxControl, mixed bool) {
	for i := range p.Statements {
		if t := p.Statements[i].Tx; t.Op != TxNone {
			c, mixed = t, len(p.Statements) > 1
		}
	}
	return c, mixed
}

// SchemaDrops returns the plan's DROP SCHEMA and ALTER SCHEMA … RENAME
// statements.
func (p *Plan) SchemaDrops() []SchemaDrop {
	var out []SchemaDrop
	for i := range p.Statements {
		if sd := p.Statements[i].SchemaDrop; sd != nil {
			out = append(out, *sd)
		}
	}
	return out
}

// modeEffect is what a statement does to the transaction's read-only mode.
func modeEffect(l *lexer, toks []token) ModeEffect {
	has := func(words ...string) bool {
		for _, t := range toks {
			if t.kind != tIdent {
				continue
			}
			for _, w := range words {
				if l.is(t, w) {
					return true
				}
			}
		}
		return false
	}
	word := func(i int, w string) bool { return i < len(toks) && l.is(toks[i], w) }
	switch {
	case word(0, "begin"), word(0, "start") && word(1, "transaction"):
		if has("read") { // READ ONLY, READ WRITE, ISOLATION LEVEL READ …: ask
			return ModeUnclear
		}
		return ModeDefault
	case word(0, "commit"), word(0, "end"), word(0, "abort"), word(0, "rollback"):
		if word(1, "prepared") {
			return ModeNone // another session's transaction
		}
		if has("chain", "to") {
			return ModeUnclear // AND CHAIN keeps the mode; ROLLBACK TO may restore one
		}
		return ModeDefault
	case word(0, "prepare") && word(1, "transaction"):
		return ModeDefault
	case word(0, "set"), word(0, "reset"):
		for _, t := range toks[1:] {
			if t.kind != tIdent {
				continue
			}
			// SET TRANSACTION, SET SESSION CHARACTERISTICS AS TRANSACTION,
			// SET [LOCAL] transaction_read_only,
			// default_transaction_read_only, RESET ALL.
			w := strings.ToLower(l.text(t))
			if strings.Contains(w, "only") || strings.Contains(w, "transaction") || w == "all" {
				return ModeUnclear
			}
		}
	}
	return ModeNone
}

// rowsWords are the first words of statements that may return rows
// besides queries (SELECT, VALUES, TABLE, WITH … SELECT): CALL of a
// procedure with output parameters, EXECUTE of a prepared query, FETCH,
// SHOW, EXPLAIN, COPY … TO STDOUT.
var rowsWords = []string{"select", "values", "table", "show", "explain", "fetch", "execute", "call", "copy"}

// mayReturnRows reports whether a statement may return rows (a result
// with columns), from its first word and, for INSERT, UPDATE, DELETE and
// MERGE (verb), a RETURNING clause: erring towards true.
func mayReturnRows(l *lexer, toks []token, verb string) bool {
	if len(toks) == 0 {
		return false
	}
	if l.punct(toks[0], '(') {
		return true // a parenthesised query
	}
	if verb != "" {
		for _, t := range toks {
			if l.is(t, "returning") {
				return true
			}
		}
		return false
	}
	if l.is(toks[0], "with") {
		return true // WITH … SELECT (a DML verb is handled above)
	}
	for _, w := range rowsWords {
		if l.is(toks[0], w) {
			return true
		}
	}
	return false
}

// dmlVerb is the command of an INSERT, UPDATE, DELETE or MERGE statement
// (WITH … INSERT too), which PostgreSQL refuses in a read-only transaction
// before it evaluates anything, or "".
func dmlVerb(l *lexer, toks []token) string {
	i := 0
	for i < len(toks) && l.punct(toks[i], '(') {
		i++
	}
	if i < len(toks) && l.is(toks[i], "with") {
		// The main statement follows the WITH list, at the top level.
		depth := 0
		for i++; i < len(toks); i++ {
			switch {
			case l.punct(toks[i], '('):
				depth++
			case l.punct(toks[i], ')'):
				depth--
			case depth == 0 && toks[i].kind == tIdent:
				switch w := strings.ToLower(l.text(toks[i])); w {
				case "select", "values", "table":
					return ""
				case "insert", "update", "delete", "merge":
					return strings.ToUpper(w)
				}
			}
		}
		return ""
	}
	if i < len(toks) && toks[i].kind == tIdent {
		switch w := strings.ToLower(l.text(toks[i])); w {
		case "insert", "update", "delete", "merge":
			return strings.ToUpper(w)
		}
	}
	return ""
}

// schemaDrop reads DROP SCHEMA and ALTER SCHEMA … RENAME; nil for other
// statements, and for a DROP SCHEMA PostgreSQL would not read (it says so).
func schemaDrop(l *lexer, toks []token) *SchemaDrop {
	if len(toks) >= 4 && l.is(toks[0], "alter") && l.is(toks[1], "schema") && l.is(toks[3], "rename") {
		if name, ok := identValue(l, toks[2]); ok {
			return &SchemaDrop{Schemas: []string{name}, Rename: true}
		}
		return nil
	}
	if len(toks) < 3 || !l.is(toks[0], "drop") || !l.is(toks[1], "schema") {
		return nil
	}
	var sd SchemaDrop
	i := 2
	if i+1 < len(toks) && l.is(toks[i], "if") && l.is(toks[i+1], "exists") {
		sd.IfExists, i = true, i+2
	}
	for i < len(toks) {
		name, ok := identValue(l, toks[i])
		if !ok {
			break
		}
		sd.Schemas = append(sd.Schemas, name)
		i++
		if i < len(toks) && l.punct(toks[i], ',') {
			i++
			continue
		}
		break
	}
	if i < len(toks) && (l.is(toks[i], "cascade") || l.is(toks[i], "restrict")) {
		sd.Cascade = l.is(toks[i], "cascade")
		i++
	}
	if i != len(toks) || len(sd.Schemas) == 0 {
		return nil
	}
	return &sd
}

// maySession is the cheap test for effects, before the lexer: does a
// statement appear to start with a word of one (begin, start, commit, end,
// rollback, abort, savepoint, release, prepare, set, reset, discard,
// create, drop, alter, or a statement that may insert: insert, update,
// copy, with), or does set_config appear anywhere? It does not allocate.
func maySession(s string) bool {
	return mayStartWithWord(s, isSessionWord) || hasSetConfig(s)
}

// isSessionWord reports whether w (in any case) starts a statement that
// may have an effect, or may insert into a table with store-backed column
// defaults.
func isSessionWord(w string) bool {
	switch len(w) {
	case 3:
		return strings.EqualFold(w, "set") || strings.EqualFold(w, "end")
	case 4:
		return strings.EqualFold(w, "drop") || strings.EqualFold(w, "with") || strings.EqualFold(w, "copy")
	case 5:
		return strings.EqualFold(w, "reset") || strings.EqualFold(w, "abort") || strings.EqualFold(w, "alter") ||
			strings.EqualFold(w, "begin") || strings.EqualFold(w, "start") || strings.EqualFold(w, "merge")
	case 6:
		return strings.EqualFold(w, "commit") || strings.EqualFold(w, "create") || strings.EqualFold(w, "insert") ||
			strings.EqualFold(w, "update")
	case 7:
		return strings.EqualFold(w, "discard") || strings.EqualFold(w, "prepare") || strings.EqualFold(w, "release")
	case 8:
		return strings.EqualFold(w, "rollback")
	case 9:
		return strings.EqualFold(w, "savepoint")
	}
	return false
}
