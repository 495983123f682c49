package rewrite

import "strings"

// PathEffect says what a SQL text may do to a PostgreSQL session's
// effective search_path, which seqshim learns once and keeps until a
// statement may have changed it.
type PathEffect uint8

const (
	// ChangesPath: SET, SET LOCAL or RESET of search_path (SET SCHEMA
	// too), of role or session authorization (which "$user" follows),
	// RESET ALL, DISCARD ALL, a call of set_config anywhere, or CREATE,
	// DROP or ALTER SCHEMA (the effective path has the schemas that exist).
	ChangesPath PathEffect = 1 << iota
	// EndsTransaction: COMMIT, END, ROLLBACK, ABORT or PREPARE
	// TRANSACTION, which end SET LOCAL, and undo a SET of a transaction
	// that does not commit.
	EndsTransaction
	// RollsBackToSavepoint: ROLLBACK TO SAVEPOINT, which undoes a SET made
	// since the savepoint; the transaction goes on.
	RollsBackToSavepoint
)

// statementPathEffect is the effect of one statement's tokens.
func statementPathEffect(l *lexer, toks []token) PathEffect {
	word := func(i int, ws ...string) bool { return l.isAt(toks, i, ws...) }
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
	case word(0, "create", "drop", "alter"):
		if word(1, "schema") {
			return ChangesPath // the path's schemas that exist change
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

// mayStartWithWord reports whether a statement of s appears to start with
// a word for which is is true: at the start of s or after a ';', after
// white space and comments.
func mayStartWithWord(s string, is func(string) bool) bool {
	for i := 0; ; {
		if firstWordIs(s, i, is) {
			return true
		}
		j := strings.IndexByte(s[i:], ';')
		if j < 0 {
			return false
		}
		i += j + 1
	}
}

// firstWordIs reports whether the word following offset i after white
// space and comments is one for which is is true.
func firstWordIs(s string, i int, is func(string) bool) bool {
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
			for j < len(s) && j-i <= 8 && isIdentCont(s[j]) {
				j++
			}
			return is(s[i:j])
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

// skipBlockComment returns the offset after the block comment starting at
// i, which nests as in PostgreSQL, or len(s) when it is not closed.
func skipBlockComment(s string, i int) int {
	depth := 0
	for i+1 < len(s) {
		switch {
		case s[i] == '/' && s[i+1] == '*':
			depth++
			i += 2
		case s[i] == '*' && s[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(s)
}
