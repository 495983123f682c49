package rewrite

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tIdent      tokKind = iota + 1 // unquoted word: keyword or identifier
	tQIdent                        // quoted identifier: "x", `x`, [x]
	tString                        // string literal of any form
	tNumber                        // numeric literal
	tParam                         // positional bind parameter: $N, ?, ?NNN
	tNamedParam                    // SQLite :name, @name, $name; MySQL :name
	tCast                          // ::
	tPunct                         // any other single byte
)

// token is a lexeme of the SQL text; comments and white space are not
// tokens. arg is the 0-based bind argument index of a tParam.
type token struct {
	kind       tokKind
	start, end int
	arg        int
}

// lexer splits SQL text into tokens by the rules of one dialect. It never
// fails: an unterminated literal, identifier or comment runs to the end of
// the text and sets open, a ')' without its '(' or a '(' without its ')'
// (or, in PostgreSQL, a ']' without its '[') sets unbalanced, a control
// character outside literals and comments sets stray (PostgreSQL only),
// and the planner then treats the text as one it cannot read
// ([lexer.unreadable]). A vertical tab is white space, but noted in vtab
// (PostgreSQL only): see unreadablePlan.
type lexer struct {
	d          Dialect
	s          string
	toks       []token
	open       bool  // unterminated literal, quoted identifier or comment
	unbalanced bool  // parentheses that do not pair up
	stray      bool  // a control character outside literals and comments (PostgreSQL)
	vtab       bool  // a vertical tab outside literals and comments (PostgreSQL)
	depth      int   // '(' not yet closed
	brackets   int   // '[' not yet closed (PostgreSQL)
	exec       bool  // inside MySQL's /*! … */
	marks      []int // offsets of the /*! and */ markers around MySQL's executed comments
	params     int   // highest parameter number seen
}

func lex(d Dialect, s string) *lexer {
	l := &lexer{d: d, s: s, toks: make([]token, 0, len(s)/4+4)}
	l.run()
	return l
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentCont(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (l *lexer) add(k tokKind, start, end int) {
	l.toks = append(l.toks, token{kind: k, start: start, end: end, arg: -1})
}

func (l *lexer) run() {
	s := l.s
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.vtab = l.vtab || c == '\v' && l.d == Postgres
			i++
		case (c < ' ' || c == 0x7f) && l.d == Postgres:
			// PostgreSQL's scanner reads any other control character as a
			// token of its own, which no statement accepts.
			l.stray = true
			l.add(tPunct, i, i+1)
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-' && (l.d != MySQL || i+2 >= len(s) || s[i+2] <= ' '):
			i = l.lineComment(i)
		case c == '#' && l.d == MySQL:
			i = l.lineComment(i)
		case c == '/' && i+1 < len(s) && s[i+1] == '*' && l.d == MySQL && i+2 < len(s) && s[i+2] == '!' && !l.exec:
			// MySQL runs the text of /*! … */ and /*!50700 … */ as SQL:
			// lex it as such, skipping only the markers.
			l.exec = true
			l.marks = append(l.marks, i)
			i += 3
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		case c == '*' && l.exec && i+1 < len(s) && s[i+1] == '/':
			l.exec = false
			l.marks = append(l.marks, i)
			i += 2
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			i = l.blockComment(i)
		case c == '\'':
			i = l.quoted(i, i, '\'', l.d == MySQL, tString)
		case c == '"':
			if l.d == MySQL {
				i = l.quoted(i, i, '"', true, tString)
			} else {
				i = l.quoted(i, i, '"', false, tQIdent)
			}
		case c == '`' && l.d != Postgres:
			i = l.quoted(i, i, '`', false, tQIdent)
		case c == '[' && l.d == SQLite:
			end := strings.IndexByte(s[i+1:], ']')
			if end < 0 {
				l.open = true
				l.add(tQIdent, i, len(s))
				return
			}
			l.add(tQIdent, i, i+1+end+1)
			i += end + 2
		case c == '$' && l.d == Postgres:
			i = l.dollar(i)
		case c == '?' && l.d != Postgres:
			i = l.question(i)
		case (c == ':' || c == '@' || c == '$') && l.d == SQLite && i+1 < len(s) && isIdentStart(s[i+1]),
			c == ':' && l.d == MySQL && i+1 < len(s) && isIdentStart(s[i+1]):
			// SQLite's named parameters, and the :name bind variables of
			// MySQL tooling (vitess, sqlx before expansion).
			j := i + 1
			for j < len(s) && isIdentCont(s[j]) {
				j++
			}
			l.add(tNamedParam, i, j)
			i = j
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			l.add(tCast, i, i+2)
			i += 2
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			i = l.number(i)
		case isIdentStart(c):
			i = l.word(i)
		default:
			switch c {
			case '(':
				l.depth++
			case ')':
				if l.depth--; l.depth < 0 {
					l.unbalanced = true
				}
			case '[':
				l.brackets++
			case ']':
				if l.brackets--; l.brackets < 0 && l.d == Postgres {
					l.unbalanced = true
				}
			}
			l.add(tPunct, i, i+1)
			i++
		}
	}
	if l.exec {
		l.open = true
	}
	if l.depth != 0 || l.brackets != 0 && l.d == Postgres {
		l.unbalanced = true
	}
}

