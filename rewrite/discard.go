package rewrite

import "strings"

// DiscardsSequences reports whether sql holds a DISCARD SEQUENCES or DISCARD
// ALL statement, the two that clear a PostgreSQL session's currval and
// lastval: at the start of the text or after any ';', after comments, in
// any case. A DISCARD inside a literal, a quoted identifier or a comment does
// not count, and other dialects have no DISCARD. A string in which no
// statement starts with the word discard costs a search for ';' and no
// allocation, so the driver asks after every statement that reached the
// database.
func DiscardsSequences(d Dialect, sql string) bool {
	return d == Postgres && mayStartWithWord(sql, isDiscardWord) && lexDiscards(sql)
}

// lexDiscards is DiscardsSequences without the cheap test.
func lexDiscards(sql string) bool {
	l := lex(Postgres, sql)
	if l.unreadable() {
		return false // the database refuses the text
	}
	for _, sp := range split(l) {
		if sp.b-sp.a < 2 || !l.is(l.toks[sp.a], "discard") {
			continue
		}
		if arg := l.toks[sp.a+1]; l.is(arg, "sequences") || l.is(arg, "all") {
			return true
		}
	}
	return false
}

// isDiscardWord is the cheap test before the lexer (with
// mayStartWithWord): does a statement appear to start with the word
// discard, at the start of the text or after a ';' (perhaps one inside a
// literal: the lexer decides), after white space and comments?
func isDiscardWord(w string) bool { return len(w) == 7 && strings.EqualFold(w, "discard") }

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
