package rewrite

import "strings"

// PathEffect says what a SQL text may do to a PostgreSQL session's
// effective search_path, which seqshim learns once and keeps until a
// statement may have changed it.
type PathEffect uint8

const (
	// ChangesPath: SET, SET LOCAL or RESET of search_path (SET SCHEMA
	// too), of role or session authorization (which "$user" follows),
	// RESET ALL, DISCARD ALL, or a call of set_config anywhere.
	ChangesPath PathEffect = 1 << iota
	// EndsTransaction: COMMIT, END, ROLLBACK, ABORT or PREPARE
	// TRANSACTION, which end SET LOCAL, and undo a SET of a transaction
	// that does not commit.
	EndsTransaction
	// RollsBackToSavepoint: ROLLBACK TO SAVEPOINT, which undoes a SET made
	// since the savepoint; the transaction goes on.
	RollsBackToSavepoint
)

// pathWords are the first words of the statements that may have a
// PathEffect (set_config aside).
var pathWords = [...]string{"set", "reset", "discard", "commit", "end", "rollback", "abort", "prepare"}

// PathEffects returns what sql may do to the search_path: the union of its
// statements' effects. Only the postgres dialect has a search_path. It errs
// on the side of reporting a change (a set_config in a literal counts), and
// cannot see a function that changes the path from inside. A text in which
// no statement starts with one of the words above and that never writes
// set_config costs a scan without allocation: front ends ask for every
// statement.
func PathEffects(d Dialect, sql string) PathEffect {
	if d != Postgres || !mayAffectPath(sql) {
		return 0
	}
	l := lex(Postgres, sql)
	var e PathEffect
	for i, t := range l.toks {
		if l.is(t, "set_config") || t.kind == tQIdent && strings.EqualFold(l.text(t), `"set_config"`) {
			if i+1 < len(l.toks) && l.punct(l.toks[i+1], '(') {
				e |= ChangesPath
			}
		}
	}
	for _, sp := range split(l) {
		e |= statementPathEffect(l, l.toks[sp.a:sp.b])
	}
	return e
}

// statementPathEffect is the effect of one statement's tokens.
func statementPathEffect(l *lexer, toks []token) PathEffect {
	word := func(i int, w ...string) bool {
		if i >= len(toks) {
			return false
		}
		for _, x := range w {
			if l.is(toks[i], x) {
				return true
			}
		}
		return false
	}
	switch {
	case word(0, "set"):
		i := 1
		if word(i, "local", "session") && !word(i+1, "authorization", "characteristics") {
			i++
		}
		if word(i, "search_path", "schema", "role", "session") {
			return ChangesPath // SET SESSION AUTHORIZATION reads as session here
		}
	case word(0, "reset"):
		if word(1, "search_path", "role", "session", "all") {
			return ChangesPath
		}
	case word(0, "discard"):
		if word(1, "all") {
			return ChangesPath
		}
	case word(0, "commit", "end", "abort"):
		if word(0, "commit") && word(1, "prepared") {
			return 0 // another session's transaction
		}
		return EndsTransaction
	case word(0, "rollback"):
		switch {
		case word(1, "prepared"):
			return 0
		case word(1, "to") || word(2, "to"): // ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] x
			return RollsBackToSavepoint
		}
		return EndsTransaction
	case word(0, "prepare"):
		if word(1, "transaction") {
			return EndsTransaction
		}
	}
	return 0
}

// mayAffectPath is the cheap test before the lexer: does a statement
// appear to start with one of pathWords, or does set_config appear
// anywhere?
func mayAffectPath(s string) bool {
	for i := 0; ; {
		if startsWithPathWord(s, i) {
			return true
		}
		j := strings.IndexByte(s[i:], ';')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return hasSetConfig(s)
}

// startsWithPathWord reports whether one of pathWords follows offset i
// after white space and comments.
func startsWithPathWord(s string, i int) bool {
	for i < len(s) {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return false
			}
			i += j + 1
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			i = skipBlockComment(s, i)
		default:
			j := i
			for j < len(s) && isIdentCont(s[j]) {
				j++
			}
			for _, w := range pathWords {
				if strings.EqualFold(s[i:j], w) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// hasSetConfig reports whether set_config appears in s, in any case.
func hasSetConfig(s string) bool {
	const before, after = "set", "config"
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], '_')
		if j < 0 {
			return false
		}
		i += j
		if i >= len(before) && i+1+len(after) <= len(s) &&
			strings.EqualFold(s[i-len(before):i], before) && strings.EqualFold(s[i+1:i+1+len(after)], after) {
			return true
		}
	}
}