// unreadable reports whether the text is malformed in a way the database
// refuses as a syntax error: an unterminated literal, quoted identifier or
// comment, parentheses (PostgreSQL: or brackets) that do not pair up, or
// (PostgreSQL) a control character outside literals and comments. The
// statement analysis relies on balanced parentheses, and never sees such a
// text.
func (l *lexer) unreadable() bool { return l.open || l.unbalanced || l.stray }

func (l *lexer) lineComment(i int) int {
	end := strings.IndexByte(l.s[i:], '\n')
	if end < 0 {
		return len(l.s)
	}
	return i + end + 1
}

// blockComment skips a /* */ comment, nested in PostgreSQL only.
func (l *lexer) blockComment(i int) int {
	s := l.s
	depth := 0
	for i < len(s) {
		switch {
		case s[i] == '/' && i+1 < len(s) && s[i+1] == '*':
			if depth == 0 || l.d == Postgres {
				depth++
			}
			i += 2
		case s[i] == '*' && i+1 < len(s) && s[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	l.open = true
	return i
}

// quoted lexes a literal or identifier from start whose opening quote q is
// at i. A doubled quote stands for itself; with backslash, \ escapes the
// next byte.
func (l *lexer) quoted(start, i int, q byte, backslash bool, k tokKind) int {
	s := l.s
	i++
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\' && backslash:
			i += 2
		case c == q:
			if i+1 < len(s) && s[i+1] == q {
				i += 2
				continue
			}
			l.add(k, start, i+1)
			return i + 1
		default:
			i++
		}
	}
	l.open = true
	l.add(k, start, len(s))
	return len(s)
}

// dollar lexes what starts with $ in PostgreSQL: a parameter $N, a
// dollar-quoted string $tag$…$tag$, or a lone $.
func (l *lexer) dollar(i int) int {
	s := l.s
	j := i + 1
	if j < len(s) && isDigit(s[j]) {
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		n, err := strconv.Atoi(s[i+1 : j])
		if err != nil || n == 0 || n > 1<<16 {
			l.add(tPunct, i, j) // not a usable parameter
			return j
		}
		l.params = max(l.params, n)
		l.toks = append(l.toks, token{kind: tParam, start: i, end: j, arg: n - 1})
		return j
	}
	for j < len(s) && s[j] != '$' && isIdentCont(s[j]) {
		if j == i+1 && !isIdentStart(s[j]) {
			break
		}
		j++
	}
	if j >= len(s) || s[j] != '$' {
		l.add(tPunct, i, i+1)
		return i + 1
	}
	tag := s[i : j+1]
	end := strings.Index(s[j+1:], tag)
	if end < 0 {
		l.open = true
		l.add(tString, i, len(s))
		return len(s)
	}
	stop := j + 1 + end + len(tag)
	l.add(tString, i, stop)
	return stop
}

// question lexes ? or ?NNN (SQLite) parameters.
func (l *lexer) question(i int) int {
	s := l.s
	j := i + 1
	n := 0
	if l.d == SQLite {
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j > i+1 {
			var err error
			n, err = strconv.Atoi(s[i+1 : j])
			if err != nil || n == 0 || n > 1<<16 {
				l.add(tPunct, i, j)
				return j
			}
		}
	}
	if n == 0 {
		// An anonymous ? takes the number after the highest so far.
		n = l.params + 1
	}
	l.params = max(l.params, n)
	l.toks = append(l.toks, token{kind: tParam, start: i, end: j, arg: n - 1})
	return j
}

func (l *lexer) number(i int) int {
	s := l.s
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '.' && !(j+1 < len(s) && s[j+1] == '.') {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			j = k
			for j < len(s) && isDigit(s[j]) {
				j++
			}
		}
	}
	if l.d == MySQL || l.d == SQLite {
		// 0x1F, and in MySQL identifiers may start with digits: 1abc.
		for j < len(s) && isIdentCont(s[j]) {
			j++
		}
	}
	l.add(tNumber, i, j)
	return j
}

// word lexes an identifier or keyword, or a prefixed literal: E'…', B'…',
// X'…', N'…', U&'…', U&"…" (PostgreSQL), and N'…', X'…', B'…' elsewhere.
func (l *lexer) word(i int) int {
	s := l.s
	if i+1 < len(s) {
		c := s[i] | 0x20
		switch {
		case s[i+1] == '\'' && (c == 'e' && l.d == Postgres):
			return l.quoted(i, i+1, '\'', true, tString)
		case s[i+1] == '\'' && (c == 'b' || c == 'x' || c == 'n'):
			return l.quoted(i, i+1, '\'', l.d == MySQL, tString)
		case c == 'u' && l.d == Postgres && s[i+1] == '&' && i+2 < len(s) && s[i+2] == '\'':
			return l.quoted(i, i+2, '\'', false, tString)
		case c == 'u' && l.d == Postgres && s[i+1] == '&' && i+2 < len(s) && s[i+2] == '"':
			return l.quoted(i, i+2, '"', false, tQIdent)
		}
	}
	j := i + 1
	for j < len(s) && isIdentCont(s[j]) {
		j++
	}
	l.add(tIdent, i, j)
	return j
}

// text returns the source text of t.
func (l *lexer) text(t token) string { return l.s[t.start:t.end] }

// is reports whether t is the unquoted word w (lower case), in any case.
func (l *lexer) is(t token, w string) bool {
	return t.kind == tIdent && strings.EqualFold(l.s[t.start:t.end], w)
}

// isAt reports whether token i of toks is one of the words ws (false past
// the end): the statement classifiers' test of a keyword at a position.
func (l *lexer) isAt(toks []token, i int, ws ...string) bool {
	if i >= len(toks) {
		return false
	}
	for _, w := range ws {
		if l.is(toks[i], w) {
			return true
		}
	}
	return false
}

// punct reports whether t is the single byte c.
func (l *lexer) punct(t token, c byte) bool {
	return t.kind == tPunct && t.end-t.start == 1 && l.s[t.start] == c
}

// stringValue returns the value of a string literal token, and false for a
// form it does not decode (bit strings, U& escapes it cannot read).
func (l *lexer) stringValue(t token) (string, bool) {
	s := l.s[t.start:t.end]
	switch {
	case s[0] == '$':
		tag := strings.IndexByte(s[1:], '$') + 2
		return s[tag : len(s)-tag], true
	case s[0] == '\'':
		if l.d == MySQL {
			return unescapeBackslash(s[1:len(s)-1], '\'')
		}
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), true
	case s[0] == '"' && l.d == MySQL:
		return unescapeBackslash(s[1:len(s)-1], '"')
	case s[0]|0x20 == 'e' && l.d == Postgres:
		return unescapeBackslash(s[2:len(s)-1], '\'')
	case s[0]|0x20 == 'n':
		if l.d == MySQL {
			return unescapeBackslash(s[2:len(s)-1], '\'')
		}
		return strings.ReplaceAll(s[2:len(s)-1], "''", "'"), true
	case s[0]|0x20 == 'u':
		return unescapeUnicode(strings.ReplaceAll(s[3:len(s)-1], "''", "'"))
	}
	return "", false
}

// unescapeBackslash decodes the common backslash escapes of E'…' and MySQL
// strings, and a doubled quote q.
func unescapeBackslash(s string, q byte) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 && strings.IndexByte(s, q) < 0 {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case '0':
				return "", false // octal, or NUL in MySQL: not in a sequence name
			case 'x', 'u', 'U':
				return "", false // hexadecimal and Unicode escapes: not decoded
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// unescapeUnicode decodes U&'…' with the default escape character: \XXXX,
// \+XXXXXX and \\. A UESCAPE clause is not supported (the caller sees the
// literal as unreadable).
func unescapeUnicode(s string) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		n := 4
		j := i + 1
		switch {
		case j < len(s) && s[j] == '\\':
			b.WriteByte('\\')
			i = j
			continue
		case j < len(s) && s[j] == '+':
			n, j = 6, j+1
		}
		if j+n > len(s) {
			return "", false
		}
		r, err := strconv.ParseUint(s[j:j+n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(r)) || r == 0 {
			return "", false
		}
		b.WriteRune(rune(r))
		i = j + n - 1
	}
	return b.String(), true
}
